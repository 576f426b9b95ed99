// Package e2e runs whole pools inside a test: collector, negotiator,
// schedd and startds on an in-memory network, real jobs in real
// sandboxes, driven as the tools drive them.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

type pool struct {
	t      testing.TB
	p      *pooltest.Pool
	user   *wire.Client // alice, WRITE
	admin  *wire.Client
	startd map[string]*startd.Server
	schedd *schedd.Server
}

// newPool starts a collector, a negotiator, a schedd and one startd per
// name, each with slots static one-CPU slots.
func newPool(t testing.TB, slots int, startds ...string) *pool {
	return newPoolWith(t, slots, nil, startds...)
}

// newPoolWith is newPool with the startds' configuration changed by edit.
func newPoolWith(t testing.TB, slots int, edit func(*startd.Config), startds ...string) *pool {
	p := pooltest.New(t)
	p.Config.Startd.Slots, p.Config.Startd.Cpus, p.Config.Startd.Partitionable = slots, slots, false
	p.Config.Startd.Memory = int64(512 * slots)
	start.Collector(t, p)
	start.Negotiator(t, p, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator:1", 5*time.Millisecond, time.Second
	})
	sd := start.Schedd(t, p, "schedd:1", nil)
	pl := &pool{t: t, p: p, user: p.Client("schedd:1", "alice", auth.Write),
		admin: p.Client("schedd:1", "root", auth.Administrator), startd: map[string]*startd.Server{}, schedd: sd}
	for i, name := range startds {
		pl.startd[name] = start.Startd(t, p, fmt.Sprintf("startd-%d:1", i), name, edit)
	}
	return pl
}

// submit queues the jobs of a submit description as alice, from dir.
func (pl *pool) submit(dir, text string) int64 {
	t := pl.t
	t.Helper()
	d, env := pl.prepare(dir, text)
	c, _, err := d.Expand(env)
	if err != nil {
		t.Fatal(err)
	}
	var res wire.SubmitResult
	path := wire.PathSubmit + "?cluster=" + strconv.Itoa(env.Cluster)
	if err := pl.user.CallRaw(context.Background(), "POST", path, c.AppendJSON(nil), &res); err != nil {
		t.Fatal(err)
	}
	return res.Cluster
}

// prepare parses a submit description of dir and gets it a cluster id as
// alice: the description, and the environment to expand it in.
func (pl *pool) prepare(dir, text string) (*submit.Description, submit.Env) {
	t := pl.t
	t.Helper()
	d, _, err := submit.Parse(filepath.Join(dir, "job.sub"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var nc wire.NewCluster
	if err := pl.user.Call(context.Background(), "POST", wire.PathNewCluster, nil, &nc); err != nil {
		t.Fatal(err)
	}
	env := submit.LocalEnv(dir)
	// One file system, as on a personal pool: the startds' host is the
	// pool's "test".
	env.Host.FileSystemDomain = pl.p.Env("schedd").Host
	env.Cluster, env.Owner, env.MaxJobs = int(nc.Cluster), nc.Owner, nc.MaxJobs
	return d, env
}

// job returns a job's ad from the queue, or from the history once it left.
func (pl *pool) job(id string) *classad.Ad {
	t := pl.t
	t.Helper()
	var found *classad.Ad
	each := func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		found = ad
		return err
	}
	ctx := context.Background()
	q := wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{id}}}
	if err := pl.user.Stream(ctx, "POST", wire.PathQueue, q, each); err != nil {
		t.Fatal(err)
	}
	if found == nil {
		if err := pl.user.Stream(ctx, "POST", wire.PathHistory, wire.HistoryQuery{IDs: []string{id}}, each); err != nil {
			t.Fatal(err)
		}
	}
	return found
}

func status(ad *classad.Ad) int64 {
	if ad == nil {
		return -1
	}
	v, _ := classad.EvalAttr(ad, attr.JobStatus, nil)
	n, _ := v.IntValue()
	return n
}

func str(ad *classad.Ad, name string) string {
	v, _ := classad.EvalAttr(ad, name, nil)
	if s, ok := v.StringValue(); ok {
		return s
	}
	return v.String()
}

// waitStatus waits until job id has the JobStatus want.
func (pl *pool) waitStatus(id string, want int64) *classad.Ad {
	pl.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ad := pl.job(id)
		if status(ad) == want {
			return ad
		}
		if time.Now().After(deadline) {
			pl.t.Fatalf("job %s: status %d, want %d; ad:\n%v", id, status(ad), want, ad)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// procResult is what a proc of a cluster ends with: the text of its
// output file and its ExitCode.
type procResult struct{ out, code string }

// checkProcs waits for procs 0, 1, ... of cluster c to complete and checks
// each against want: its ExitCode, and its output file, named in dir by
// outFormat with the proc's number.
func (pl *pool) checkProcs(c int64, dir, outFormat string, want []procResult) {
	pl.t.Helper()
	for proc, want := range want {
		ad := pl.waitStatus(fmt.Sprintf("%d.%d", c, proc), attr.Completed)
		if got := str(ad, attr.ExitCode); got != want.code {
			pl.t.Errorf("job %d: ExitCode %s, want %s", proc, got, want.code)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf(outFormat, proc))); string(b) != want.out {
			pl.t.Errorf("job %d printed %q, want %q", proc, b, want.out)
		}
	}
}

// waitStarts waits until the schedd has recorded a job's n-th start.
func (pl *pool) waitStarts(id, n string) {
	pl.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); str(pl.job(id), attr.NumJobStarts) != n; {
		if time.Now().After(deadline) {
			pl.t.Fatalf("NumJobStarts of %s is %s, want %s", id, str(pl.job(id), attr.NumJobStarts), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (pl *pool) act(action, id, reason string) {
	pl.t.Helper()
	var res wire.ActResult
	in := wire.Act{Action: action, JobSelection: wire.JobSelection{IDs: []string{id}}, Reason: reason}
	if err := pl.user.Call(context.Background(), "POST", wire.PathAct, in, &res); err != nil || res.Changed != 1 {
		pl.t.Fatalf("%s %s: %+v %v", action, id, res, err)
	}
}

func TestJobRunsWithInputAndOutputFiles(t *testing.T) {
	pl := newPool(t, 2, "a")
	dir := t.TempDir()
	writeWordCountJob(dir)
	c := pl.submit(dir, wordCountJob)
	checkWordCountJob(t, pl.waitStatus(fmt.Sprintf("%d.0", c), attr.Completed), dir)
}

// wordCountJob counts the words of its input file into count.txt, which
// it sends back, echoes its arguments and exits 3; submit it from a
// directory that writeWordCountJob filled.
const wordCountJob = `executable = job.sh
arguments = one two
transfer_input_files = in.txt
transfer_output_files = count.txt
should_transfer_files = YES
output = out.txt
error = err.txt
log = job.log
queue
`

// writeWordCountJob writes wordCountJob's input file and executable into dir.
func writeWordCountJob(dir string) {
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("three little words\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "job.sh"), []byte("#!/bin/sh\nwc -w < in.txt > count.txt\necho ran \"$@\"\nexit 3\n"), 0o755)
}

// checkWordCountJob checks the ad of a completed wordCountJob and what it
// left in dir: its exit code, the files it sent back and its user log's
// submit, execute and termination events.
func checkWordCountJob(t *testing.T, ad *classad.Ad, dir string) {
	t.Helper()
	if got := str(ad, attr.ExitCode); got != "3" {
		t.Errorf("ExitCode %s, want 3", got)
	}
	for file, want := range map[string]string{"count.txt": "3\n", "out.txt": "ran one two\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, file)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", file, b, err, want)
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "job.log"))
	for _, event := range []string{"000 (", "001 (", "005 ("} {
		if !strings.Contains(string(log), event) {
			t.Errorf("the job log lacks event %s:\n%s", event, log)
		}
	}
}

// runningPid waits until the job is running and its process has written
// its pid to dir/pid.
func runningPid(pl *pool, id, dir string) int {
	pl.t.Helper()
	pl.waitStatus(id, attr.Running)
	deadline := time.Now().Add(30 * time.Second) // a bound for slow (race-detector) runs
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(dir, "pid")); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	pl.t.Fatal("the job did not write its pid")
	return 0
}

// alive reports whether a process runs (zombies do not count).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b))
	return len(fields) > 2 && fields[2] != "Z"
}

func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sleeper is a job that writes the pid of a grandchild to dir/pid and
// sleeps: killing the job must kill its whole process tree.
func sleeper(dir string) string {
	return fmt.Sprintf(`executable = /bin/sh
arguments = "-c 'sleep 300 & echo $! > %s/pid.tmp; mv %s/pid.tmp %s/pid; wait'"
log = job.log
queue
`, dir, dir, dir)
}

func TestHoldReleaseRemoveRunningJob(t *testing.T) {
	pl := newPool(t, 1, "a")
	dir := t.TempDir()
	id := fmt.Sprintf("%d.0", pl.submit(dir, sleeper(dir)))
	pid := runningPid(pl, id, dir)
	pl.waitStarts(id, "1")

	pl.act(wire.ActHold, id, "test hold")
	ad := pl.waitStatus(id, attr.Held)
	if r := str(ad, attr.HoldReason); !strings.Contains(r, "test hold") {
		t.Errorf("HoldReason %q", r)
	}
	waitDead(t, pid)

	os.Remove(filepath.Join(dir, "pid"))
	pl.act(wire.ActRelease, id, "")
	pid = runningPid(pl, id, dir)
	pl.waitStarts(id, "2")

	pl.act(wire.ActRemove, id, "")
	pl.waitStatus(id, attr.Removed)
	waitDead(t, pid)
}

func TestStoppedStartdsJobsRunElsewhere(t *testing.T) {
	pl := newPool(t, 1, "a", "b")
	dir := t.TempDir()
	id := fmt.Sprintf("%d.0", pl.submit(dir, sleeper(dir)))
	pid := runningPid(pl, id, dir)
	host := str(pl.job(id), attr.RemoteHost)
	machine := host[strings.IndexByte(host, '@')+1:]

	// The startd stops (as on shutdown): it vacates the job, which goes
	// back to idle and runs on the other machine.
	os.Remove(filepath.Join(dir, "pid"))
	start.Stop(t, pl.startd[machine])
	waitDead(t, pid)
	runningPid(pl, id, dir)
	ad := pl.job(id)
	if now := str(ad, attr.RemoteHost); strings.HasSuffix(now, "@"+machine) || now == "" {
		t.Errorf("the job runs on %s again, after %s stopped", now, machine)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "job.log"))
	if !strings.Contains(string(log), "004 (") {
		t.Errorf("no evicted event in the log:\n%s", log)
	}
}
