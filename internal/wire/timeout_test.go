package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/auth"
)

// serveStalls serves a mux whose streams may stall stall, with two
// streams: /v1/flood sends until a write fails and reports the failure
// on failed; /v1/slow sends n items stall/2 apart (a healthy stream that
// lasts longer than stall).
func serveStalls(t *testing.T, stall time.Duration, failed chan<- error) string {
	t.Helper()
	m := NewMux(ids, nil)
	m.SetWriteTimeouts(time.Second, stall)
	chunk := strings.Repeat("x", 64<<10)
	m.HandleStream("GET /v1/flood", auth.Read, func(ctx context.Context, r *Request, s *Stream) error {
		for range 1 << 14 { // 1 GiB: more than any socket buffers
			if err := s.Send(chunk); err != nil {
				failed <- err
				return err
			}
		}
		failed <- nil
		return nil
	})
	m.HandleStream("GET /v1/slow/{n}", auth.Read, func(ctx context.Context, r *Request, s *Stream) error {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		for i := range n {
			if err := s.Send(echo{N: i}); err != nil {
				return err
			}
			if err := s.Flush(); err != nil {
				return err
			}
			time.Sleep(stall / 2)
		}
		return nil
	})
	l, err := TCP.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, m, nil, time.Second, nil) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return HostPort(l)
}

// A client that stops reading a streamed answer is cut off once a write
// has stalled for the stall timeout: the handler's send fails, and it
// lets go of what it holds (a store transaction, buffers). A stream that
// lasts longer than the timeout but keeps being read is not cut.
func TestStalledReaderIsCutOff(t *testing.T) {
	const stall = 100 * time.Millisecond
	failed := make(chan error, 1)
	addr := serveStalls(t, stall, failed)

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /v1/flood HTTP/1.1\r\nHost: kite\r\nAuthorization: Bearer reader\r\n\r\n")
	// The client reads nothing from now on.
	select {
	case err := <-failed:
		if err == nil {
			t.Fatal("the server wrote 1 GiB to a client that reads nothing")
		}
	case <-time.After(100 * stall): // well below the server's 30 s backstop
		t.Fatalf("the server still writes to a client stalled for %v", 100*stall)
	}

	client := NewConnector(ConnectorOptions{Network: TCP, Token: StaticToken("reader")}).Client(addr)
	n := 0
	err = client.Stream(context.Background(), "GET", "/v1/slow/6", nil, func(item json.RawMessage) error {
		n++
		return nil
	})
	if err != nil || n != 6 {
		t.Errorf("a healthy stream of 3 stall timeouts: %d items of 6, %v", n, err)
	}
}
