package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/auth"
)

// tokens is a Verifier over a fixed table of tokens.
type tokens map[string]auth.Identity

func (t tokens) Verify(tok string) (auth.Identity, error) {
	if tok == "" {
		return auth.Identity{}, auth.ErrNoToken
	}
	id, ok := t[tok]
	if !ok {
		return auth.Identity{}, fmt.Errorf("%w: unknown", auth.ErrBadToken)
	}
	return id, nil
}

var ids = tokens{
	"reader": {Name: "rita", Levels: auth.Read},
	"writer": {Name: "walt", Levels: auth.Write},
	"daemon": {Name: "kite", Levels: auth.Daemon},
}

type echo struct {
	Text string `json:"text"`
	N    int    `json:"n"`
}

// start serves a test mux on an in-memory network and returns a client
// factory for tokens.
func start(t *testing.T, network Network) func(token string) *Client {
	t.Helper()
	m := NewMux(ids, nil)
	m.SetMaxBody(1024)
	m.Handle("POST /v1/echo", auth.Write, func(ctx context.Context, r *Request) (any, error) {
		var in echo
		if err := r.Decode(&in); err != nil {
			return nil, err
		}
		in.Text = r.Caller.Name + ": " + in.Text
		return in, nil
	})
	m.Handle("GET /v1/items/{id}", auth.Read, func(ctx context.Context, r *Request) (any, error) {
		if r.PathValue("id") != "1" {
			return nil, NotFound("no item %s", r.PathValue("id"))
		}
		return echo{Text: "one"}, nil
	})
	m.HandleStream("GET /v1/count/{n}", auth.Read, func(ctx context.Context, r *Request, s *Stream) error {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		for i := range n {
			if err := s.Send(echo{N: i}); err != nil {
				return err
			}
		}
		if n == 13 {
			return Conflict("unlucky")
		}
		return nil
	})
	m.Handle("GET /v1/health", Public, func(context.Context, *Request) (any, error) { return nil, nil })
	return serveMux(t, network, m)
}

// serveMux serves m on network until the test ends and returns a client
// factory for tokens.
func serveMux(t *testing.T, network Network, m *Mux) func(token string) *Client {
	t.Helper()
	l, err := network.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, m, nil, time.Second, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return func(token string) *Client {
		return NewConnector(ConnectorOptions{Network: network, Token: StaticToken(token)}).Client(HostPort(l))
	}
}

func TestCallsOverBothNetworks(t *testing.T) {
	for name, network := range map[string]Network{"mem": NewMemNetwork(), "tcp": TCP} {
		t.Run(name, func(t *testing.T) {
			client := start(t, network)
			ctx := context.Background()
			var out echo
			if err := client("writer").Call(ctx, "POST", "/v1/echo", echo{Text: "hi", N: 2}, &out); err != nil {
				t.Fatal(err)
			}
			if out.Text != "walt: hi" || out.N != 2 {
				t.Errorf("got %+v", out)
			}
			var n int
			err := client("reader").Stream(ctx, "GET", "/v1/count/1000", nil, func(item json.RawMessage) error {
				var e echo
				if err := json.Unmarshal(item, &e); err != nil || e.N != n {
					return fmt.Errorf("item %d: %s", n, item)
				}
				n++
				return nil
			})
			if err != nil || n != 1000 {
				t.Errorf("stream: %d items, %v", n, err)
			}
		})
	}
}

// Requests that must be refused are, with a clear message and status.
func TestRefusals(t *testing.T) {
	client := start(t, NewMemNetwork())
	ctx := context.Background()
	tests := []struct {
		name, token, method, path string
		body                      any
		status                    int
		msg                       string
	}{
		{"no token", "", "POST", "/v1/echo", echo{}, http.StatusUnauthorized, "no token"},
		{"bad token", "forged", "POST", "/v1/echo", echo{}, http.StatusUnauthorized, "invalid token"},
		{"too low", "reader", "POST", "/v1/echo", echo{}, http.StatusForbidden, "rita holds READ; POST /v1/echo needs WRITE"},
		{"unknown field", "writer", "POST", "/v1/echo", map[string]any{"text": "x", "extra": 1}, http.StatusBadRequest, `unknown field "extra"`},
		{"not json", "writer", "POST", "/v1/echo", "just a string", http.StatusBadRequest, "request body"},
		{"too large", "writer", "POST", "/v1/echo", echo{Text: strings.Repeat("x", 2000)}, http.StatusRequestEntityTooLarge, "larger than 1024 bytes"},
		{"not found", "reader", "GET", "/v1/items/7", nil, http.StatusNotFound, "no item 7"},
		{"implied level", "daemon", "GET", "/v1/items/7", nil, http.StatusNotFound, "no item 7"},
	}
	for _, tt := range tests {
		err := client(tt.token).Call(ctx, tt.method, tt.path, tt.body, nil)
		var we *Error
		if !errors.As(err, &we) || we.Status != tt.status || !strings.Contains(we.Message, tt.msg) {
			t.Errorf("%s: got %v (%+v), want %d %q", tt.name, err, we, tt.status, tt.msg)
		}
	}
	if err := client("").Call(ctx, "GET", "/v1/health", nil, nil); err != nil {
		t.Errorf("public endpoint: %v", err)
	}
}

func TestStreamErrors(t *testing.T) {
	client := start(t, NewMemNetwork())
	n := 0
	err := client("reader").Stream(context.Background(), "GET", "/v1/count/13", nil, func(json.RawMessage) error { n++; return nil })
	if !IsCode(err, CodeConflict) || n != 13 {
		t.Errorf("error after items: %v after %d items", err, n)
	}
	err = client("").Stream(context.Background(), "GET", "/v1/count/3", nil, func(json.RawMessage) error { return nil })
	if !IsCode(err, CodeUnauthenticated) {
		t.Errorf("refused stream: %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	c := NewConnector(ConnectorOptions{Network: NewMemNetwork()}).Client("127.0.0.1:1")
	if err := c.Call(context.Background(), "GET", "/v1/health", nil, nil); !errors.Is(err, ErrUnreachable) {
		t.Errorf("got %v", err)
	}
}

// A tool refuses to send text that is not UTF-8 instead of letting
// encoding/json turn it into U+FFFD (issue 14 item 8); a daemon refuses
// such a body with the offset of the bad byte.
func TestInvalidUTF8Requests(t *testing.T) {
	type edit struct {
		IDs   []string
		Attrs map[string]string
		Raw   []byte
		Next  *edit
	}
	tests := []struct {
		in   any
		want string // "" sent
	}{
		{edit{IDs: []string{"1.0"}, Attrs: map[string]string{"Note": `"café"`}, Raw: []byte{0xff}}, ""},
		{edit{Attrs: map[string]string{"Note": "\"a\xffb\""}}, "request.Attrs[Note]: byte 0xff at offset 2 is not valid UTF-8"},
		{edit{Attrs: map[string]string{"N\xc3": "1"}}, "request.Attrs key: byte 0xc3 at offset 1"},
		{edit{IDs: []string{"1", "\xfe"}}, "request.IDs[1]: byte 0xfe at offset 0"},
		{&edit{Next: &edit{IDs: []string{"\x80"}}}, "request.Next.IDs[0]: byte 0x80"},
	}
	for _, tt := range tests {
		_, err := encode(tt.in)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: %v", tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: %v, want %q", tt.in, err, tt.want)
		}
	}
	for _, tt := range []struct{ body, want string }{
		{"{\"name\":\"a\xffb\"}", "request body: offset 10: byte 0xff is not valid UTF-8"},
		{`{"name":"ok"}`, ""},
	} {
		hr := httptest.NewRequest("POST", "/", strings.NewReader(tt.body))
		var v struct{ Name string }
		err := (&Request{HTTP: hr}).Decode(&v)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v", tt.body, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !IsCode(err, CodeBadRequest)):
			t.Errorf("%q: %v, want %q", tt.body, err, tt.want)
		}
	}
}
