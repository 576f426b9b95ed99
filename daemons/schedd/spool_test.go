package schedd

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// tarOf is a tar archive of the named files.
func tarOf(t *testing.T, files ...[2]string) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, f[1])
	}
	tw.Close()
	return b.Bytes()
}

// A spooled job's input (condor_submit -spool) is taken only from its
// owner, only while the job waits for it, only for files the job names,
// and only whole; then the job runs from its spool directory. Its output
// is served only once it completed.
func TestSpoolInputRefusals(t *testing.T) {
	h := startSchedd(t, pooltest.New(t), testConfig(t))
	dir := t.TempDir()
	c := h.mustSubmit("alice", dir, "executable = job.sh\ntransfer_input_files = data/in.txt, https://x.org/big\n"+
		"should_transfer_files = YES\noutput = logs/out.txt\nhold = true\n+HoldReasonCode = 16\nqueue\n")
	id := jobID(c, 0)
	alice, bob := h.client("alice", auth.Write), h.client("bob", auth.Write)
	put := func(cl *wire.Client, body []byte) error {
		r, err := cl.SendStream(context.Background(), "PUT", wire.PathSpoolInput+"?job="+id, bytes.NewReader(body), wire.ContentTypeTar)
		if err == nil {
			r.Close()
		}
		return err
	}
	exe := filepath.Join(dir, "job.sh") // Cmd, as kite submit makes it absolute
	good := tarOf(t, [2]string{exe, "#!/bin/sh\n"}, [2]string{"data/in.txt", "in\n"})
	for _, tc := range []struct {
		who    *wire.Client
		body   []byte
		status int
		want   string
	}{
		{bob, good, http.StatusForbidden, "only its owner or an administrator"},
		{alice, tarOf(t, [2]string{exe, "x"}, [2]string{"/etc/passwd", "x"}), http.StatusForbidden, `does not name "/etc/passwd"`},
		{alice, tarOf(t, [2]string{exe, "x"}), http.StatusBadRequest, `lacks its input "data/in.txt"`},
		{alice, tarOf(t, [2]string{exe, "x"}, [2]string{exe, "y"}), http.StatusBadRequest, "in the archive twice"},
		{alice, []byte("not a tar archive at all, but long enough to be read as a header block"), http.StatusBadRequest, "the archive"},
	} {
		err := put(tc.who, tc.body)
		var we *wire.Error
		if !errors.As(err, &we) || we.Status != tc.status || !strings.Contains(we.Message, tc.want) {
			t.Errorf("PUT: %v, want %d with %q", err, tc.status, tc.want)
		}
	}
	if ads := h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{id}}}); ads[0].String() == "" || !strings.Contains(ads[0].String(), "JobStatus = 5;") {
		t.Fatalf("a refused input released the job: %v", ads[0])
	}
	// A release before the input is in leaves the job held: it would
	// run without its spooled input (condor_submit -spool's jobs are
	// released by the schedd once the files arrive).
	if res := h.act(wire.ActRelease, id); res.Changed != 0 {
		t.Fatalf("release of a job waiting for its spooled input: %+v, want no change", res)
	}
	if err := put(alice, good); err != nil {
		t.Fatal(err)
	}
	ad := h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{id}}})[0]
	spool := filepath.Join(h.s.spoolRoot(), "1", "0")
	for name, want := range map[string]string{
		attr.Iwd: spool, attr.SubmitIwd: dir, attr.Cmd: "job.sh",
		attr.TransferInput: "in.txt,https://x.org/big", attr.Out: "out.txt", attr.SubmitOut: "logs/out.txt",
	} {
		if got := str(ad, name); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	if !strings.Contains(ad.String(), "JobStatus = 1;") {
		t.Errorf("the job is not idle once its input is in: %v", ad)
	}
	if err := put(alice, good); err == nil || !strings.Contains(err.Error(), "not held waiting for its input") {
		t.Errorf("a second input: %v", err)
	}
	_, err := alice.SendStream(context.Background(), "GET", wire.PathSpoolOutput+"?job="+id, nil, "")
	if err == nil || !strings.Contains(err.Error(), "has not completed") {
		t.Errorf("the output of an idle job: %v", err)
	}
	var res wire.ActResult
	if err := alice.Call(context.Background(), "POST", wire.PathSpoolDone, wire.SpoolDone{IDs: []string{id}}, &res); err != nil || res.Changed != 0 {
		t.Errorf("done with an idle job: %+v %v", res, err)
	}
}

// jobID is cluster.proc.
func jobID(cluster, proc int64) string {
	return strconv.FormatInt(cluster, 10) + "." + strconv.FormatInt(proc, 10)
}
