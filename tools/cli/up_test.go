package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// A personal pool's ports: 9618 for the collector of the pool in ~/.kite,
// a block chosen by the directory below the ephemeral range otherwise, the
// same each time, different for different directories.
func TestPersonalPorts(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	if got := personalPorts(filepath.Join(home, ".kite"), 5); got[0] != 9618 {
		t.Errorf("the home pool's collector port %d, want 9618", got[0])
	}
	a, b := personalPorts("/tmp/pool-a", 5), personalPorts("/tmp/pool-b", 5)
	if a[0] == b[0] {
		t.Errorf("two pools share ports %v", a)
	}
	for _, p := range append(a, b...) {
		if p < 10000 || p >= 32768 {
			t.Errorf("port %d outside 10000..32767", p)
		}
	}
	if again := personalPorts("/tmp/pool-a/", 5); again[0] != a[0] || again[4] != a[0]+4 {
		t.Errorf("ports %v then %v for one directory", a, again)
	}
	ports, err := pickPorts(a)
	if err != nil || len(ports) != 5 {
		t.Fatalf("picked %v, %v", ports, err)
	}
}
