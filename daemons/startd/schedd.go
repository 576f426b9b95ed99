package startd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/wire"
)

// scheddClient is a running job's line to its schedd: job events and
// file transfer (starter.Transfer), proving the claim with its id.
type scheddClient struct {
	s     *Server
	addr  string
	pool  string // the schedd's pool when another pool's: its flock token is presented
	claim string
	job   string // "cluster.proc"
	hc    *http.Client
}

// schedd returns the client for a claim's current job.
func (s *Server) schedd(c *claim) *scheddClient {
	return &scheddClient{s: s, addr: c.schedd, pool: c.pool, claim: c.id, job: c.jobID, hc: s.files}
}

// newFileClient is an HTTP client on the daemon's network for file
// bodies, which the JSON client does not carry.
func newFileClient(env *daemon.Env) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: env.Network.DialContext, TLSClientConfig: env.ClientTLS,
		MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second,
	}}
}

// fileURL is the URL of a transfer endpoint for one file of the job
// (of its checkpoint ckpt when > 0).
func (c *scheddClient) fileURL(path, name string, ckpt int) string {
	scheme := "http"
	if c.s.env.ClientTLS != nil {
		scheme = "https"
	}
	q := url.Values{"job": {c.job}, "file": {name}}
	if ckpt > 0 {
		q.Set("checkpoint", strconv.Itoa(ckpt))
	}
	return scheme + "://" + c.addr + path + "?" + q.Encode()
}

// do sends a request for a file (of checkpoint ckpt when > 0) with the
// daemon's token (the flock token for the schedd's pool when another
// pool's) and the claim id.
func (c *scheddClient) do(ctx context.Context, method, path, name string, ckpt int, body io.Reader, size int64, sum string) (*http.Response, error) {
	if c.s.crashed.Load() {
		return nil, errKilled
	}
	req, err := http.NewRequestWithContext(ctx, method, c.fileURL(path, name, ckpt), body)
	if err != nil {
		return nil, err
	}
	tok, err := c.s.env.TokenFor(c.pool)()
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set(wire.HeaderClaim, c.claim)
	if sum != "" {
		req.Header.Set(wire.HeaderSHA256, sum)
		req.Header.Set("Content-Type", "application/octet-stream")
		req.ContentLength = size
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", wire.ErrUnreachable, c.addr, err)
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, answerError(resp)
	}
	return resp, nil
}

// answerError reads the schedd's error answer.
func answerError(resp *http.Response) error {
	var body struct {
		Error *wire.Error `json:"error"`
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(data, &body) == nil && body.Error != nil {
		body.Error.Status = resp.StatusCode
		return body.Error
	}
	return fmt.Errorf("the schedd answered %s", resp.Status)
}

// Fetch gets an input file.
func (c *scheddClient) Fetch(ctx context.Context, name string, w io.Writer) (string, error) {
	return c.fetch(ctx, wire.PathJobInput, name, 0, w)
}

// FetchCheckpoint gets a file of the job's committed checkpoint n.
func (c *scheddClient) FetchCheckpoint(ctx context.Context, n int, name string, w io.Writer) (string, error) {
	return c.fetch(ctx, wire.PathJobCheckpoint, name, n, w)
}

// fetch gets a file from a transfer endpoint.
func (c *scheddClient) fetch(ctx context.Context, path, name string, ckpt int, w io.Writer) (string, error) {
	resp, err := c.do(ctx, http.MethodGet, path, name, ckpt, nil, 0, "")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return "", err
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return "", fmt.Errorf("got %d of %d bytes", n, resp.ContentLength)
	}
	return resp.Header.Get(wire.HeaderSHA256), nil
}

// Send sends an output file.
func (c *scheddClient) Send(ctx context.Context, name string, r io.Reader, size int64, sum string) error {
	return c.send(ctx, wire.PathJobOutput, name, 0, r, size, sum)
}

// SendCheckpoint sends a file of the job's checkpoint n.
func (c *scheddClient) SendCheckpoint(ctx context.Context, n int, name string, r io.Reader, size int64, sum string) error {
	return c.send(ctx, wire.PathJobCheckpoint, name, n, r, size, sum)
}

// send puts a file to a transfer endpoint.
func (c *scheddClient) send(ctx context.Context, path, name string, ckpt int, r io.Reader, size int64, sum string) error {
	resp, err := c.do(ctx, http.MethodPut, path, name, ckpt, r, size, sum)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// A job event is pushed to a schedd that does not answer for
// reportPatience, the waits between tries growing from reportBackoff to
// reportBackoffMax: long enough for a schedd its master restarts to come
// back, reconnect to the job and take its end.
const (
	reportPatience   = 2 * time.Minute
	reportBackoff    = 250 * time.Millisecond
	reportBackoffMax = 5 * time.Second
	// reportTry bounds one try.
	reportTry = 30 * time.Second
)

// report sends a job event, retrying while the schedd cannot be reached;
// a schedd that refuses it (it no longer knows the claim) is not asked
// again. The answer goes to res unless it is nil.
func (c *scheddClient) report(ctx context.Context, u wire.JobUpdate, res *wire.JobUpdateResult) error {
	var out any
	if res != nil {
		out = res
	}
	if c.s.crashed.Load() {
		return errKilled
	}
	wait := reportBackoff
	var err error
	tries := 0
	for start := time.Now(); time.Since(start) < reportPatience; tries++ {
		if c.s.crashed.Load() {
			return errKilled // nothing leaves a dead machine
		}
		err = c.try(ctx, wire.PathJobUpdate, u, out)
		if err == nil || final(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, reportBackoffMax)
	}
	return fmt.Errorf("job %s, event %s: %w (after %d attempts)", u.Job, u.Event, err, tries)
}

// try sends a request to the schedd once, for at most reportTry.
func (c *scheddClient) try(ctx context.Context, path string, in, out any) error {
	rctx, cancel := context.WithTimeout(ctx, reportTry)
	defer cancel()
	return c.s.env.ConnectorFor(c.pool).Client(c.addr).Call(rctx, "POST", path, in, out)
}
