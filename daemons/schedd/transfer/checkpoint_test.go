package transfer

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kite-sched/kite/daemons/schedd/queue"
)

// A checkpoint file is a name in the sandbox: nothing that leaves the
// job's checkpoint directory under the schedd's spool.
func TestCheckpointNames(t *testing.T) {
	for name, ok := range map[string]bool{
		"state.dat": true, "d/f": true, "": false, "/etc/passwd": false, "../x": false,
		"a/../../x": false, "a//b": false, "./a": false, "a\x00b": false,
	} {
		if got := CheckName(name) == nil; got != ok {
			t.Errorf("CheckName(%q) ok = %v, want %v", name, got, ok)
		}
	}
}

// Pruning keeps the committed checkpoint only, or removes the job's
// directory once the job has left.
func TestPruneCheckpoints(t *testing.T) {
	dir := t.TempDir()
	id := queue.JobID{Cluster: 4, Proc: 2}
	for _, n := range []string{"1", "2", "3"} {
		if err := os.MkdirAll(filepath.Join(CheckpointDir(dir, id), n), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := PruneCheckpoints(dir, id, 2); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(CheckpointDir(dir, id))
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if !slices.Equal(left, []string{"2"}) {
		t.Errorf("left %v, want [2]", left)
	}
	if err := PruneCheckpoints(dir, id, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(CheckpointDir(dir, id)); !os.IsNotExist(err) {
		t.Errorf("the job's checkpoint directory is still there: %v", err)
	}
	if err := PruneCheckpoints(dir, queue.JobID{Cluster: 9}, 1); err != nil {
		t.Errorf("a job without checkpoints: %v", err)
	}
}
