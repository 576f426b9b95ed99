package wire

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Connector makes clients for daemons at any address, sharing
// connections: one per process (or per daemon) is enough.
type Connector struct {
	hc     *http.Client
	scheme string
	token  func() (string, error)
}

// ConnectorOptions configure a Connector.
type ConnectorOptions struct {
	// Network is where to connect; nil means TCP.
	Network Network
	// TLS, when set, makes every connection TLS with this configuration.
	TLS *tls.Config
	// Token returns the bearer token to present (nil: none).
	Token func() (string, error)
}

// NewConnector returns a connector.
func NewConnector(o ConnectorOptions) *Connector {
	network := o.Network
	if network == nil {
		network = TCP
	}
	tr := &http.Transport{
		DialContext:         network.DialContext,
		TLSClientConfig:     o.TLS,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   false,
	}
	c := &Connector{hc: &http.Client{Transport: tr}, scheme: "http", token: o.Token}
	if o.TLS != nil {
		c.scheme = "https"
	}
	return c
}

// WithToken returns a connector that presents the tokens of token
// instead, sharing c's connections: a daemon calls the daemons of another
// pool with the tokens for that pool.
func (c *Connector) WithToken(token func() (string, error)) *Connector {
	w := *c
	w.token = token
	return &w
}

// StaticToken is a token source that always presents tok.
func StaticToken(tok string) func() (string, error) {
	return func() (string, error) { return tok, nil }
}

// Client calls one daemon.
type Client struct {
	c    *Connector
	base string
}

// Client returns a client for the daemon at addr (host:port).
func (c *Connector) Client(addr string) *Client {
	return &Client{c: c, base: c.scheme + "://" + addr}
}

// Addr returns the address the client calls.
func (cl *Client) Addr() string { return cl.base }

// Call sends in (nil: no body) as JSON and decodes the answer into out
// (nil: ignore it).
func (cl *Client) Call(ctx context.Context, method, path string, in, out any) error {
	body, err := encode(in)
	if err != nil {
		return err
	}
	return cl.CallRaw(ctx, method, path, body, out)
}

// encode marshals a request body; nil is no body.
func encode(in any) ([]byte, error) {
	if in == nil {
		return nil, nil
	}
	if err := checkText(in); err != nil {
		return nil, err
	}
	if a, ok := in.(requestAppender); ok {
		return a.appendRequest(nil)
	}
	return json.Marshal(in)
}

// requestAppender is a request body that writes itself as encoding/json
// would write it (JobUpdate: one at the end of every job).
type requestAppender interface {
	appendRequest(b []byte) ([]byte, error)
}

// CallRaw sends body, already encoded as JSON (nil: no body), and decodes
// the answer into out (nil: ignore it).
func (cl *Client) CallRaw(ctx context.Context, method, path string, body []byte, out any) error {
	resp, err := cl.do(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNoContent || out == nil {
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	if d, ok := out.(wholeDecoder); ok {
		if err := readWhole(resp.Body, d); err != nil {
			return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
		}
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return nil
}

// readWhole reads a whole answer into a kept buffer and decodes it: an
// UnmarshalJSON keeps nothing of the bytes it is given (a []byte's
// callee never does), so the buffer serves the next answer.
func readWhole(body io.Reader, d wholeDecoder) error {
	buf := bodyBufs.Get().(*bytes.Buffer)
	buf.Reset()
	_, err := buf.ReadFrom(body)
	if err == nil {
		err = d.UnmarshalJSON(buf.Bytes())
	}
	if buf.Cap() <= maxKeptAnswer {
		bodyBufs.Put(buf)
	}
	return err
}

var bodyBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Stream sends in and calls each for every item of the streamed answer,
// in order. It fails if the stream ends without its end marker.
func (cl *Client) Stream(ctx context.Context, method, path string, in any, each func(item json.RawMessage) error) error {
	body, err := encode(in)
	if err != nil {
		return err
	}
	resp, err := cl.do(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	for sc.Scan() {
		if item, ok := itemOf(sc.Bytes()); ok {
			if err := each(item); err != nil {
				return err
			}
			continue
		}
		var line struct {
			Item  json.RawMessage `json:"item"`
			End   bool            `json:"end"`
			Error *Error          `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return fmt.Errorf("%s %s: bad stream line: %w", method, path, err)
		}
		switch {
		case line.Error != nil:
			return line.Error
		case line.End:
			return nil
		}
		if err := each(line.Item); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return fmt.Errorf("%s %s: the answer was cut off", method, path)
}

// itemOf returns the item of a stream line as the server writes it,
// {"item":...}, without decoding it: the caller decodes the item anyway.
// Other lines (and items written differently) are left to json.Unmarshal.
func itemOf(line []byte) (json.RawMessage, bool) {
	const prefix = `{"item":`
	if !bytes.HasPrefix(line, []byte(prefix)) || len(line) < len(prefix)+2 || line[len(line)-1] != '}' {
		return nil, false
	}
	return bytes.Clone(line[len(prefix) : len(line)-1]), true
}

// do sends a request and returns a successful response; a failure status
// becomes the *Error the server sent.
func (cl *Client) do(ctx context.Context, method, path string, body []byte) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, cl.base+path, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return cl.send(req)
}

// send sends a request with the caller's token and returns a successful
// response; a failure status becomes the *Error the server sent.
func (cl *Client) send(req *http.Request) (*http.Response, error) {
	if cl.c.token != nil {
		tok, err := cl.c.token()
		if err != nil {
			return nil, err
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
	}
	resp, err := cl.c.hc.Do(req)
	if err != nil {
		return nil, unreachable(cl.base, err)
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, decodeError(resp)
	}
	return resp, nil
}

func decodeError(resp *http.Response) error {
	var eb errorBody
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if json.Unmarshal(data, &eb) == nil && eb.Error != nil {
		eb.Error.Status = resp.StatusCode
		return eb.Error
	}
	return &Error{Status: resp.StatusCode, Code: CodeInternal, Message: fmt.Sprintf("%s: %s", resp.Status, bytes.TrimSpace(data))}
}

// ErrUnreachable wraps failures to reach a daemon at all.
var ErrUnreachable = errors.New("daemon unreachable")

func unreachable(base string, err error) error {
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %s: %v", ErrUnreachable, base, err)
	}
	return err
}
