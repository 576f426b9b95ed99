package schedd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// Periodic policy holds, removes and releases jobs as their expressions
// say; UNDEFINED holds with code 5; the user's own holds stay.
func TestPeriodicPolicy(t *testing.T) {
	p := pooltest.New(t)
	cfg := testConfig(t)
	cfg.PeriodicInterval = 20 * time.Millisecond
	h := startSchedd(t, p, cfg)
	dir := t.TempDir()
	for _, sub := range []string{
		"periodic_hold = true\nperiodic_hold_reason = \"too long\"\nperiodic_hold_subcode = 4\n", // 1.0 held, code 3
		"periodic_remove = true\n",                                          // 2.0 removed
		"periodic_hold = Foo > 3\n",                                         // 3.0 held, code 5
		"hold = true\nperiodic_release = true\n",                            // 4.0 stays held (the user's)
		"periodic_hold = NumHolds =?= undefined\nperiodic_release = true\n", // 5.0 held, then released
		"", // 6.0 idle
	} {
		h.mustSubmit("alice", dir, "executable = /bin/true\nlog = job.log\n"+sub+"queue\n")
	}
	eventually(t, "the policy to settle", func() bool {
		return summary(h.query("alice", wire.JobQuery{Projection: []string{"JobStatus"}}), "JobStatus") == "5\n5\n5\n1\n1" &&
			strings.Contains(readLog(t, filepath.Join(dir, "job.log")), "013 5.0")
	})
	got := summary(h.query("alice", wire.JobQuery{}), "ClusterId", "HoldReasonCode", "HoldReasonSubCode", "HoldReason")
	want := `1 3 4 "too long"
3 5 0 "The job attribute PeriodicHold expression 'Foo > 3' evaluated to UNDEFINED"
4 15 undefined "submitted on hold at user's request"
5 undefined undefined undefined
6 undefined undefined undefined`
	if got != want {
		t.Errorf("after the policy:\n%s\nwant\n%s", got, want)
	}
	log := readLog(t, filepath.Join(dir, "job.log"))
	for _, e := range []string{"012 1.0", "009 2.0", "012 3.0", "012 5.0", "013 5.0"} {
		if !strings.Contains(log, e) {
			t.Errorf("job log lacks %s:\n%s", e, log)
		}
	}
}

// The schedd serves only the input files a job names, to the claim it
// runs under, and takes back only its outputs, checked.
func TestFileTransfer(t *testing.T) {
	p := pooltest.New(t)
	startd := newFakeStartd(t, p)
	h := startSchedd(t, p, testConfig(t))
	dir := t.TempDir()
	writeFile(t, dir, "in.dat", "input data")
	writeFile(t, dir, "secret.txt", "not for you")
	h.mustSubmit("alice", dir, "executable = /bin/cat\ntransfer_input_files = in.dat\noutput = out.txt\ntransfer_output_files = result.dat\nqueue\n")
	var reqs wire.ResourceRequests
	h.daemonCall(wire.PathResourceRequests, wire.RequestsQuery{Submitter: "alice@test.org"}, &reqs)
	h.daemonCall(wire.PathMatches, wire.Matches{Submitter: "alice@test.org", Matches: []wire.Match{{Request: reqs.Requests[0].ID, Slot: startd.slot}}}, nil)
	if a := startd.next(t); a != "c1 1.0" {
		t.Fatal(a)
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: p.Network.DialContext}}
	tok := p.Token("startd@node", auth.Daemon)
	do := func(method, file, claim string, body []byte, sum string) (*http.Response, string) {
		t.Helper()
		u := "http://" + h.s.Addr() + map[string]string{"GET": wire.PathJobInput, "PUT": wire.PathJobOutput}[method] +
			"?job=1.0&file=" + url.QueryEscape(file)
		req, _ := http.NewRequest(method, u, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set(wire.HeaderClaim, claim)
		if sum != "" {
			req.Header.Set(wire.HeaderSHA256, sum)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp, string(data)
	}
	resp, data := do("GET", "in.dat", "c1", nil, "")
	sum := sha256.Sum256([]byte("input data"))
	if resp.StatusCode != 200 || data != "input data" || resp.Header.Get(wire.HeaderSHA256) != hex.EncodeToString(sum[:]) {
		t.Errorf("input: %d %q %s", resp.StatusCode, data, resp.Header.Get(wire.HeaderSHA256))
	}
	out := []byte("results")
	outSum := sha256.Sum256(out)
	tests := []struct {
		name, method, file, claim string
		body                      []byte
		sum                       string
		status                    int
		msg                       string
	}{
		{"executable", "GET", "/bin/cat", "c1", nil, "", 200, ""},
		{"wrong claim", "GET", "in.dat", "c9", nil, "", 403, "does not run under that claim"},
		{"not named", "GET", "secret.txt", "c1", nil, "", 403, `does not name \"secret.txt\" as an input`},
		{"escape", "GET", "../in.dat", "c1", nil, "", 403, "does not name"},
		{"output", "PUT", "result.dat", "c1", out, hex.EncodeToString(outSum[:]), 204, ""},
		{"stdout", "PUT", "out.txt", "c1", out, hex.EncodeToString(outSum[:]), 204, ""},
		{"bad checksum", "PUT", "out.txt", "c1", []byte("tampered"), hex.EncodeToString(outSum[:]), 400, "checksum"},
		{"unnamed output", "PUT", "other.dat", "c1", out, hex.EncodeToString(outSum[:]), 403, `does not name \"other.dat\" as an output`},
		{"no checksum", "PUT", "out.txt", "c1", out, "", 400, "X-Kite-Sha256"},
	}
	for _, tt := range tests {
		resp, data := do(tt.method, tt.file, tt.claim, tt.body, tt.sum)
		if resp.StatusCode != tt.status || !strings.Contains(data, tt.msg) {
			t.Errorf("%s: %d %s", tt.name, resp.StatusCode, data)
		}
	}
	for name, want := range map[string]string{"result.dat": "results", "out.txt": "results"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s: %q %v", name, b, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("the job's directory holds %d files (a rejected upload left one?)", len(entries))
	}
}

// The schedd advertises itself and its submitters, drops a submitter's ad
// when its jobs are gone, and pokes the negotiator when jobs are idle.
func TestAdvertise(t *testing.T) {
	p := pooltest.New(t)
	coll := newFakeCollector(t, p)
	var pokes atomic.Int32
	m := wire.NewMux(auth.NewVerifier(p.Issuer.Public(), p.Name), nil)
	m.Handle("POST "+wire.PathReschedule, auth.Write, func(context.Context, *wire.Request) (any, error) {
		pokes.Add(1)
		return nil, nil
	})
	coll.negotiator = serve(t, p, "negotiator:9000", m)
	h := startSchedd(t, p, testConfig(t))
	eventually(t, "the schedd's ad", func() bool { return coll.ad("Scheduler", "schedd@test") != nil })
	h.mustSubmit("alice", t.TempDir(), "executable = /bin/true\nqueue 3\n")
	eventually(t, "alice's submitter ad", func() bool {
		ad := coll.ad("Submitter", "alice@test.org")
		return ad != nil && summary([]*adT{ad}, "IdleJobs", "RunningJobs", "HeldJobs", "ScheddName") == `3 0 0 "schedd@test"`
	})
	eventually(t, "a poke of the negotiator", func() bool { return pokes.Load() > 0 })
	if got := summary([]*adT{coll.ad("Scheduler", "schedd@test")}, "TotalIdleJobs", "TotalJobAds", "MyAddress"); got != `3 3 "`+h.s.Addr()+`"` {
		t.Errorf("schedd ad: %s", got)
	}
	var res wire.ActResult
	h.client("alice", auth.Write).Call(context.Background(), "POST", wire.PathAct, wire.Act{Action: wire.ActRemove, JobSelection: wire.JobSelection{All: true}}, &res)
	eventually(t, "alice's ad to go", func() bool { return coll.ad("Submitter", "alice@test.org") == nil })
}
