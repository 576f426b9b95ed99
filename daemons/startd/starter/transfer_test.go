package starter

import (
	"testing"

	"github.com/kite-sched/kite/daemons/startd/sandbox"
)

// A job without TransferOutput sends back its new files; a sandbox that
// cannot be listed must fail the transfer (the job is held for its
// output), not pass for one with no new files (the job completed with no
// outputs and no word of why).
func TestUnlistableSandboxIsAnError(t *testing.T) {
	box, err := sandbox.Create(t.TempDir(), "slot1_7.0", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := box.Remove(); err != nil { // closed and gone: listing it fails
		t.Fatal(err)
	}
	s := &Starter{box: box}
	files, err := s.outputsOf(&plan{}, nil)
	if err == nil {
		t.Fatalf("outputs of an unlistable sandbox: %v, and no error", files)
	}
}
