package transfer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/runas"
	"github.com/kite-sched/kite/internal/wire"
)

func viewOf(t *testing.T, src string) queue.View {
	t.Helper()
	ad, err := classad.ParseNew(src)
	if err != nil {
		t.Fatal(err)
	}
	return queue.View{Cluster: ad, Own: classad.NewAd()}
}

// outputPath decides where outputs may go: names the job gave where it
// gave them (absolute ones on the submit side, as HTCondor's shadow
// writes output = /abs/path), transfer_output_files entries by their base
// name, directories whole or by their contents (a trailing slash),
// remapped files where transfer_output_remaps sends them (HTCondor's
// manual, condor_submit, "transfer_output_files" and
// "transfer_output_remaps"), other plain names into Iwd, nothing else.
func TestOutputNames(t *testing.T) {
	v := viewOf(t, `[ Iwd = "/home/a"; Out = "out.txt"; Err = "/tmp/err.txt";
		TransferOutputRemaps = "res.dat = results/res.dat; big.dat = /scratch/a/big.dat; sub/x = y; c1 = c2; c2 = /abs/c3" ]`)
	tests := []struct {
		file, path string
		mkdir      bool
		err        string
	}{
		{"out.txt", "/home/a/out.txt", false, ""},
		{"/tmp/err.txt", "/tmp/err.txt", false, ""},
		{"new.dat", "/home/a/new.dat", false, ""},
		{"res.dat", "/home/a/results/res.dat", true, ""},
		{"big.dat", "/scratch/a/big.dat", true, ""},
		{"sub/x", "/home/a/y", true, ""},
		{"c1", "/abs/c3", true, ""},
		{"../x", "", false, "would leave"},
		{"sub/y", "", false, "would leave"},
		{"..", "", false, "would leave"},
		{"...", "", false, "would leave"},
		{"/etc/passwd", "", false, "would leave"},
		{"/scratch/a/big.dat", "", false, "would leave"},
	}
	for _, tt := range tests {
		got, err := outputPath(&v, tt.file)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %+v %v", tt.file, got, err)
			}
			continue
		}
		if err != nil || got.path != filepath.FromSlash(tt.path) || got.mkdir != tt.mkdir {
			t.Errorf("%s: %+v %v; want %s (mkdir %v)", tt.file, got, err, tt.path, tt.mkdir)
		}
	}
	listed := viewOf(t, `[ Iwd = "/home/a"; Out = "logs/out"; TransferOutput = "d1/o3, results, ./flat/, deep/f.dat, g.dat";
		TransferOutputRemaps = "f.dat = /abs/f.dat; flat/x = y" ]`)
	for _, tt := range []struct {
		file, path string
		mkdir      bool
		err        string
	}{
		{"logs/out", "/home/a/logs/out", false, ""},
		{"d1/o3", "/home/a/o3", false, ""},
		{"./d1/o3", "/home/a/o3", false, ""},
		{"results/a", "/home/a/results/a", true, ""},
		{"results/sub/b", "/home/a/results/sub/b", true, ""},
		{"results", "/home/a/results", false, ""},
		{"flat/a", "/home/a/a", false, ""},
		{"flat/sub/b", "/home/a/sub/b", true, ""},
		{"flat/x", "/home/a/y", true, ""},
		{"deep/f.dat", "/abs/f.dat", true, ""},
		{"g.dat", "/home/a/g.dat", false, ""},
		{"results/../../x", "", false, "does not name"},
		{"d1/other", "", false, "does not name"},
		{"resultsx/a", "", false, "does not name"},
		{"h.dat", "", false, "does not name"},
	} {
		got, err := outputPath(&listed, tt.file)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("listed %s: %+v %v", tt.file, got, err)
			}
			continue
		}
		if err != nil || got.path != tt.path || got.mkdir != tt.mkdir {
			t.Errorf("listed %s: %+v %v; want %s (mkdir %v)", tt.file, got, err, tt.path, tt.mkdir)
		}
	}
	named := viewOf(t, `[ Iwd = "/home/a"; TransferOutput = "a.dat, b.dat"; TransferOutputRemaps = "a.dat = x/a.dat; c.dat = d.dat" ]`)
	if got, err := outputPath(&named, "a.dat"); err != nil || got.path != "/home/a/x/a.dat" {
		t.Errorf("a listed, remapped output: %+v %v", got, err)
	}
	if _, err := outputPath(&named, "c.dat"); err == nil {
		t.Error("a job naming its outputs took another, because it remapped it")
	}
	for _, bad := range []string{`"a = "`, `"x = y; y = x"`} {
		v := viewOf(t, `[ Iwd = "/home/a"; TransferOutputRemaps = `+bad+` ]`)
		if _, err := outputPath(&v, "x"); err == nil {
			t.Errorf("TransferOutputRemaps = %s: an output was taken", bad)
		}
	}
}

// files returns a Files that serves one job, whatever claim asks, as
// this test's own account.
func files(t *testing.T, v queue.View) *Files {
	t.Helper()
	me, err := runas.Self()
	if err != nil {
		t.Fatal(err)
	}
	v.Cluster.Set("OsUser", ast.Str(me.Name))
	return &Files{
		Job:         func(queue.JobID, string) (queue.View, error) { return v, nil },
		SendOutputs: func(queue.JobID, string) error { return nil },
		Accounts:    &runas.Map{Self: me, Lookup: runas.Lookup},
		Moved:       func(string, int64, error) {},
	}
}

// send sends body as output file name and returns the status.
func send(t *testing.T, f *Files, name, body string) int {
	t.Helper()
	sum := sha256.Sum256([]byte(body))
	hr := httptest.NewRequest(http.MethodPut, "/v1/output?job=1.0&file="+url.QueryEscape(name), strings.NewReader(body))
	hr.Header.Set(wire.HeaderSHA256, hex.EncodeToString(sum[:]))
	rec := httptest.NewRecorder()
	err := f.Output(rec, &wire.Request{HTTP: hr})
	var we *wire.Error
	switch {
	case err == nil:
		return rec.Code
	case errors.As(err, &we):
		return we.Status
	}
	t.Fatalf("%s: %v", name, err)
	return 0
}

// Outputs land on the submit side where the job asked: standard output at
// an absolute path, a remapped file under directories made for it.
func TestOutputWrites(t *testing.T) {
	iwd, logs := t.TempDir(), t.TempDir()
	v := viewOf(t, `[ Iwd = "`+iwd+`"; Out = "`+logs+`/worker-1.out";
		TransferOutputRemaps = "res.dat = results/1/res.dat; tab.csv = `+logs+`/new/tab.csv" ]`)
	f := files(t, v)
	for _, s := range []struct{ name, body, at string }{
		{logs + "/worker-1.out", "hello\n", logs + "/worker-1.out"},
		{"res.dat", "42\n", iwd + "/results/1/res.dat"},
		{"tab.csv", "a,b\n", logs + "/new/tab.csv"},
		{"plain.txt", "p\n", iwd + "/plain.txt"},
	} {
		if code := send(t, f, s.name, s.body); code != http.StatusNoContent {
			t.Fatalf("%s: status %d", s.name, code)
		}
		got, err := os.ReadFile(s.at)
		if err != nil || string(got) != s.body {
			t.Errorf("%s landed at %s as %q, %v", s.name, s.at, got, err)
		}
	}
	dirs := viewOf(t, `[ Iwd = "`+iwd+`"; TransferOutput = "results, out/d1/o3" ]`)
	fd := files(t, dirs)
	for _, s := range []struct{ name, at string }{
		{"results/sub/b", iwd + "/results/sub/b"},
		{"out/d1/o3", iwd + "/o3"},
	} {
		if code := send(t, fd, s.name, s.name); code != http.StatusNoContent {
			t.Fatalf("%s: status %d", s.name, code)
		}
		if got, err := os.ReadFile(s.at); err != nil || string(got) != s.name {
			t.Errorf("%s landed at %s as %q, %v", s.name, s.at, got, err)
		}
	}
	if code := send(t, f, logs+"/other.out", "x"); code != http.StatusForbidden {
		t.Errorf("an absolute path the job did not name: status %d", code)
	}
	if _, err := os.Stat(logs + "/other.out"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an unnamed absolute path was written: %v", err)
	}
}
