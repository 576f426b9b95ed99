package master_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/master"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// The master's children in these tests are this test binary playing a
// daemon: it notes what happens to it in a journal and behaves as told
// by FAKE_<KIND> (run, crash, or crashonce).
func TestMain(m *testing.M) {
	if kind := os.Getenv("FAKE_DAEMON"); kind != "" {
		os.Exit(fakeDaemon(kind))
	}
	os.Exit(m.Run())
}

func fakeDaemon(kind string) int {
	dir := os.Getenv("FAKE_DIR")
	note := func(what string) {
		f, err := os.OpenFile(filepath.Join(dir, "journal"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s\n", what, kind)
			f.Close()
		}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	note("start")
	switch os.Getenv("FAKE_" + strings.ToUpper(kind)) {
	case "crash":
		note("crash")
		return 1
	case "crashonce":
		marker := filepath.Join(dir, kind+".crashed")
		if _, err := os.Stat(marker); err != nil {
			os.WriteFile(marker, nil, 0o644)
			note("crash")
			return 3
		}
	}
	for sig := range sigs {
		if sig == syscall.SIGHUP {
			note("hup")
			continue
		}
		note("stop")
		return 0
	}
	return 0
}

type fixture struct {
	t   *testing.T
	dir string
	m   *master.Server
	p   *pooltest.Pool
}

func startMaster(t *testing.T, daemons []string, behave map[string]string, edit func(*master.Config)) *fixture {
	t.Helper()
	p := pooltest.New(t)
	dir := t.TempDir()
	cmd := func(kind string) *exec.Cmd {
		c := exec.Command(os.Args[0], "-test.run=^$")
		c.Env = append(os.Environ(), "FAKE_DAEMON="+kind, "FAKE_DIR="+dir)
		for k, v := range behave {
			c.Env = append(c.Env, "FAKE_"+strings.ToUpper(k)+"="+v)
		}
		return c
	}
	cfg := master.Config{
		Listen: "master:1", Daemons: daemons, Command: cmd, LogDir: filepath.Join(dir, "log"),
		BackoffConstant: 20 * time.Millisecond, BackoffUnit: time.Millisecond, BackoffFactor: 2,
		BackoffCeiling: 300 * time.Millisecond, RecoverAfter: time.Hour, UpdateInterval: time.Hour,
		StopGrace: 5 * time.Second,
	}
	if edit != nil {
		edit(&cfg)
	}
	m, err := master.New(p.Env("master"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	f := &fixture{t: t, dir: dir, m: m, p: p}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("master: %v", err)
		}
	})
	select {
	case <-m.Ready():
	case err := <-done:
		t.Fatal(err)
	}
	return f
}

// count counts journal lines "what kind".
func (f *fixture) count(what string) int {
	n := 0
	for _, l := range f.journal() {
		if strings.HasPrefix(l, what+" ") {
			n++
		}
	}
	return n
}

func (f *fixture) journal() []string {
	b, _ := os.ReadFile(filepath.Join(f.dir, "journal"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// waitFor polls cond until it holds.
func (f *fixture) waitFor(what string, cond func() bool) {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out waiting for %s; daemons %+v; journal %q", what, f.m.Daemons(), f.journal())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (f *fixture) state(kind string) wire.DaemonStatus {
	for _, d := range f.m.Daemons() {
		if d.Name == kind {
			return d
		}
	}
	return wire.DaemonStatus{}
}

func (f *fixture) allRunning() bool {
	for _, d := range f.m.Daemons() {
		if d.State != wire.DaemonRunning {
			return false
		}
	}
	return true
}

func TestStopsDaemonsInOrder(t *testing.T) {
	f := startMaster(t, []string{"startd", "schedd", "collector", "negotiator"}, nil, nil)
	f.waitFor("every daemon running", func() bool {
		return f.allRunning() && f.count("start") == 4
	})
	var got []string
	for _, d := range f.m.Daemons() {
		got = append(got, d.Name)
	}
	if want := []string{"collector", "negotiator", "schedd", "startd"}; !slices.Equal(got, want) {
		t.Errorf("daemons in start order %v, want %v", got, want)
	}
	// Off for the master: everything stops, the negotiator first and the
	// collector last.
	admin := f.p.Client("master:1", "root", auth.Administrator)
	if err := admin.Call(context.Background(), "POST", wire.PathMasterOff, wire.MasterCommand{Master: true}, nil); err != nil {
		t.Fatal(err)
	}
	f.waitFor("every daemon stopped", func() bool { return f.count("stop") == 4 })
	var stops []string
	for _, l := range f.journal() {
		if strings.HasPrefix(l, "stop ") {
			stops = append(stops, strings.TrimPrefix(l, "stop "))
		}
	}
	if want := []string{"negotiator", "startd", "schedd", "collector"}; !slices.Equal(stops, want) {
		t.Errorf("stop order %v, want %v", stops, want)
	}
}

func TestRestartsCrashedDaemonWithBackoff(t *testing.T) {
	f := startMaster(t, []string{"schedd", "startd"}, map[string]string{"schedd": "crash", "startd": "crashonce"}, nil)
	f.waitFor("the startd running after one crash", func() bool {
		st := f.state("startd")
		return st.State == wire.DaemonRunning && st.Restarts == 1
	})
	if st := f.state("startd"); st.LastExit != "" {
		t.Errorf("a running daemon shows its last exit %q", st.LastExit)
	}
	f.waitFor("the schedd restarted several times", func() bool { return f.state("schedd").Restarts >= 4 })
	st := f.state("schedd")
	if st.LastExit != "exit status 1" || (st.State != wire.DaemonBackoff && st.State != wire.DaemonRunning) {
		t.Errorf("crashing schedd: %+v", st)
	}
	// The waits grow: 20 ms + 2^n ms, up to the 300 ms ceiling.
	if st.State == wire.DaemonBackoff {
		if wait := st.NextStart.Sub(st.Since); wait < 20*time.Millisecond || wait > 300*time.Millisecond {
			t.Errorf("backoff %v outside [20ms, 300ms]", wait)
		}
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, "log", "schedd.log")); err != nil || len(b) == 0 && err != nil {
		t.Errorf("no schedd log: %v", err)
	}
}

func TestCommands(t *testing.T) {
	f := startMaster(t, []string{"schedd", "startd"}, nil, nil)
	f.waitFor("daemons running", f.allRunning)
	ctx := context.Background()
	admin := f.p.Client("master:1", "root", auth.Administrator)
	user := f.p.Client("master:1", "alice", auth.Write)
	if err := user.Call(ctx, "POST", wire.PathMasterOff, wire.MasterCommand{}, nil); !wire.IsCode(err, wire.CodeForbidden) {
		t.Fatalf("a user turned daemons off: %v", err)
	}
	var res wire.MasterDaemons
	if err := admin.Call(ctx, "POST", wire.PathMasterOff, wire.MasterCommand{Daemons: []string{"schedd"}}, &res); err != nil {
		t.Fatal(err)
	}
	f.waitFor("the schedd off", func() bool { return f.state("schedd").State == wire.DaemonStopped })
	if f.state("startd").State != wire.DaemonRunning {
		t.Error("turning the schedd off touched the startd")
	}
	if err := admin.Call(ctx, "POST", wire.PathMasterOn, wire.MasterCommand{Daemons: []string{"schedd"}}, nil); err != nil {
		t.Fatal(err)
	}
	f.waitFor("the schedd on again", func() bool { return f.state("schedd").State == wire.DaemonRunning })

	pid := f.state("startd").PID
	if err := admin.Call(ctx, "POST", wire.PathMasterRestart, wire.MasterCommand{Daemons: []string{"startd"}}, nil); err != nil {
		t.Fatal(err)
	}
	f.waitFor("the startd restarted", func() bool {
		st := f.state("startd")
		return st.State == wire.DaemonRunning && st.PID != pid && st.PID != 0
	})
	if err := admin.Call(ctx, "POST", wire.PathMasterOff, wire.MasterCommand{Daemons: []string{"gpu"}}, nil); !wire.IsCode(err, wire.CodeBadRequest) {
		t.Errorf("an unknown daemon: %v", err)
	}
	if err := admin.Call(ctx, "POST", wire.PathMasterOff, wire.MasterCommand{Daemons: []string{"collector"}}, nil); !wire.IsCode(err, wire.CodeNotFound) {
		t.Errorf("a daemon this master does not run: %v", err)
	}
	var list wire.MasterDaemons
	if err := user.Call(ctx, "GET", wire.PathMasterDaemons, nil, &list); err != nil || len(list.Daemons) != 2 {
		t.Errorf("daemons: %+v %v", list, err)
	}
	pooltest.CheckDocumented(t, f.m.Routes())
}

func TestReconfigSendsHangupAndFollowsTheList(t *testing.T) {
	reloaded := pooltest.New(t).Config
	reloaded.Master.Daemons = []string{"schedd", "negotiator"}
	f := startMaster(t, []string{"schedd", "startd"}, nil, func(c *master.Config) {
		c.Reload = func() (*config.Config, error) { return reloaded, nil }
	})
	f.waitFor("daemons running", func() bool { return f.allRunning() && f.count("start") == 2 })
	admin := f.p.Client("master:1", "root", auth.Administrator)
	if err := admin.Call(context.Background(), "POST", wire.PathMasterReconfig, wire.MasterCommand{}, nil); err != nil {
		t.Fatal(err)
	}
	f.waitFor("the new list applied", func() bool {
		j := strings.Join(f.journal(), "\n")
		return strings.Contains(j, "hup schedd") && strings.Contains(j, "start negotiator") &&
			strings.Contains(j, "stop startd") && f.state("negotiator").State == wire.DaemonRunning
	})
}

// A reconfig answers which changed keys the daemons apply only when they
// restart: those of the daemons this master runs and of every daemon, not
// the keys applied live (the concurrency limits) nor those of daemons
// that run elsewhere (issue 15, finding 7).
func TestReconfigNamesKeysThatNeedARestart(t *testing.T) {
	started := pooltest.New(t).Config
	started.Master.Daemons = []string{"schedd", "negotiator"}
	reloaded := *started
	reloaded.Schedd.Listen = "127.0.0.1:9999"
	reloaded.Startd.Name = "elsewhere" // no startd on this host
	reloaded.Log.Level = "debug"
	reloaded.Negotiator.Limits = map[string]float64{"sw_a": 1}
	f := startMaster(t, []string{"schedd", "negotiator"}, nil, func(c *master.Config) {
		c.Loaded = started
		c.Reload = func() (*config.Config, error) { return &reloaded, nil }
	})
	f.waitFor("daemons running", f.allRunning)
	admin := f.p.Client("master:1", "root", auth.Administrator)
	var res wire.MasterDaemons
	if err := admin.Call(context.Background(), "POST", wire.PathMasterReconfig, wire.MasterCommand{}, &res); err != nil {
		t.Fatal(err)
	}
	if want := []string{"log.level", "schedd.listen"}; !slices.Equal(res.NeedRestart, want) {
		t.Errorf("need restart: %q, want %q", res.NeedRestart, want)
	}
	// The same configuration again: nothing changed since.
	var again wire.MasterDaemons
	if err := admin.Call(context.Background(), "POST", wire.PathMasterReconfig, wire.MasterCommand{}, &again); err != nil || len(again.NeedRestart) != 0 {
		t.Errorf("second reconfig: %q %v", again.NeedRestart, err)
	}
}
