//go:build linux

package ha

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kite-sched/kite/api"
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/pooltest/loopback"
	"github.com/kite-sched/kite/tools/cli"
)

// The test binary doubles as kite: run under the name kite, it is the
// kite command, so every daemon is a process of this binary's code.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "kite" {
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}

// cluster is a pool of separate daemon processes on loopback: central
// managers (a collector and a negotiator each), a schedd, startds.
type cluster struct {
	t          testing.TB
	kite, dir  string
	collectors []string // the collectors' addresses
	rafts      []string // the negotiators' Raft addresses
	procs      map[string]*exec.Cmd
	client     *api.Client
}

// options of a cluster.
type options struct {
	centralManagers int  // collectors and negotiators
	raft            bool // the negotiators form a Raft group
}

// newCluster writes the pool's configuration and keys; start* run its
// daemons.
func newCluster(t testing.TB, o options) *cluster {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary to run as kite: %v", err)
	}
	// The execute directory must be reachable by the account jobs run as
	// (nobody, when the test runs as root): a directory of its own, not
	// under the test's private temporary directory.
	dir, err := os.MkdirTemp("", "kite-ha-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	c := &cluster{t: t, kite: filepath.Join(dir, "kite"), dir: dir, procs: map[string]*exec.Cmd{}}
	t.Cleanup(c.stopAll)
	if err := os.Symlink(self, c.kite); err != nil {
		t.Fatal(err)
	}
	c.collectors = loopback.Addrs(t, o.centralManagers)
	if o.raft {
		c.rafts = loopback.Addrs(t, o.centralManagers)
	}
	c.run("init", "--dir", filepath.Join(dir, "pool"), "--name", "ha", "--collector", c.collectors[0])
	conf := fmt.Sprintf(configText, quoteList(c.collectors), slotUser())
	if err := os.WriteFile(c.path("kite.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := os.ReadFile(c.path("kite.token"))
	if err != nil {
		t.Fatal(err)
	}
	c.client = api.NewClient(api.Config{Collectors: c.collectors, Token: strings.TrimSpace(string(tok))})
	return c
}

// configText is the pool's configuration: daemons that advertise and
// negotiate every second, and gossip that notices a death in about one.
const configText = `[pool]
name = "ha"
collectors = [%s]
signing_key = "pool.key"
public_key = "pool.pub"
token_file = "kite.token"
state_dir = "state"

[membership]
bind = "127.0.0.1:0"
probe_interval = "200ms"
probe_timeout = "100ms"

[negotiator]
listen = "127.0.0.1:0"
interval = "1s"
cycle_delay = "100ms"
update_interval = "1s"
timeout = "5s"

[schedd]
listen = "127.0.0.1:0"
update_interval = "1s"

[startd]
listen = "127.0.0.1:0"
update_interval = "1s"
slots = 2
cpus = 2
partitionable = false
%s
`

// slotUser runs jobs as nobody when the test runs as root, as kite up
// does.
func slotUser() string {
	if os.Geteuid() == 0 {
		return `slot_user = "nobody"`
	}
	return ""
}

// quoteList writes a TOML list's items.
func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

func (c *cluster) path(name string) string { return filepath.Join(c.dir, "pool", name) }

// run runs a kite command to its end.
func (c *cluster) run(args ...string) string {
	c.t.Helper()
	cmd := exec.Command(c.kite, args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "KITE_CONFIG="+c.path("kite.toml"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("kite %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// start starts a daemon process named name: kite --set ... KIND.
func (c *cluster) start(name, kind string, sets ...string) {
	c.t.Helper()
	args := []string{"--config", c.path("kite.toml")}
	for _, s := range append(sets, "pool.state_dir=state/"+name) {
		args = append(args, "--set", s)
	}
	log, err := os.OpenFile(filepath.Join(c.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(c.kite, append(args, kind)...)
	cmd.Dir = c.dir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	log.Close()
	c.procs[name] = cmd
}

// startCentralManager starts the i-th collector and negotiator.
func (c *cluster) startCentralManager(i int) {
	c.startCollector(i)
	c.startNegotiator(i)
}

func (c *cluster) startCollector(i int) {
	c.start(fmt.Sprintf("collector%d", i), "collector", "collector.listen="+c.collectors[i])
}

func (c *cluster) startNegotiator(i int) {
	var sets []string
	if len(c.rafts) > 0 {
		sets = append(sets, "negotiator.raft.bind="+c.rafts[i], "negotiator.raft.peers="+strings.Join(c.rafts, ","))
	}
	c.start(fmt.Sprintf("negotiator%d", i), "negotiator", sets...)
}

// kill SIGKILLs a daemon process and reaps it.
func (c *cluster) kill(name string) {
	c.t.Helper()
	cmd := c.procs[name]
	if cmd == nil {
		c.t.Fatalf("no process %s", name)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	delete(c.procs, name)
}

// stopAll stops every process, gracefully first, and removes the pool.
func (c *cluster) stopAll() {
	for _, cmd := range c.procs {
		cmd.Process.Signal(syscall.SIGTERM)
	}
	for name, cmd := range c.procs {
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		delete(c.procs, name)
	}
	logs, _ := filepath.Glob(filepath.Join(c.dir, "*.log"))
	for _, l := range logs {
		if b, _ := os.ReadFile(l); strings.Contains(string(b), "WARNING: DATA RACE") {
			c.t.Errorf("%s: the race detector found a data race", filepath.Base(l))
		}
	}
	if c.t.Failed() {
		c.dumpLogs()
	}
	os.RemoveAll(c.dir)
}

// dumpLogs prints the daemons' logs' ends, for a failed test.
func (c *cluster) dumpLogs() {
	logs, _ := filepath.Glob(filepath.Join(c.dir, "*.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		c.t.Logf("--- %s\n%s", filepath.Base(l), b)
	}
}

// waitFor polls cond until it holds, for at most limit, and returns how
// long that took; it fails the test with what cond last said otherwise.
func (c *cluster) waitFor(limit time.Duration, what string, cond func() (bool, string)) time.Duration {
	c.t.Helper()
	start := time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		ok, state := cond()
		if ok {
			return time.Since(start)
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			c.t.Fatalf("%s: not within %v (%s)", what, limit, state)
		}
	}
}

// ads returns the ads of a type, from a collector that answers.
func (c *cluster) ads(adType, constraint string) ([]*classad.Ad, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.client.Collector().QueryAll(ctx, api.AdQuery{Type: adType, Constraint: constraint})
}

// leader returns the Raft id of the negotiator that leads and has run a
// cycle since after, by the ads of living negotiators ("" if none).
func (c *cluster) leader(after time.Time) (string, string) {
	ads, err := c.ads(attr.TypeNegotiator, "")
	if err != nil {
		return "", err.Error()
	}
	var seen []string
	for _, ad := range ads {
		id, _ := classad.EvalString(ad, attr.RaftID)
		state, _ := classad.EvalString(ad, attr.RaftState)
		cycle := classad.EvalIntOr(ad, "LastNegotiationCycleTime0", 0)
		seen = append(seen, fmt.Sprintf("%s %s cycle@%d", id, state, cycle))
		if state == "Leader" && c.alive(id) && cycle >= after.Unix() {
			return id, ""
		}
	}
	return "", strings.Join(seen, "; ")
}

// alive says whether the negotiator of Raft id runs.
func (c *cluster) alive(id string) bool {
	for i, r := range c.rafts {
		if r == id {
			_, ok := c.procs[fmt.Sprintf("negotiator%d", i)]
			return ok
		}
	}
	return len(c.rafts) == 0
}

// negotiatorOf names the process of the negotiator of Raft id.
func (c *cluster) negotiatorOf(id string) int {
	for i, r := range c.rafts {
		if r == id {
			return i
		}
	}
	c.t.Fatalf("no negotiator %s", id)
	return -1
}

// claimed counts the claimed slots of the startd named name.
func (c *cluster) claimed(name string) (int, error) {
	ads, err := c.ads(attr.TypeSlot, fmt.Sprintf(`State == "Claimed" && Machine == %q`, name))
	return len(ads), err
}

// usage returns a user's accumulated usage (hours) and real priority, as
// the negotiators' accountant says.
func (c *cluster) usage(user string) (api.Priority, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ps, err := c.client.Priorities(ctx)
	if err != nil {
		return api.Priority{}, err
	}
	for _, p := range ps {
		if p.User == user || strings.HasPrefix(p.User, user+"@") {
			return p, nil
		}
	}
	return api.Priority{}, errors.New("no account for " + user)
}
