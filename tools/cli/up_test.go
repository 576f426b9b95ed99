package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kite-sched/kite/internal/config"
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

// kite init puts a pool's collector where kite up would for the same
// directory: a second pool on the machine (examples/sita's, beside the
// personal pool on 9618) does not take the first one's port.
func TestInitCollectorPortLikeUp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pool")
	want := personalPorts(dir, 1)[0]
	if free, err := pickPorts([]int{want}); err != nil || free[0] != want {
		t.Skipf("port %d is busy: %v", want, err)
	}
	root := New()
	root.SetArgs([]string{"init", "--dir", dir, "--name", "sita"})
	root.SetOut(io.Discard)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(filepath.Join(dir, "kite.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Pool.Collector; got != fmt.Sprintf("127.0.0.1:%d", want) {
		t.Errorf("kite init's collector %s, want 127.0.0.1:%d as kite up chooses", got, want)
	}
}
