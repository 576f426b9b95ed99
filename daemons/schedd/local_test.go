package schedd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// The scheduler and local universes (manual: "Choosing an HTCondor
// Universe"): the schedd runs the job on its own host, at once, with no
// match (these tests have no collector, negotiator or startd), as the
// job's owner. Run as root, the owner is nobody.

// localSetup is a schedd whose submitters' jobs run as nobody when the
// test runs as root (else as the test's account), and a directory every
// account may write, outside t.TempDir (which only its owner may enter).
func localSetup(t *testing.T, edit func(*Config)) (*harness, string) {
	t.Helper()
	cfg := testConfig(t)
	if os.Geteuid() == 0 {
		cfg.IdentityMap = []string{".* nobody"}
	}
	if edit != nil {
		edit(&cfg)
	}
	dir, err := os.MkdirTemp("", "kite-local-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return startSchedd(t, pooltest.New(t), cfg), dir
}

// val is an attribute's value as text (strings unquoted).
func val(ad *classad.Ad, name string) string {
	v, _ := classad.EvalAttr(ad, name, nil)
	if s, ok := v.StringValue(); ok {
		return s
	}
	return v.String()
}

// jobAd returns a job's ad from the queue or, once it left, the history.
func (h *harness) jobAd(id string) *classad.Ad {
	h.t.Helper()
	if ads := h.query("alice", wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{id}}}); len(ads) == 1 {
		return ads[0]
	}
	if ads := streamQuery(h.t, h.client("alice", auth.Read), wire.PathHistory, wire.HistoryQuery{IDs: []string{id}}); len(ads) == 1 {
		return ads[0]
	}
	return nil
}

// waitLocalStatus waits until a job has a JobStatus.
func (h *harness) waitLocalStatus(id string, status int64) *classad.Ad {
	h.t.Helper()
	var ad *classad.Ad
	eventually(h.t, fmt.Sprintf("job %s in status %d", id, status), func() bool {
		ad = h.jobAd(id)
		n, _ := classad.EvalInt(ad, attr.JobStatus)
		return ad != nil && n == status
	})
	return ad
}

func TestLocalUniverseJobRunsOnTheScheddsHost(t *testing.T) {
	for _, universe := range []string{"local", "scheduler"} {
		t.Run(universe, func(t *testing.T) {
			h, dir := localSetup(t, nil)
			writeFile(t, dir, "in.txt", "from stdin\n")
			c := h.mustSubmit("alice", dir, fmt.Sprintf(`universe = %s
executable = /bin/sh
arguments = "-c 'echo ran $CONDOR_ID $0 in $PWD; read line; echo $line; echo oops >&2; exit 3' zero"
environment = "GREETING=hi"
input = in.txt
output = out.txt
error = err.txt
log = job.log
queue
`, universe))
			id := fmt.Sprintf("%d.0", c)
			ad := h.waitLocalStatus(id, attr.Completed)
			for name, want := range map[string]string{attr.ExitCode: "3", attr.NumJobStarts: "1", attr.JobRunCount: "1", attr.ExitBySignal: "false"} {
				if got := val(ad, name); got != want {
					t.Errorf("%s = %s, want %s", name, got, want)
				}
			}
			out, _ := os.ReadFile(filepath.Join(dir, "out.txt"))
			if want := fmt.Sprintf("ran %s zero in %s\nfrom stdin\n", id, dir); string(out) != want {
				t.Errorf("out.txt = %q, want %q", out, want)
			}
			if errOut, _ := os.ReadFile(filepath.Join(dir, "err.txt")); string(errOut) != "oops\n" {
				t.Errorf("err.txt = %q", errOut)
			}
			if got, want := readLog(t, filepath.Join(dir, "job.log")), fmt.Sprintf("000 %[1]d.0\n001 %[1]d.0\n005 %[1]d.0", c); got != want {
				t.Errorf("events:\n%s\nwant:\n%s", got, want)
			}
			if os.Geteuid() == 0 {
				fi, err := os.Stat(filepath.Join(dir, "out.txt"))
				if err != nil || fi.Sys().(*syscall.Stat_t).Uid != 65534 {
					t.Errorf("out.txt is not nobody's: %v %v", fi, err)
				}
			}
		})
	}
}

// A job run for its owner reaches only what its owner may: run by a root
// schedd, it cannot write root's files, nor have them as its output.
func TestLocalUniverseJobCannotWriteRootsFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the job's owner must differ from the schedd's account")
	}
	h, dir := localSetup(t, nil)
	secret := writeFile(t, dir, "secret", "root's\n")
	c := h.mustSubmit("alice", dir, `universe = local
executable = /bin/sh
arguments = "-c 'echo pwned > secret'"
queue
`)
	ad := h.waitLocalStatus(fmt.Sprintf("%d.0", c), attr.Completed)
	if val(ad, attr.ExitCode) == "0" {
		t.Errorf("the job wrote root's file: ExitCode 0")
	}
	c = h.mustSubmit("alice", dir, `universe = local
executable = /bin/true
output = secret
queue
`)
	ad = h.waitLocalStatus(fmt.Sprintf("%d.0", c), attr.Held)
	if r := str(ad, attr.HoldReason); !strings.Contains(r, "permission denied") || val(ad, attr.HoldReasonCode) != "6" {
		t.Errorf("held with code %s: %s", val(ad, attr.HoldReasonCode), r)
	}
	if b, _ := os.ReadFile(secret); string(b) != "root's\n" {
		t.Errorf("root's file is now %q", b)
	}
}

// localSleeper is a local universe job that writes the pid of a
// grandchild to dir/pid and waits for it.
func localSleeper(dir string) string {
	return fmt.Sprintf(`universe = local
executable = /bin/sh
arguments = "-c 'sleep 300 & echo $! > %[1]s/pid.tmp; mv %[1]s/pid.tmp %[1]s/pid; wait'"
log = job.log
queue
`, dir)
}

// localPid waits for the sleeper's pid.
func localPid(t *testing.T, dir string) int {
	t.Helper()
	var pid int
	eventually(t, "the job's pid", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "pid"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	return pid
}

// gone reports whether a process has ended (a zombie counts as ended).
func gone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	f := strings.Fields(string(b))
	return err != nil || len(f) > 2 && f[2] == "Z"
}

// Hold and remove kill the job's whole process tree.
func TestLocalUniverseHoldAndRemoveKillTheJob(t *testing.T) {
	h, dir := localSetup(t, nil)
	id := fmt.Sprintf("%d.0", h.mustSubmit("alice", dir, localSleeper(dir)))
	act := func(action string) {
		t.Helper()
		in := wire.Act{Action: action, JobSelection: wire.JobSelection{IDs: []string{id}}}
		if err := h.client("alice", auth.Write).Call(context.Background(), "POST", wire.PathAct, in, &wire.ActResult{}); err != nil {
			t.Fatal(err)
		}
	}
	pid := localPid(t, dir)
	act(wire.ActHold)
	h.waitLocalStatus(id, attr.Held)
	eventually(t, "the held job's process to end", func() bool { return gone(pid) })

	os.Remove(filepath.Join(dir, "pid"))
	act(wire.ActRelease)
	pid = localPid(t, dir)
	act(wire.ActRemove)
	h.waitLocalStatus(id, attr.Removed)
	eventually(t, "the removed job's process to end", func() bool { return gone(pid) })
	c := strings.Split(id, ".")[0]
	if got, want := readLog(t, filepath.Join(dir, "job.log")), strings.ReplaceAll("000 C.0\n001 C.0\n012 C.0\n013 C.0\n001 C.0\n009 C.0", "C", c); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
}

// StartLocalUniverse bounds the jobs running at once; Requirements are
// evaluated against the schedd's ad.
func TestLocalUniverseStartExpressionAndRequirements(t *testing.T) {
	h, dir := localSetup(t, func(c *Config) { c.StartLocalUniverse = "TotalLocalJobsRunning < 1" })
	first := fmt.Sprintf("%d.0", h.mustSubmit("alice", dir, localSleeper(dir)))
	h.waitLocalStatus(first, attr.Running)
	second := fmt.Sprintf("%d.0", h.mustSubmit("alice", dir, "universe = local\nexecutable = /bin/true\nqueue\n"))
	never := fmt.Sprintf("%d.0", h.mustSubmit("alice", dir, "universe = local\nexecutable = /bin/true\nrequirements = TARGET.Memory < 0\nqueue\n"))
	h.s.startLocalJobs(context.Background(), true) // what the loop does
	vanilla := h.mustSubmit("alice", dir, "executable = /bin/true\nqueue\n")
	if acs := h.s.autoclusters("alice", []string{attr.Requirements}); len(acs) != 1 || acs[0].jobs[0].view.ID.Cluster != vanilla {
		t.Errorf("the negotiator is offered %d autoclusters, want the vanilla job's alone", len(acs))
	}
	for _, id := range []string{second, never} {
		if n, _ := classad.EvalInt(h.jobAd(id), attr.JobStatus); n != attr.Idle {
			t.Errorf("job %s: status %d, want idle", id, n)
		}
	}
	if host := h.s.localHostAd(); val(host, attr.TotalLocalJobsRunning) != "1" || val(host, attr.TotalLocalJobsIdle) != "2" || val(host, attr.Memory) == "0" {
		t.Errorf("the schedd's ad for local jobs: %s", classad.Unparse(host))
	}
	pid := localPid(t, dir)
	syscall.Kill(pid, syscall.SIGKILL) // the first job ends: the second starts
	h.waitLocalStatus(first, attr.Completed)
	h.waitLocalStatus(second, attr.Completed)
	if n, _ := classad.EvalInt(h.jobAd(never), attr.JobStatus); n != attr.Idle {
		t.Errorf("job %s with false requirements: status %d, want idle", never, n)
	}
}

// A schedd that stops kills its local jobs; started again, it puts them
// back to idle (an evicted event) and runs them again, as HTCondor's
// schedd does.
func TestLocalUniverseJobRunsAgainAfterARestart(t *testing.T) {
	h, dir := localSetup(t, nil)
	id := fmt.Sprintf("%d.0", h.mustSubmit("alice", dir, localSleeper(dir)))
	pid := localPid(t, dir)
	h.stop()
	eventually(t, "the job's process to end with the schedd", func() bool { return gone(pid) })
	os.Remove(filepath.Join(dir, "pid"))
	h = startSchedd(t, h.pool, h.s.cfg)
	pid = localPid(t, dir)
	ad := h.waitLocalStatus(id, attr.Running)
	if val(ad, attr.NumJobStarts) != "2" {
		t.Errorf("NumJobStarts = %s, want 2", val(ad, attr.NumJobStarts))
	}
	c := strings.Split(id, ".")[0]
	if got, want := readLog(t, filepath.Join(dir, "job.log")), strings.ReplaceAll("000 C.0\n001 C.0\n004 C.0\n001 C.0", "C", c); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	h.waitLocalStatus(id, attr.Completed)
}
