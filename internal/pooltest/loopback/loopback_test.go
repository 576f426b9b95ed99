package loopback

import (
	"net"
	"testing"
)

// Each address is distinct and can be listened on.
func TestAddrs(t *testing.T) {
	addrs := Addrs(t, 3)
	if len(addrs) != 3 {
		t.Fatalf("Addrs(3) = %q", addrs)
	}
	seen := map[string]bool{}
	for _, a := range addrs {
		if seen[a] {
			t.Errorf("%s twice in %q", a, addrs)
		}
		seen[a] = true
		l, err := net.Listen("tcp", a)
		if err != nil {
			t.Errorf("listening on %s: %v", a, err)
			continue
		}
		l.Close()
	}
}
