package schedd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// The test binary doubles as a schedd: with KITE_SCHEDD_CHILD set it runs
// one from the configuration file named there, on loopback TCP, and writes
// its address to the file KITE_SCHEDD_ADDR names.
func TestMain(m *testing.M) {
	if conf := os.Getenv("KITE_SCHEDD_CHILD"); conf != "" {
		if err := runChild(conf, os.Getenv("KITE_SCHEDD_ADDR")); err != nil {
			fmt.Fprintln(os.Stderr, "child schedd:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(conf, addrFile string) error {
	cfg, err := config.Load(conf)
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	env, err := daemon.NewEnv(cfg, "schedd")
	if err != nil {
		return err
	}
	s, err := New(env, ConfigFrom(cfg))
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background()) }()
	select {
	case err := <-done:
		return err
	case <-s.Ready():
	}
	if err := os.WriteFile(addrFile+".tmp", []byte(s.Addr()), 0o644); err != nil {
		return err
	}
	if err := os.Rename(addrFile+".tmp", addrFile); err != nil {
		return err
	}
	return <-done
}

// child is a schedd process of the test.
type child struct {
	cmd  *exec.Cmd
	addr string
}

// startChild runs a schedd process on the configuration in dir.
func startChild(t *testing.T, dir string) *child {
	t.Helper()
	addrFile := filepath.Join(dir, "addr")
	os.Remove(addrFile)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "KITE_SCHEDD_CHILD="+filepath.Join(dir, "kite.toml"), "KITE_SCHEDD_ADDR="+addrFile)
	cmd.Stderr = os.Stderr
	if os.Getenv("KITE_TEST_LOG") == "" {
		cmd.Stderr = nil
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, err := os.ReadFile(addrFile); err == nil {
			return &child{cmd: cmd, addr: string(b)}
		}
		if time.Now().After(deadline) {
			t.Fatal("the child schedd did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ledger records what the schedd acknowledged, and what was in flight
// when it died.
type ledger struct {
	mu       sync.Mutex
	clusters map[int64]int    // acknowledged submits: procs
	pending  map[int64]int    // submits sent, not acknowledged
	edits    map[string]int64 // "cluster.proc Attr" → last acknowledged value
	inflight map[string]int64 // edits sent, not acknowledged
	// busy is closed once killAfter submits and edits are acknowledged:
	// the burst is in full swing, and the kill lands in its middle.
	busy      chan struct{}
	killAfter int
}

// acked notes an acknowledged change (the lock is held).
func (l *ledger) acked() {
	if l.killAfter--; l.killAfter == 0 {
		close(l.busy)
	}
}

// crashPool writes the configuration of a child schedd in a new
// directory, and returns it with a way to connect to the child as alice.
func crashPool(t *testing.T) (string, func(addr string) *wire.Client) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	if err := auth.GenerateKeys(filepath.Join(dir, "pool.key"), filepath.Join(dir, "pool.pub")); err != nil {
		t.Fatal(err)
	}
	conf := "[pool]\nname = \"crash\"\ncollector = \"127.0.0.1:1\"\nsigning_key = \"pool.key\"\npublic_key = \"pool.pub\"\nstate_dir = \"state\"\n" +
		"[schedd]\nlisten = \"127.0.0.1:0\"\nname = \"crashy\"\n" +
		fmt.Sprintf("identity_map = [%q]\n", ".* "+pooltest.SelfAccount(t)) +
		"[membership]\nenabled = false\n[log]\nlevel = \"warn\"\n"
	if err := os.WriteFile(filepath.Join(dir, "kite.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	key, err := auth.LoadSigningKey(filepath.Join(dir, "pool.key"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := auth.NewIssuer(key, "crash").Issue("alice", auth.Write, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	connect := func(addr string) *wire.Client {
		return wire.NewConnector(wire.ConnectorOptions{Token: wire.StaticToken(tok)}).Client(addr)
	}
	return dir, connect
}

// TestSurvivesSIGKILL kills a schedd in the middle of a burst of submits
// and edits; after a restart every acknowledged change is there, and
// nothing else: a submit is there whole or not at all, and an edit holds
// its last acknowledged value or the one in flight.
func TestSurvivesSIGKILL(t *testing.T) {
	dir, connect := crashPool(t)
	c := startChild(t, dir)
	l := &ledger{clusters: map[int64]int{}, pending: map[int64]int{}, edits: map[string]int64{}, inflight: map[string]int64{},
		busy: make(chan struct{}), killAfter: 200}
	client := connect(c.addr)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() { burst(client, l, g, stop) })
	}
	ended := make(chan struct{})
	go func() { wg.Wait(); close(ended) }()
	select {
	case <-l.busy:
	case <-ended:
		t.Fatal("the burst ended before the schedd was killed")
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait()
	close(stop)
	wg.Wait()
	if len(l.clusters) < 5 {
		t.Fatalf("only %d submits were acknowledged before the kill: the burst is too slow to test anything", len(l.clusters))
	}

	c = startChild(t, dir)
	ads := streamQuery(t, connect(c.addr), wire.PathQueue, wire.JobQuery{})
	l.check(t, ads)
	t.Logf("%d clusters and %d edits acknowledged; %d submits and %d edits in flight at the kill",
		len(l.clusters), len(l.edits), len(l.pending), len(l.inflight))
}

// burst submits clusters and edits jobs until stop, recording what was
// acknowledged.
func burst(c *wire.Client, l *ledger, g int, stop chan struct{}) {
	ctx := context.Background()
	attr := "W" + strconv.Itoa(g)
	for i := int64(1); ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		if i%3 != 0 {
			if !submitBurst(ctx, c, l, g, int(i%5)+1) {
				return
			}
			continue
		}
		l.mu.Lock()
		var target string
		for id := range l.clusters {
			target = strconv.FormatInt(id, 10) + ".0"
			break
		}
		key := target + " " + attr
		l.inflight[key] = i
		l.mu.Unlock()
		if target == "" {
			continue
		}
		err := c.Call(ctx, "POST", wire.PathEdit, wire.Edit{JobSelection: wire.JobSelection{IDs: []string{target}}, Attrs: map[string]string{attr: strconv.FormatInt(i, 10)}}, nil)
		if err != nil {
			return
		}
		l.mu.Lock()
		l.edits[key] = i
		l.acked()
		delete(l.inflight, key)
		l.mu.Unlock()
	}
}

func submitBurst(ctx context.Context, c *wire.Client, l *ledger, g, n int) bool {
	var nc wire.NewCluster
	if err := c.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		return false
	}
	ads := []*classad.Ad{mustParse(fmt.Sprintf(`[ Cmd = "/bin/true"; Burst = %d ]`, g))}
	for p := range n {
		ads = append(ads, mustParse(fmt.Sprintf(`[ ProcId = %d; Args = "%d.%d" ]`, p, nc.Cluster, p)))
	}
	l.mu.Lock()
	l.pending[nc.Cluster] = n
	l.mu.Unlock()
	err := c.CallRaw(ctx, "POST", wire.PathSubmit+"?cluster="+strconv.FormatInt(nc.Cluster, 10), classad.AppendJSONArray(nil, ads), nil)
	if err != nil {
		return false
	}
	l.mu.Lock()
	delete(l.pending, nc.Cluster)
	l.clusters[nc.Cluster] = n
	l.acked()
	l.mu.Unlock()
	return true
}

func mustParse(src string) *classad.Ad {
	ad, err := classad.Parse(src)
	if err != nil {
		panic(err)
	}
	return ad
}

// check compares the queue after the restart with the ledger.
func (l *ledger) check(t *testing.T, ads []*classad.Ad) {
	t.Helper()
	procs := map[int64]int{}
	values := map[string]string{}
	for _, ad := range ads {
		cl, _ := classad.EvalInt(ad, "ClusterId")
		p, _ := classad.EvalInt(ad, "ProcId")
		procs[cl]++
		if got, want := str(ad, "Args"), fmt.Sprintf("%d.%d", cl, p); got != want {
			t.Errorf("job %d.%d: Args %q, want %q", cl, p, got, want)
		}
		for i := range 8 {
			name := "W" + strconv.Itoa(i)
			if e, ok := ad.Lookup(name); ok {
				values[fmt.Sprintf("%d.%d %s", cl, p, name)] = classad.String(e)
			}
		}
	}
	for id, n := range l.clusters {
		if procs[id] != n {
			t.Errorf("acknowledged cluster %d: %d of %d jobs after the restart", id, procs[id], n)
		}
	}
	for id, n := range procs {
		if _, acked := l.clusters[id]; acked {
			continue
		}
		if want, sent := l.pending[id]; !sent || want != n {
			t.Errorf("cluster %d has %d jobs after the restart, but it was never acknowledged (in flight: %v with %d)", id, n, sent, want)
		}
	}
	for key, v := range l.edits {
		got := values[key]
		inflight, ok := l.inflight[key]
		if got != strconv.FormatInt(v, 10) && !(ok && got == strconv.FormatInt(inflight, 10)) {
			t.Errorf("%s = %s after the restart; acknowledged %d", key, got, v)
		}
	}
	for key, got := range values {
		if _, acked := l.edits[key]; acked {
			continue
		}
		if v, ok := l.inflight[key]; !ok || got != strconv.FormatInt(v, 10) {
			t.Errorf("%s = %s after the restart, never acknowledged", key, got)
		}
	}
	if t.Failed() {
		t.Logf("queue after the restart: %s", strings.Join(summaryLines(ads), "; "))
	}
}

func summaryLines(ads []*classad.Ad) []string {
	var out []string
	for _, ad := range ads {
		out = append(out, ad.String())
	}
	return out
}
