// Package loopback finds loopback addresses for tests that need real TCP
// listeners a component opens itself (a Raft group's members, say), where
// a test cannot hand it a listener. It imports nothing of Kite, so any
// package's tests can use it.
package loopback

import (
	"net"
	"testing"
)

// Addrs returns n distinct 127.0.0.1 addresses whose ports were free a
// moment ago, failing t if it cannot listen.
func Addrs(t testing.TB, n int) []string {
	t.Helper()
	var out []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, l.Addr().String())
		l.Close()
	}
	return out
}
