package wire

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// A connection a client opened and never used (net/http keeps such spare
// connections) does not hold a daemon's stop up for its whole grace.
func TestServeClosesSpareConnectionsOnStop(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &acceptWatch{Listener: tcp, took: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), nil, 5*time.Second, nil)
	}()
	spare, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer spare.Close()
	<-l.took // the server has accepted it
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("stopping took %v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
}

// acceptWatch is a listener that says when its server has taken the first
// connection in: the server asks for the next one only after that.
type acceptWatch struct {
	net.Listener
	calls atomic.Int32
	took  chan struct{}
}

func (l *acceptWatch) Accept() (net.Conn, error) {
	if l.calls.Add(1) == 2 {
		close(l.took)
	}
	return l.Listener.Accept()
}
