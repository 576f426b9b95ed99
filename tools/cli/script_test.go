package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kite-sched/kite/internal/runas"
	"github.com/kite-sched/kite/internal/wire"
)

// The scripts in testdata/script run the real kite commands.
func TestMain(m *testing.M) {
	// kite, and HTCondor's names of its tools (links kite
	// install-aliases makes to this binary run the same Main).
	cmds := map[string]func(){"kite": func() { os.Exit(Main()) }}
	for name := range condorTools {
		cmds[name] = cmds["kite"]
	}
	testscript.Main(m, cmds)
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			port, err := freePort()
			env.Setenv("PORT", port)
			env.Setenv("KITE_HOME", env.WorkDir+"/pool")
			env.Defer(func() { stopLeftPool(env.WorkDir + "/pool") })
			if a, ok := userAccount(); ok {
				env.Setenv("ALICE", a.Name)
				env.Setenv("ALICE_UID", strconv.FormatUint(uint64(a.UID), 10))
			}
			return err
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				return os.Geteuid() == 0, nil
			case "useraccount":
				_, ok := userAccount()
				return ok, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"gen":        gen,
			"tokenat":    tokenAt,
			"waitq":      waitQueue,
			"waitdone":   waitDone,
			"waitport":   waitPort,
			"waitads":    waitAds,
			"waitattr":   waitAttr,
			"killdaemon": killDaemon,
			"waitdaemon": waitDaemon,
			"waitmaster": waitMaster,
			"runsdir":    runsDir,
			"waitrun":    waitRunning,
			"checkruns":  checkRuns,
		},
	})
}

// stopLeftPool stops the personal pool a script left running (it failed
// before its kite down): SIGTERM to the master, then SIGKILL to its
// session, the master's children included.
func stopLeftPool(dir string) {
	_, pidFile, _ := upPaths(dir)
	pid, ok := runningMaster(pidFile)
	if !ok {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
	}
	syscall.Kill(-pid, syscall.SIGKILL)
}

// freePort returns a TCP port on loopback that was free a moment ago.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// waitPort waits until something listens on 127.0.0.1:PORT.
func waitPort(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitport PORT")
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+args[0]); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("nothing listens on port %s", args[0])
}

// waitAds waits until the collector holds at least N ads (default 1) of a
// kind kite status selects with -KIND (schedd, negotiator, ...; "startd"
// for slots): daemons advertise a moment after they listen.
func waitAds(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitads KIND [N]")
	}
	want := 1
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil {
			ts.Fatalf("waitads: %v", err)
		}
		want = n
	}
	flag := "-" + args[0]
	if args[0] == "startd" {
		flag = "-total"
	}
	deadline := time.Now().Add(15 * time.Second)
	var out []byte
	for time.Now().Before(deadline) {
		cmd := exec.Command("kite", "status", flag, "-af", "Name")
		if args[0] == "startd" {
			cmd = exec.Command("kite", "status", "-af", "Name")
		}
		cmd.Env = append(os.Environ(), "KITE_HOME="+ts.Getenv("KITE_HOME"), "HOME="+ts.Getenv("HOME"), "PATH="+ts.Getenv("PATH"))
		cmd.Dir = ts.Getenv("WORK")
		out, _ = cmd.Output()
		if n := len(strings.Fields(string(out))); n >= want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("waitads %s: the collector has not got %d ad(s): %s", args[0], want, out)
}

// waitAttr waits until an attribute of a daemon's ad in the collector
// matches a regular expression: waitattr KIND ATTR REGEXP.
func waitAttr(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: waitattr KIND ATTR REGEXP")
	}
	re, err := regexp.Compile(args[2])
	if err != nil {
		ts.Fatalf("waitattr: %v", err)
	}
	deadline := time.Now().Add(15 * time.Second)
	var out string
	for time.Now().Before(deadline) {
		if out = kiteOut(ts, "status", "-"+args[0], "-af", args[1]); re.MatchString(out) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("waitattr: %s of the %s is %q, not matching %s", args[1], args[0], out, args[2])
}

// kiteOut runs a kite command as the script would and returns its output.
func kiteOut(ts *testscript.TestScript, args ...string) string {
	cmd := exec.Command("kite", args...)
	cmd.Env = append(os.Environ(), "KITE_HOME="+ts.Getenv("KITE_HOME"), "HOME="+ts.Getenv("HOME"), "PATH="+ts.Getenv("PATH"))
	cmd.Dir = ts.Getenv("WORK")
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

// daemonAttr is the master ad's attribute prefix of a daemon kind.
func daemonAttr(kind string) string { return strings.ToUpper(kind[:1]) + kind[1:] }

// killDaemon sends SIGKILL to a daemon its master runs.
func killDaemon(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: killdaemon KIND")
	}
	pid, err := strconv.Atoi(kiteOut(ts, "status", "-master", "-af", daemonAttr(args[0])+"Pid"))
	if err != nil || pid <= 0 {
		ts.Fatalf("no pid for the %s in the master ad", args[0])
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		ts.Fatalf("kill %d: %v", pid, err)
	}
	ts.Setenv("KILLED_"+strings.ToUpper(args[0]), strconv.Itoa(pid))
}

// waitDaemon waits until the master runs the daemon again, restarted
// after killdaemon.
func waitDaemon(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitdaemon KIND")
	}
	prefix := daemonAttr(args[0])
	killed := ts.Getenv("KILLED_" + strings.ToUpper(args[0]))
	deadline := time.Now().Add(60 * time.Second)
	var out string
	for time.Now().Before(deadline) {
		out = kiteOut(ts, "status", "-master", "-af", prefix+"State", prefix+"Pid")
		if f := strings.Fields(out); len(f) == 2 && f[0] == "running" && f[1] != killed {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	ts.Fatalf("waitdaemon %s: not running again: %q", args[0], out)
}

// waitMaster waits until this host's master, asked directly at the
// address $KITE_HOME's configuration gives it, reports the daemon in the
// state (kite off and on answer before the daemons have stopped or
// started, and the collector may be among them).
func waitMaster(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitmaster KIND STATE")
	}
	g := &globals{configPath: filepath.Join(ts.Getenv("KITE_HOME"), "kite.toml")}
	cfg, err := g.loadConfig()
	ts.Check(err)
	conn, err := g.connector(cfg)
	ts.Check(err)
	addr, ok := localMaster(cfg)
	if !ok {
		ts.Fatalf("waitmaster: the configuration gives the master no fixed address")
	}
	var res wire.MasterDaemons
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		res = wire.MasterDaemons{}
		if err := conn.Client(addr).Call(context.Background(), "GET", wire.PathMasterDaemons, nil, &res); err == nil {
			for _, d := range res.Daemons {
				if d.Name == args[0] && d.State == args[1] {
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("waitmaster: the %s is not %s: %+v", args[0], args[1], res.Daemons)
}

// runsDir makes a directory every user may write (jobs may run as nobody)
// and sets $RUNS to it.
func runsDir(ts *testscript.TestScript, neg bool, args []string) {
	dir, err := os.MkdirTemp("", "kite-runs-")
	if err != nil {
		ts.Fatalf("%v", err)
	}
	os.Chmod(dir, 0o777)
	ts.Defer(func() { os.RemoveAll(dir) })
	ts.Setenv("RUNS", dir)
}

// checkRuns checks the records jobs wrote into $RUNS: each job ID
// appends "done" to $RUNS/ID when a run finishes, and holds an exclusive
// lock on $RUNS/ID.lock while it runs, appending "overlap" to
// $RUNS/overlap when it cannot take it (another run of the same job still
// holds it). N jobs must have finished and none may have overlapped.
func checkRuns(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: checkruns N")
	}
	want, _ := strconv.Atoi(args[0])
	dir := ts.Getenv("RUNS")
	if b, err := os.ReadFile(filepath.Join(dir, "overlap")); err == nil {
		ts.Fatalf("jobs ran twice at the same time: %s", b)
	}
	entries, _ := os.ReadDir(dir)
	done := 0
	for _, e := range entries {
		if strings.Contains(e.Name(), ".") {
			continue
		}
		if b, _ := os.ReadFile(filepath.Join(dir, e.Name())); strings.Contains(string(b), "done") {
			done++
		}
	}
	if done != want {
		ts.Fatalf("%d jobs finished, want %d", done, want)
	}
}

// waitRunning waits until at least N jobs of the queue run.
func waitRunning(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitrun N")
	}
	want, _ := strconv.Atoi(args[0])
	deadline := time.Now().Add(30 * time.Second)
	var out string
	for time.Now().Before(deadline) {
		out = kiteOut(ts, "q", "-af", "JobStatus")
		if strings.Count(out, "2") >= want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("waitrun: fewer than %d jobs run: %q", want, out)
}

// userAccount returns an existing unprivileged account other than
// nobody: the owner of a multi-user script's jobs (the script maps an
// identity to it with schedd.identity_map), as ALICE and ALICE_UID.
func userAccount() (*runas.Account, bool) {
	for _, name := range []string{"daemon", "bin", "games", "man", "lp", "mail", "news"} {
		if a, err := runas.Lookup(name); err == nil && !a.Root() {
			return a, true
		}
	}
	return nil, false
}

// waitQueue waits until kite q -constraint CONSTRAINT lists N jobs.
func waitQueue(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitq CONSTRAINT N")
	}
	want, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("waitq: %v", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	var out string
	for time.Now().Before(deadline) {
		out = kiteOut(ts, "q", "-allusers", "-constraint", args[0], "-af", "ClusterId")
		if len(strings.Fields(out)) >= want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	ts.Fatalf("waitq: fewer than %d jobs with %s: %q\n%s", want, args[0], out, kiteOut(ts, "q", "-allusers", "-af", "ClusterId", "ProcId", "JobStatus", "HoldReason"))
}

// waitDone waits until job ID is in the history, completed.
func waitDone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitdone CLUSTER.PROC")
	}
	cluster, proc, _ := strings.Cut(args[0], ".")
	deadline := time.Now().Add(60 * time.Second)
	var out string
	for time.Now().Before(deadline) {
		if out = kiteOut(ts, "history", "-constraint", "ClusterId == "+cluster+" && ProcId == "+proc, "-af", "JobStatus"); out == "4" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	ts.Fatalf("waitdone: job %s has not completed: %q\n%s", args[0], out, kiteOut(ts, "q", "-allusers", "-af", "ClusterId", "ProcId", "JobStatus", "HoldReason"))
}
