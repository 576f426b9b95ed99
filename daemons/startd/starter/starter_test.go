package starter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/cgroups"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// fakeSchedd serves input files from memory and keeps what comes back.
type fakeSchedd struct {
	mu      sync.Mutex
	inputs  map[string]string // name in the job ad -> content
	badSum  map[string]bool   // announce a wrong checksum for these
	block   chan string       // non-nil: Fetch names its file here and waits until the starter gives up
	away    bool              // Fetch fails as for a schedd that cannot be reached
	outputs map[string]string
	events  chan wire.JobUpdate
}

func newFakeSchedd(inputs map[string]string) *fakeSchedd {
	if inputs == nil {
		inputs = map[string]string{}
	}
	return &fakeSchedd{inputs: inputs, badSum: map[string]bool{}, outputs: map[string]string{}, events: make(chan wire.JobUpdate, 16)}
}

func sum(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

func (f *fakeSchedd) Fetch(ctx context.Context, name string, w io.Writer) (string, error) {
	if f.block != nil {
		f.block <- name
		<-ctx.Done()
		return "", ctx.Err()
	}
	if f.away {
		return "", fmt.Errorf("%w: schedd:1: connection refused", wire.ErrUnreachable)
	}
	data, ok := f.inputs[name]
	if !ok {
		return "", fmt.Errorf("not found: %s", name)
	}
	io.WriteString(w, data)
	if f.badSum[name] {
		return sum("something else"), nil
	}
	return sum(data), nil
}

func (f *fakeSchedd) Send(ctx context.Context, name string, r io.Reader, size int64, s string) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if int64(len(b)) != size || sum(string(b)) != s {
		return fmt.Errorf("%s: size or checksum do not match", name)
	}
	f.mu.Lock()
	f.outputs[name] = string(b)
	f.mu.Unlock()
	return nil
}

func (f *fakeSchedd) report(_ context.Context, u wire.JobUpdate) error {
	f.events <- u
	return nil
}

// next waits for the next event.
func (f *fakeSchedd) next(t *testing.T) wire.JobUpdate {
	t.Helper()
	select {
	case u := <-f.events:
		return u
	case <-time.After(20 * time.Second):
		t.Fatal("no job event")
	}
	return wire.JobUpdate{}
}

func (f *fakeSchedd) outputNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	for n := range f.outputs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func jobAd(t *testing.T, text string) *classad.Ad {
	t.Helper()
	ad, err := classad.ParseOld("ClusterId = 7\nProcId = 0\n" + text)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

func testConfig(t *testing.T, f *fakeSchedd) Config {
	cg, err := cgroups.Detect("", fmt.Sprintf("kite_test_%d_%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "_")))
	if err == nil {
		t.Cleanup(func() { cg.Close() })
	}
	return Config{
		ExecuteDir: t.TempDir(), Slot: "slot1_1", Cpus: 1, MemoryMiB: 256,
		KillGrace: 300 * time.Millisecond, SampleInterval: 20 * time.Millisecond,
		Transfer: f, Report: f.report, Cgroups: cg, HoldIfMemoryExceeded: true,
	}
}

// run starts a job and returns its starter.
func run(t *testing.T, cfg Config, ad *classad.Ad) *Starter {
	t.Helper()
	s := Start(cfg, Job{ID: "7.0", ClaimID: "claim", Ad: ad})
	t.Cleanup(func() {
		s.Vacate("test over", true)
		<-s.Done()
	})
	return s
}

const script = `#!/bin/sh
echo "args: $# [$1] [$2]"
echo "greeting: $GREETING slot: $_CONDOR_SLOT"
read line
echo "stdin: $line"
cat data.txt > result.txt
echo "to stderr" >&2
grep -q '^ClusterId = 7$' "$_CONDOR_JOB_AD" && echo "job ad ok"
grep -q 'ClaimId' "$_CONDOR_MACHINE_AD" || echo "machine ad without secrets"
exit 3
`

// A job runs with its arguments, environment, input files and standard
// files; its outputs, exit code and usage come back, and its sandbox is
// removed.
func TestRunJob(t *testing.T) {
	f := newFakeSchedd(map[string]string{"/home/alice/job.sh": script, "in/data.txt": "the data\n", "stdin.txt": "first line\n"})
	cfg := testConfig(t, f)
	cfg.MachineAd = jobAd(t, `ClaimId = "secret"`)
	ad := jobAd(t, `Cmd = "/home/alice/job.sh"
Arguments = "one 'two words'"
Environment = "GREETING='hello there'"
TransferInput = "in/data.txt"
TransferOutput = "result.txt"
In = "stdin.txt"
Out = "job.out"
Err = "job.err"`)
	s := run(t, cfg, ad)
	if u := f.next(t); u.Event != wire.EventStarted || u.Job != "7.0" || u.ClaimID != "claim" {
		t.Fatalf("first event %+v", u)
	}
	u := f.next(t)
	if u.Event != wire.EventExited || u.ExitCode != 3 || u.ExitBySignal || u.WallSeconds <= 0 {
		t.Fatalf("last event %+v", u)
	}
	<-s.Done()
	want := map[string]string{
		"result.txt": "the data\n",
		"job.out":    "args: 2 [one] [two words]\ngreeting: hello there slot: slot1_1\nstdin: first line\njob ad ok\nmachine ad without secrets\n",
		"job.err":    "to stderr\n",
	}
	for name, content := range want {
		if got := f.outputs[name]; got != content {
			t.Errorf("%s = %q, want %q", name, got, content)
		}
	}
	if len(f.outputs) != len(want) {
		t.Errorf("outputs %v", f.outputNames())
	}
	if entries, _ := os.ReadDir(cfg.ExecuteDir); len(entries) != 0 {
		t.Errorf("the sandbox is still there: %v", entries)
	}
	if s.Result().Event != wire.EventExited {
		t.Errorf("result %+v", s.Result())
	}
}

// Without TransferOutput, new and changed top-level files come back;
// a named directory comes back file by file.
func TestOutputSelection(t *testing.T) {
	tests := []struct {
		name, output string
		want         []string
	}{
		{"new and changed files", "", []string{"changed.txt", "new.txt"}},
		{"a directory", `TransferOutput = "results"`, []string{"results/a", "results/sub/b"}},
		{"nothing", `TransferOutput = ""`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeSchedd(map[string]string{"/j.sh": "#!/bin/sh\necho x > new.txt\necho more >> changed.txt\nmkdir -p results/sub sub2\necho a > results/a\necho b > results/sub/b\necho c > sub2/c\n",
				"changed.txt": "was\n", "same.txt": "same\n"})
			s := run(t, testConfig(t, f), jobAd(t, "Cmd = \"/j.sh\"\nTransferInput = \"changed.txt, same.txt\"\n"+tt.output))
			f.next(t)
			if u := f.next(t); u.Event != wire.EventExited || u.ExitCode != 0 {
				t.Fatalf("%+v", u)
			}
			<-s.Done()
			if got := f.outputNames(); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("outputs %v, want %v", got, tt.want)
			}
		})
	}
}

// The job's standard output and error go back under the names the job ad
// gives, absolute or not: the schedd writes them on the submit side, as
// HTCondor's shadow writes output = /abs/dir/out (HTCondor's manual,
// condor_submit, "output"). Only the sandbox's own files are the
// sandbox's business. Output and error to one path share one file, sent
// once, in the order written.
func TestStandardFilesGoBackAsNamed(t *testing.T) {
	const job = "#!/bin/sh\necho out1\necho err1 >&2\necho out2\n"
	tests := []struct {
		name, ad string
		want     map[string]string
	}{
		{"absolute", "Out = \"/abs/dir/worker-1.out\"\nErr = \"../logs/worker-1.err\"",
			map[string]string{"/abs/dir/worker-1.out": "out1\nout2\n", "../logs/worker-1.err": "err1\n"}},
		{"one file for both", "Out = \"/abs/dir/both\"\nErr = \"/abs/dir/both\"",
			map[string]string{"/abs/dir/both": "out1\nerr1\nout2\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeSchedd(map[string]string{"/j.sh": job})
			s := run(t, testConfig(t, f), jobAd(t, "Cmd = \"/j.sh\"\nTransferOutput = \"\"\n"+tt.ad))
			f.next(t)
			if u := f.next(t); u.Event != wire.EventExited || u.ExitCode != 0 {
				t.Fatalf("%+v", u)
			}
			<-s.Done()
			if len(f.outputs) != len(tt.want) {
				t.Errorf("outputs %v", f.outputNames())
			}
			for name, content := range tt.want {
				if got := f.outputs[name]; got != content {
					t.Errorf("%s = %q, want %q", name, got, content)
				}
			}
		})
	}
}

func TestExitBySignal(t *testing.T) {
	f := newFakeSchedd(map[string]string{"/j.sh": "#!/bin/sh\nkill -9 $$\n"})
	run(t, testConfig(t, f), jobAd(t, `Cmd = "/j.sh"`))
	f.next(t)
	if u := f.next(t); u.Event != wire.EventExited || !u.ExitBySignal || u.ExitSignal != 9 {
		t.Errorf("%+v", u)
	}
}

// Names that would leave the sandbox or the job's directory are refused
// before anything runs, and links the job makes to the outside are not
// followed when outputs go back; each refusal names the file.
func TestFileEscapes(t *testing.T) {
	tests := []struct {
		name, ad string
		code     int
		reason   string
	}{
		{"input with ..", `TransferInput = "../secret"`, attr.HoldTransferInput, `input file "../secret": ".." leaves the sandbox`},
		{"absolute input landing on another", `TransferInput = "/etc/shadow, data"` + "\nIn = \"shadow\"", attr.HoldTransferInput, `input file "shadow": lands on shadow, like "/etc/shadow"`},
		{"absolute stdin", `In = "/etc/shadow"`, attr.HoldTransferInput, `input file "/etc/shadow": an absolute path leaves the sandbox`},
		{"url input, URL transfers off", `TransferInput = "http://example.org/x"`, attr.HoldTransferInput, `input file "http://example.org/x": this machine moves no files by URL (startd.url_transfers = false)`},
		{"absolute output", `TransferOutput = "/etc/passwd"`, attr.HoldTransferOutput, `output file "/etc/passwd": an absolute path leaves the sandbox`},
		{"output with ..", `TransferOutput = "a/../../x"`, attr.HoldTransferOutput, `output file "a/../../x": ".." leaves the sandbox`},
		{"output link to the outside", "TransferOutput = \"leak\"\nCmd = \"/link.sh\"", attr.HoldTransferOutput, `output file "leak": leak is a symbolic link to /etc/passwd, outside the sandbox`},
		{"new link to the outside", `Cmd = "/link.sh"`, attr.HoldTransferOutput, `output file "etc": etc is a symbolic link to /etc, outside the sandbox`},
		{"link into a directory outside", "TransferOutput = \"etc/passwd\"\nCmd = \"/link.sh\"", attr.HoldTransferOutput, `output file "etc/passwd": etc is a symbolic link to /etc, outside the sandbox`},
		{"checksum", `TransferInput = "data"`, attr.HoldTransferInput, `input file "data": its SHA-256 is ` + sum("data!") + `, the schedd announced ` + sum("something else")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeSchedd(map[string]string{"/j.sh": "#!/bin/sh\n", "/link.sh": "#!/bin/sh\nln -s /etc/passwd leak\nln -s /etc etc\n", "data": "data!"})
			f.badSum["data"] = true
			ad := jobAd(t, "Cmd = \"/j.sh\"\n"+tt.ad)
			s := run(t, testConfig(t, f), ad)
			u := f.next(t)
			if u.Event == wire.EventStarted {
				u = f.next(t)
			}
			if u.Event != wire.EventHeld || u.HoldCode != tt.code || u.Reason != tt.reason {
				t.Errorf("got %s %d %q\nwant held %d %q", u.Event, u.HoldCode, u.Reason, tt.code, tt.reason)
			}
			<-s.Done()
			if len(f.outputs) != 0 {
				t.Errorf("sent %v", f.outputNames())
			}
		})
	}
}

// A job whose input cannot be fetched because its schedd is away (a
// schedd restarting) goes back to idle, evicted, rather than held: the
// input is not at fault.
func TestInputScheddAway(t *testing.T) {
	f := newFakeSchedd(map[string]string{"data.txt": "x"})
	f.away = true
	run(t, testConfig(t, f), jobAd(t, "Cmd = \"/bin/true\"\nTransferExecutable = false\nTransferInput = \"data.txt\""))
	if u := f.next(t); u.Event != wire.EventEvicted || !strings.Contains(u.Reason, "the job's input could not be fetched") {
		t.Errorf("%+v", u)
	}
}

func TestCannotStart(t *testing.T) {
	f := newFakeSchedd(nil)
	run(t, testConfig(t, f), jobAd(t, "Cmd = \"/no/such/tool\"\nTransferExecutable = false"))
	u := f.next(t)
	if u.Event != wire.EventFailed || u.HoldCode != attr.HoldStartingJob || !strings.Contains(u.Reason, "starting /no/such/tool: fork/exec /no/such/tool: no such file or directory") {
		t.Errorf("%+v", u)
	}
}

// A vacate while inputs arrive stops the transfer; nothing runs.
func TestVacateBeforeStart(t *testing.T) {
	f := newFakeSchedd(map[string]string{})
	f.block = make(chan string, 1)
	s := run(t, testConfig(t, f), jobAd(t, `Cmd = "/j.sh"`))
	if name := <-f.block; name != "/j.sh" {
		t.Errorf("the starter fetches %q first, want the executable", name)
	}
	s.Vacate("the claim was released", false)
	if u := f.next(t); u.Event != wire.EventEvicted || u.Reason != "the claim was released" {
		t.Errorf("%+v", u)
	}
}

func TestKillSignal(t *testing.T) {
	for _, tt := range []struct{ in, want string }{{"", "terminated"}, {"SIGINT", "interrupt"}, {"USR1", "user defined signal 1"}, {"9", "killed"}, {"BOGUS", "terminated"}} {
		ad := classad.NewAd()
		if tt.in != "" {
			ad = jobAd(t, `KillSig = "`+tt.in+`"`)
		}
		if got := killSignal(ad).String(); got != tt.want {
			t.Errorf("%q: %s", tt.in, got)
		}
	}
}

// With FoldStarted, a job that ends at once is reported by one event
// carrying its start; a longer one by a started event, then its end. The
// last event is kept (Config.Keep) as it is reported, start folded in.
func TestFoldStarted(t *testing.T) {
	for _, tt := range []struct {
		name, script string
		folded       bool
	}{
		{"quick", "#!/bin/sh\nexit 0\n", true},
		{"slow", "#!/bin/sh\nsleep 0.5\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeSchedd(map[string]string{"/home/alice/job.sh": tt.script})
			cfg := testConfig(t, f)
			cfg.FoldStarted = 200 * time.Millisecond
			var kept []wire.JobUpdate // Keep is called before Done
			cfg.Keep = func(u wire.JobUpdate) { kept = append(kept, u) }
			s := run(t, cfg, jobAd(t, `Cmd = "/home/alice/job.sh"`))
			u := f.next(t)
			if tt.folded {
				if u.Event != wire.EventExited || u.StartedAt == 0 {
					t.Fatalf("one event with the start folded in, got %+v", u)
				}
			} else {
				if u.Event != wire.EventStarted {
					t.Fatalf("a started event first, got %+v", u)
				}
				if u = f.next(t); u.Event != wire.EventExited || u.StartedAt != 0 {
					t.Fatalf("then the exit without a start, got %+v", u)
				}
			}
			<-s.Done()
			if len(kept) != 1 || kept[0] != u {
				t.Errorf("kept %+v, want the one reported: %+v", kept, u)
			}
		})
	}
}

// The shared /dev/null outlives the jobs whose standard files it was:
// closing a job's files leaves it open for the next.
func TestSharedNullStaysOpen(t *testing.T) {
	for range 2 {
		f, err := sharedNull()
		if err != nil {
			t.Fatal(err)
		}
		closeAll([]*os.File{f})
		if _, err := f.Write([]byte("discarded")); err != nil {
			t.Fatalf("after a job's files were closed: %v", err)
		}
	}
}
