package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// A pool may run several collectors (HTCondor's COLLECTOR_HOST list).
// Collectors is the one rule for talking to them: an update (ads sent,
// ads invalidated) goes to every collector, so that each holds the whole
// pool; anything else (queries, members, gossip) goes to one collector
// that answers, the last one that did first, the others in their
// configured order after it when it cannot be reached.

// attemptTimeout bounds one try at one collector when several are
// configured, so that a collector that swallows packets does not use the
// caller's whole deadline before the next one is tried.
const attemptTimeout = 10 * time.Second

// Collectors calls a pool's collectors.
type Collectors struct {
	clients []*Client
	addrs   []string
	// OnDown, when set, hears that an update did not reach a collector
	// that others accepted (the caller sees success).
	OnDown func(addr string, err error)

	mu     sync.Mutex
	sticky int // the collector that answered last
}

// Collectors returns a client for the collectors at addrs (host:port
// each, at least one).
func (c *Connector) Collectors(addrs []string) *Collectors {
	cs := &Collectors{addrs: addrs}
	for _, a := range addrs {
		cs.clients = append(cs.clients, c.Client(a))
	}
	return cs
}

// Addrs returns the collectors' addresses, in their configured order.
func (cs *Collectors) Addrs() []string { return cs.addrs }

// Addr returns the address of the collector that answered last (the
// first configured one before any call).
func (cs *Collectors) Addr() string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.addrs[cs.sticky]
}

// isUpdate says whether a request changes the collectors' ads.
func isUpdate(method, path string) bool {
	return method == "POST" && (path == PathAds || path == PathInvalidate)
}

// Call sends in to the collectors as CallRaw does.
func (cs *Collectors) Call(ctx context.Context, method, path string, in, out any) error {
	body, err := encode(in)
	if err != nil {
		return err
	}
	return cs.CallRaw(ctx, method, path, body, out)
}

// CallRaw sends an update to every collector, succeeding when one took
// it (out holds the first answer), or another request to the first
// collector that answers.
func (cs *Collectors) CallRaw(ctx context.Context, method, path string, body []byte, out any) error {
	if len(cs.clients) == 1 {
		return cs.clients[0].CallRaw(ctx, method, path, body, out)
	}
	if isUpdate(method, path) {
		return cs.fanOut(ctx, method, path, body, out)
	}
	return cs.failOver(ctx, func(ctx context.Context, cl *Client) (bool, error) {
		return false, cl.CallRaw(ctx, method, path, body, out)
	})
}

// Stream runs a streamed request at the first collector that answers. A
// stream that breaks after its first item is not tried elsewhere: each
// has seen part of it.
func (cs *Collectors) Stream(ctx context.Context, method, path string, in any, each func(item json.RawMessage) error) error {
	if len(cs.clients) == 1 {
		return cs.clients[0].Stream(ctx, method, path, in, each)
	}
	return cs.failOver(ctx, func(ctx context.Context, cl *Client) (bool, error) {
		started := false
		err := cl.Stream(ctx, method, path, in, func(item json.RawMessage) error {
			started = true
			return each(item)
		})
		return started, err
	})
}

// failOver tries call at each collector, the sticky one first, until one
// answers; it moves on only when a collector cannot be reached (an error
// the collector sent would be the same at the others) and call has not
// delivered anything yet.
func (cs *Collectors) failOver(ctx context.Context, call func(context.Context, *Client) (bool, error)) error {
	cs.mu.Lock()
	first := cs.sticky
	cs.mu.Unlock()
	var errs []error
	for i := range cs.clients {
		k := (first + i) % len(cs.clients)
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		started, err := call(actx, cs.clients[k])
		cancel()
		if err == nil || started || !retryable(ctx, err) {
			if err == nil || !errors.Is(err, ErrUnreachable) {
				cs.mu.Lock()
				cs.sticky = k
				cs.mu.Unlock()
			}
			return err
		}
		errs = append(errs, err)
	}
	return fmt.Errorf("no collector answers (%s): %w", strings.Join(cs.addrs, ", "), errors.Join(errs...))
}

// retryable says whether another collector may answer where one failed:
// it could not be reached, or it took too long, and the caller still
// waits.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	return errors.Is(err, ErrUnreachable) || errors.Is(err, context.DeadlineExceeded)
}

// fanOut sends an update to every collector at once.
func (cs *Collectors) fanOut(ctx context.Context, method, path string, body []byte, out any) error {
	answers := make([]json.RawMessage, len(cs.clients))
	errs := make([]error, len(cs.clients))
	var wg sync.WaitGroup
	for i, cl := range cs.clients {
		wg.Go(func() {
			var raw *json.RawMessage
			if out != nil {
				raw = &answers[i]
			}
			errs[i] = cl.CallRaw(ctx, method, path, body, rawOrNil(raw))
		})
	}
	wg.Wait()
	ok := -1
	for i, err := range errs {
		if err == nil {
			if ok < 0 {
				ok = i
			}
			continue
		}
		if cs.OnDown != nil {
			cs.OnDown(cs.addrs[i], err)
		}
	}
	if ok < 0 {
		return fmt.Errorf("no collector took the update (%s): %w", strings.Join(cs.addrs, ", "), errors.Join(errs...))
	}
	if out != nil && len(answers[ok]) > 0 {
		if err := json.Unmarshal(answers[ok], out); err != nil {
			return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
		}
	}
	return nil
}

// rawOrNil keeps a nil *json.RawMessage an untyped nil for CallRaw, which
// skips decoding then.
func rawOrNil(raw *json.RawMessage) any {
	if raw == nil {
		return nil
	}
	return raw
}
