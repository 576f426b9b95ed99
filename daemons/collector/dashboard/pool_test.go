package dashboard_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/collector"
	"github.com/kite-sched/kite/daemons/collector/dashboard"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// testPool is a pool on loopback TCP (a browser must reach it): a
// collector sampling every 100 ms, a negotiator, a schedd and a startd
// "exec" of four slots serving two SITA-E intervals (boundary 10), with
// alice's jobs: three of size 5 (two run in interval 1, one waits), one
// of size 50 running in interval 2, and one held.
type testPool struct {
	p    *pooltest.Pool
	col  *collector.Server
	base string // http://collector/
}

func newTestPool(t *testing.T) *testPool {
	p := pooltest.New(t)
	p.Network = wire.TCP
	addr := freeAddr(t)
	p.Config.Pool.Collector, p.Config.Collector.Listen = addr, addr
	p.Config.Collector.SampleInterval = config.Duration{Duration: 100 * time.Millisecond}
	p.Config.Startd.Slots, p.Config.Startd.Cpus, p.Config.Startd.Partitionable = 4, 4, false
	p.Config.Startd.Memory = 2048
	p.Config.Startd.Sita = config.Sita{Attribute: "ImageSize", Intervals: 2, Source: "config", K: 1, P: 100, A: 1,
		Hosts: map[string]int{"slot1@exec": 1, "slot2@exec": 1, "slot3@exec": 2, "slot4@exec": 2}}
	tp := &testPool{p: p, col: start.Collector(t, p), base: "http://" + addr}
	start.Negotiator(t, p, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "127.0.0.1:0", 5*time.Millisecond, time.Second
	})
	sd := start.Schedd(t, p, "127.0.0.1:0", func(c *schedd.Config) { c.Name = "schedd@test" })
	start.Startd(t, p, "127.0.0.1:0", "exec", func(c *startd.Config) { c.UpdateInterval = 200 * time.Millisecond })
	tp.submit(t, sd.Addr(), "executable = /bin/sleep\narguments = 60\ntransfer_executable = false\nimage_size = 5\nqueue 3\n")
	tp.submit(t, sd.Addr(), "executable = /bin/sleep\narguments = 60\ntransfer_executable = false\nimage_size = 50\nqueue\n")
	tp.submit(t, sd.Addr(), "executable = /bin/true\nhold = true\nqueue\n")
	tp.waitRunning(t, 3)
	return tp
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// submit queues a submit description's jobs as alice.
func (tp *testPool) submit(t *testing.T, scheddAddr, text string) {
	t.Helper()
	dir := t.TempDir()
	d, _, err := submit.Parse(filepath.Join(dir, "job.sub"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	cl := tp.p.Client(scheddAddr, "alice", auth.Write)
	ctx := context.Background()
	var nc wire.NewCluster
	if err := cl.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		t.Fatal(err)
	}
	env := submit.LocalEnv(dir)
	env.Cluster, env.Owner = int(nc.Cluster), nc.Owner
	c, _, err := d.Expand(env)
	if err != nil {
		t.Fatal(err)
	}
	path := wire.PathSubmit + "?cluster=" + strconv.FormatInt(nc.Cluster, 10)
	if err := cl.CallRaw(ctx, "POST", path, c.AppendJSON(nil), nil); err != nil {
		t.Fatal(err)
	}
}

// get fetches a path of the collector with a token of the levels given
// (none: no token) and returns the status and body.
func (tp *testPool) get(t *testing.T, path string, levels auth.Level) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", tp.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if levels != 0 {
		req.Header.Set("Authorization", "Bearer "+tp.p.Token("viewer", levels))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

// api decodes a dashboard endpoint's answer, fetched with a READ token.
func (tp *testPool) api(t *testing.T, path string, v any) {
	t.Helper()
	code, _, body := tp.get(t, path, auth.Read)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, body)
	}
}

// waitRunning waits until the submitter ads say n of alice's jobs run and
// the collector has sampled it.
func (tp *testPool) waitRunning(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var ov dashboard.Overview
		tp.api(t, "/v1/dashboard/overview", &ov)
		var h dashboard.History
		tp.api(t, "/v1/dashboard/history", &h)
		last := dashboard.PoolSample{}
		if len(h.Samples) > 0 {
			last = h.Samples[len(h.Samples)-1]
		}
		// The accountant knows the owner from the first cycle that sees her
		// slots claimed: wait for that too.
		if len(ov.Owners) == 1 && ov.Owners[0].Running == n && ov.Owners[0].Held == 1 && ov.Owners[0].Priority != nil &&
			last.Running == n && last.CpusBusy == float64(n) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d jobs do not run: %+v, last sample %+v", n, ov, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The endpoints answer what the pool holds, to READ tokens only; the page
// is public and locked down.
func TestEndpoints(t *testing.T) {
	tp := newTestPool(t)

	var ov dashboard.Overview
	tp.api(t, "/v1/dashboard/overview", &ov)
	if ov.Pool != "test" || ov.Slots.Total != 4 || ov.Slots.States["Claimed"] != 3 || ov.Slots.Cpus != 4 || ov.Slots.Machines != 1 {
		t.Errorf("slots: %+v", ov.Slots)
	}
	o := ov.Owners[0]
	if !strings.HasPrefix(o.Name, "alice@") || o.Idle != 1 || o.Priority == nil || o.Priority.Factor <= 0 || len(o.Schedds) != 1 {
		t.Errorf("owner: %+v %+v", o, o.Priority)
	}
	if len(ov.Errors) != 0 || ov.Cycle == nil || ov.Cycle.Number < 1 {
		t.Errorf("errors %q, cycle %+v", ov.Errors, ov.Cycle)
	}
	types := map[string]int{}
	for _, d := range ov.Daemons {
		types[d.Type]++
	}
	if types["Collector"] != 1 || types["Negotiator"] != 1 || types["Scheduler"] != 1 {
		t.Errorf("daemons: %+v", ov.Daemons)
	}

	var q dashboard.Queues
	tp.api(t, "/v1/dashboard/queue?limit=4", &q)
	if len(q.Schedds) != 1 || q.Limit != 4 {
		t.Fatalf("queue: %+v", q)
	}
	sq := q.Schedds[0]
	if sq.Schedd != "schedd@test" || sq.Error != "" || sq.Totals == nil || sq.Totals.Jobs != 5 || sq.Totals.Running != 3 || !sq.Truncated || len(sq.Jobs) != 4 {
		t.Errorf("schedd's queue: %+v", sq)
	}
	if sq.Jobs[0].ID != "1.0" {
		t.Errorf("the queue does not begin with job 1.0: %+v", sq.Jobs[0])
	}
	// Two of the three jobs of cluster 1 run, whichever the negotiator
	// picked: the first running one shows where.
	i := slices.IndexFunc(sq.Jobs, func(j dashboard.Job) bool { return j.St == "R" })
	if i < 0 {
		t.Fatalf("no running job listed: %+v", sq.Jobs)
	}
	if j := sq.Jobs[i]; j.Owner != "alice" || j.Cmd != "/bin/sleep" || j.Host == "" {
		t.Errorf("a running job: %+v", j)
	}

	var ms struct{ Machines []dashboard.Machine }
	tp.api(t, "/v1/dashboard/machines", &ms)
	if len(ms.Machines) != 1 || ms.Machines[0].Name != "exec" || ms.Machines[0].CpusBusy != 3 {
		t.Errorf("machines: %+v", ms)
	}
	var m dashboard.MachineDetail
	tp.api(t, "/v1/dashboard/machines/EXEC", &m)
	if m.Machine.Slots != 4 || len(m.Ads) != 4 || len(m.History) == 0 || m.Reliability["KFlops"] == nil {
		t.Errorf("machine: %+v, %d ads, %d samples, reliability %v", m.Machine, len(m.Ads), len(m.History), m.Reliability)
	}
	for _, a := range m.Ads {
		if strings.Contains(string(a), "ClaimId") {
			t.Errorf("a slot ad with its claim id: %s", a)
		}
	}

	var sl dashboard.SitaLoads
	tp.api(t, "/v1/dashboard/sita", &sl)
	if !sl.Enabled || len(sl.Intervals) != 2 || sl.Unsized != 0 || len(sl.Errors) != 0 {
		t.Fatalf("sita: %+v", sl)
	}
	one, two := sl.Intervals[0], sl.Intervals[1]
	if one.RunningJobs != 2 || one.IdleJobs != 1 || one.Busy != 2 || *one.Upper != 10 || two.RunningJobs != 1 || two.RunningLoad != 50 || two.Busy != 1 {
		t.Errorf("intervals: %+v %+v", one, two)
	}

	var h dashboard.History
	tp.api(t, "/v1/dashboard/history", &h)
	if h.Interval != 0.1 || len(h.Samples) < 2 || h.Samples[len(h.Samples)-1].Slots != 4 {
		t.Errorf("history: %v s, %d samples", h.Interval, len(h.Samples))
	}

	var targets []collector.TargetGroup
	tp.api(t, collector.PathTargets, &targets)
	kinds := []string{}
	for _, g := range targets {
		if len(g.Targets) != 1 || !strings.HasPrefix(g.Targets[0], "127.0.0.1:") || g.Labels["kite_pool"] != "test" {
			t.Errorf("target group %+v", g)
		}
		kinds = append(kinds, g.Labels["kite_daemon"])
	}
	if want := []string{"collector", "negotiator", "schedd", "startd"}; !slices.Equal(kinds, want) {
		t.Errorf("targets of %v, want %v (one per daemon)", kinds, want)
	}

	for _, c := range []struct {
		path   string
		levels auth.Level
		code   int
		want   string
	}{
		{"/v1/dashboard/overview", 0, 401, "no token"},
		{"/v1/dashboard/queue", 0, 401, "no token"},
		{"/v1/dashboard/queue?limit=0", auth.Read, 400, "limit"},
		{"/v1/dashboard/machines/nowhere", auth.Read, 404, `no machine \"nowhere\"`},
		{"/dashboard/", 0, 200, `<main id="view"`},
		{"/dashboard", 0, 200, `<main id="view"`}, // redirected to /dashboard/
		{"/dashboard/app.js", 0, 200, "takeTokenFromFragment"},
		{"/dashboard/style.css", 0, 200, "--accent"},
		{"/dashboard/missing.js", 0, 404, ""},
	} {
		code, header, body := tp.get(t, c.path, c.levels)
		if code != c.code || !strings.Contains(string(body), c.want) {
			t.Errorf("GET %s: %d %.200s, want %d with %q", c.path, code, body, c.code, c.want)
		}
		if strings.HasPrefix(c.path, "/dashboard") && code == 200 &&
			(!strings.Contains(header.Get("Content-Security-Policy"), "default-src 'self'") || header.Get("X-Content-Type-Options") != "nosniff") {
			t.Errorf("GET %s: headers %v", c.path, header)
		}
	}
}
