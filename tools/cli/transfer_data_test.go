package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// spoolPool runs a whole pool in memory (collector, negotiator, schedd,
// one startd) and returns clients of its schedd for alice and bob.
func spoolPool(t *testing.T) (alice, bob *wire.Client) {
	t.Helper()
	p := pooltest.New(t)
	p.Config.Startd.Slots, p.Config.Startd.Cpus, p.Config.Startd.Partitionable = 1, 1, false
	p.Config.Startd.Memory = 512
	start.Collector(t, p)
	start.Negotiator(t, p, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator:1", 5*time.Millisecond, 200*time.Millisecond
	})
	start.Schedd(t, p, "schedd:1", nil)
	start.Startd(t, p, "startd-0:1", "a", nil)
	return p.Client("schedd:1", "alice", auth.Read|auth.Write), p.Client("schedd:1", "bob", auth.Read|auth.Write)
}

// queuedJob returns a job's ad in the queue (nil once it left).
func queuedJob(t *testing.T, c *wire.Client, id string) *row {
	t.Helper()
	var found *row
	q := wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{id}}}
	if err := streamRows(context.Background(), c, wire.PathQueue, q, func(r *row) error { found = r; return nil }); err != nil {
		t.Fatal(err)
	}
	return found
}

// condor_submit -spool and condor_transfer_data (their manual pages;
// HTCondor's manual, "Submitting Jobs Without a Shared File System"):
// the job is held spooling its input until the tool has sent it; it runs
// from the spooled copy, so changing the submit directory afterwards
// changes nothing; once completed it stays in the queue (state C) with
// its output kept at the schedd, not yet in the submit directory; only
// its owner may fetch the output, which transfer_data brings back where
// the job named it, and then the job leaves the queue.
func TestSpoolAndTransferData(t *testing.T) {
	alice, bob := spoolPool(t)
	ctx := context.Background()
	dir, logs := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(dir, "job.sh"), "#!/bin/sh\ncat in.txt > result.txt\necho ran\necho oops >&2\n", 0o755)
	mustWrite(t, filepath.Join(dir, "in.txt"), "spooled\n", 0o644)
	if err := os.Mkdir(filepath.Join(dir, "res"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "executable = job.sh\ntransfer_input_files = in.txt\nshould_transfer_files = YES\n" +
		"output = res/out.txt\nerror = " + filepath.Join(logs, "err.txt") + "\nlog = " + filepath.Join(logs, "job.log") + "\nqueue\n"
	d, _, err := submit.Parse(filepath.Join(dir, "job.sub"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	_, c, err := sendCluster(ctx, alice, d, submit.LocalEnv(dir), io.Discard, prepareSpool)
	if err != nil {
		t.Fatal(err)
	}
	id := jobIDOf(c.Job(0))
	if r := queuedJob(t, alice, id); r.int(attr.JobStatus) != attr.Held || r.int(attr.HoldReasonCode) != attr.HoldSpoolingInput ||
		r.str(attr.HoldReason) != "Spooling input data files" {
		t.Fatalf("job %s before its input is spooled: status %d, hold %d %q", id, r.int(attr.JobStatus), r.int(attr.HoldReasonCode), r.str(attr.HoldReason))
	}
	if err := sendInputs(ctx, alice, c); err != nil {
		t.Fatal(err)
	}
	// The submit directory changes: the job runs from the spool.
	if err := os.Remove(filepath.Join(dir, "job.sh")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "in.txt"), "changed\n", 0o644)

	w := &waitOptions{poll: 20 * time.Millisecond, wait: 60}
	if err := w.run(ctx, io.Discard, filepath.Join(logs, "job.log"), id); err != nil {
		t.Fatal(err)
	}
	r := queuedJob(t, alice, id)
	if r == nil || r.int(attr.JobStatus) != attr.Completed {
		t.Fatalf("the completed spooled job should stay in the queue in state C: %v", r)
	}
	if r.str(attr.SubmitIwd) != dir || r.str(attr.Iwd) == dir {
		t.Errorf("Iwd %q, SUBMIT_Iwd %q: the job should run from its spool directory", r.str(attr.Iwd), r.str(attr.SubmitIwd))
	}
	for _, f := range []string{filepath.Join(dir, "result.txt"), filepath.Join(dir, "res", "out.txt"), filepath.Join(logs, "err.txt")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s is on the submit side before transfer_data", f)
		}
	}

	// Bob may not fetch alice's output; the job stays.
	var out, errs bytes.Buffer
	err = (&transferDataOptions{}).fetch(ctx, bob, &out, &errs, []string{id})
	if err == nil || !strings.Contains(errs.String(), "only its owner or an administrator") {
		t.Fatalf("bob's transfer_data: %v, stderr %q", err, errs.String())
	}
	if queuedJob(t, alice, id) == nil {
		t.Fatal("the job left the queue after bob's refused transfer_data")
	}

	out.Reset()
	if err := (&transferDataOptions{}).fetch(ctx, alice, &out, &errs, []string{id}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "Fetching data files...\n" {
		t.Errorf("transfer_data printed %q", out.String())
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "result.txt"):     "spooled\n", // the spooled input, not the changed one
		filepath.Join(dir, "res", "out.txt"): "ran\n",     // in a directory of the submit side, as named
		filepath.Join(logs, "err.txt"):       "oops\n",    // an absolute path, as named
	} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s: %q (%v), want %q", path, got, err, want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "in.txt")); string(got) != "changed\n" {
		t.Errorf("in.txt = %q: transfer_data brings back outputs only", got)
	}
	if r := queuedJob(t, alice, id); r != nil {
		t.Errorf("job %s is still in the queue after transfer_data (status %d)", id, r.int(attr.JobStatus))
	}
}

// A file without a spooled job, and a factory, are refused with a clear
// error; hold = true cannot be spooled (condor_submit refuses it too).
func TestSpoolRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"executable = /bin/true\nhold = true\nqueue\n", "hold = true cannot be used with --spool"},
		{"executable = /bin/true\nshould_transfer_files = NO\nqueue\n", "should_transfer_files = NO"},
		{"executable = /bin/true\ntransfer_input_files = missing.txt\nqueue\n", "input file missing.txt"},
		{"executable = /bin/true\ntransfer_input_files = a/x, b/x\nqueue\n", `share the base name "x"`},
	} {
		d, _, err := submit.Parse(filepath.Join(dir, "job.sub"), []byte(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		env := submit.LocalEnv(dir)
		env.Cluster, env.Owner = 1, "alice"
		c, _, err := d.Expand(env)
		if err != nil {
			t.Fatal(err)
		}
		if err := prepareSpool(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error with %q", tc.text, err, tc.want)
		}
	}
}

func mustWrite(t *testing.T, path, text string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
}
