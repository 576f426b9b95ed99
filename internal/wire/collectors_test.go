package wire

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/auth"
)

// fakeCollector answers updates (counting them) and queries (with its
// name) on a network.
type fakeCollector struct {
	name    string
	addr    string
	mu      sync.Mutex
	updates int
}

func (f *fakeCollector) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.updates
}

func startCollector(t *testing.T, network Network, name string) *fakeCollector {
	t.Helper()
	f := &fakeCollector{name: name}
	m := NewMux(ids, nil)
	m.Handle("POST "+PathAds, auth.Daemon, func(ctx context.Context, r *Request) (any, error) {
		f.mu.Lock()
		f.updates++
		f.mu.Unlock()
		return UpdateAdsResult{Stored: 1}, nil
	})
	m.HandleStream("POST "+PathQuery, auth.Read, func(ctx context.Context, r *Request, s *Stream) error {
		return s.Send(echo{Text: f.name})
	})
	m.Handle("GET "+PathMembers, auth.Read, func(ctx context.Context, r *Request) (any, error) {
		return nil, NotFound("no members at %s", f.name)
	})
	l, err := network.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = HostPort(l)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, m, nil, time.Second, nil) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return f
}

// queryName asks the collectors and returns the name of the one that
// answered.
func queryName(t *testing.T, cs *Collectors) (string, error) {
	t.Helper()
	var got string
	err := cs.Stream(context.Background(), "POST", PathQuery, Query{}, func(item json.RawMessage) error {
		var e echo
		if err := json.Unmarshal(item, &e); err != nil {
			return err
		}
		got = e.Text
		return nil
	})
	return got, err
}

// Updates go to every collector; queries to the first that answers
// (HTCondor manual, "Configuration for High Availability of the Central
// Manager": daemons update every collector of COLLECTOR_HOST, tools
// query them in turn).
func TestCollectorsUpdateEachQueryOne(t *testing.T) {
	network := NewMemNetwork()
	a, b := startCollector(t, network, "a"), startCollector(t, network, "b")
	const dead = "127.0.0.1:1" // nothing listens there
	conn := NewConnector(ConnectorOptions{Network: network, Token: StaticToken("daemon")})
	cs := conn.Collectors([]string{dead, a.addr, b.addr})
	var down []string
	cs.OnDown = func(addr string, err error) { down = append(down, addr) }

	var res UpdateAdsResult
	if err := cs.CallRaw(context.Background(), "POST", PathAds, []byte(`[]`), &res); err != nil {
		t.Fatalf("update with one collector down: %v", err)
	}
	if a.count() != 1 || b.count() != 1 || res.Stored != 1 {
		t.Errorf("updates reached a %d, b %d times (answer %+v); want each once", a.count(), b.count(), res)
	}
	if len(down) != 1 || down[0] != dead {
		t.Errorf("collectors reported down: %v; want [%s]", down, dead)
	}

	got, err := queryName(t, cs)
	if err != nil || got != "a" || cs.Addr() != a.addr {
		t.Errorf("query answered by %q (%s), err %v; want a, the first that answers", got, cs.Addr(), err)
	}
	// An error a collector sends is the same at the others: no failover.
	err = cs.Call(context.Background(), "GET", PathMembers, nil, nil)
	var we *Error
	if !errors.As(err, &we) || we.Code != CodeNotFound || !strings.Contains(we.Message, "at a") {
		t.Errorf("members: %v; want a's not-found answer", err)
	}
}

func TestCollectorsNoneAnswers(t *testing.T) {
	conn := NewConnector(ConnectorOptions{Network: NewMemNetwork(), Token: StaticToken("daemon")})
	cs := conn.Collectors([]string{"127.0.0.1:1", "127.0.0.1:2"})
	for name, err := range map[string]error{
		"update": cs.CallRaw(context.Background(), "POST", PathAds, []byte(`[]`), nil),
		"query":  cs.Call(context.Background(), "GET", PathMembers, nil, nil),
	} {
		if err == nil || !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "127.0.0.1:2") {
			t.Errorf("%s with every collector down: %v; want unreachable, naming them", name, err)
		}
	}
}
