package replicated

import (
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/kite-sched/kite/internal/pooltest/testcert"
)

// With [tls] set, Raft's connections are TLS: a member's dial reaches the
// other with its token inside TLS, and a dialer without TLS is refused.
func TestTransportTLS(t *testing.T) {
	server, client := testcert.New(t).Configs()
	daemonToken := func() (string, error) { return "daemon", nil }
	l, accepted := listenAccepting(t, daemonToken, server, client)

	c, err := l.Dial(raft.ServerAddress(l.Addr().String()), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(*tls.Conn); !ok {
		t.Errorf("the dialed connection is a %T, not TLS", c)
	}
	c.Write([]byte("payload"))
	select {
	case sc := <-accepted:
		buf := make([]byte, 7)
		if _, err := io.ReadFull(sc, buf); err != nil || string(buf) != "payload" {
			t.Errorf("read %q, %v", buf, err)
		}
		sc.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("the TLS connection was not accepted")
	}

	plain, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	plain.Write([]byte(greeting + "daemon\n"))
	plain.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(plain); err != nil && !isReset(err) {
		t.Errorf("a connection without TLS: %v; want it closed", err)
	}
	select {
	case <-accepted:
		t.Error("a connection without TLS was handed to Raft")
	default:
	}
}
