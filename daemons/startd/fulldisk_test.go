package startd

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A startd whose node record cannot be written (a full disk, a state
// directory gone) keeps the change in memory and goes on; its slot ads show
// the change once a later write succeeds (issue 15, finding 3: the startd
// never stopped on it, this holds it so).
func TestMonitorWriteFailure(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	m, err := openMonitor(state, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	m.done(10 * time.Second)
	if err := m.flush(now); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(state)
	if err := os.WriteFile(state, []byte("not a directory"), 0o644); err != nil { // writes now fail
		t.Fatal(err)
	}
	m.abort(5 * time.Second)
	err = m.flush(now.Add(time.Second))
	if err == nil || !strings.Contains(err.Error(), m.path) {
		t.Fatalf("write into a missing directory: %v, want an error naming %s", err, m.path)
	}
	if n := m.node(); len(n.Failed) != 0 || len(n.Succeeded) != 1 {
		t.Errorf("the slot ads show a record that was not written: failed %v", n.Failed)
	}
	os.Remove(state)
	if err := m.flush(now.Add(2 * time.Second)); err != nil {
		t.Fatalf("once writes work again: %v", err)
	}
	if n := m.node(); len(n.Failed) != 1 {
		t.Errorf("the change kept in memory was lost: failed %v", n.Failed)
	}
	back, err := openMonitor(state, slog.New(slog.DiscardHandler))
	if err != nil || len(back.node().Failed) != 1 {
		t.Errorf("record read back: %v %v", back, err)
	}
}
