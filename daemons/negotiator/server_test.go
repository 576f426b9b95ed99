package negotiator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/fairshare"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/wire"
)

// fakeSchedd answers the negotiator as a schedd would: one autocluster of
// idle jobs per submitter, and it records the matches it is sent.
type fakeSchedd struct {
	mu       sync.Mutex
	idle     map[string]int // submitter → idle jobs
	limits   string         // the jobs' ConcurrencyLimits ("": none)
	queries  []wire.RequestsQuery
	matches  []wire.Match
	received chan struct{}
}

func startSchedd(t *testing.T, p *pooltest.Pool, addr string, idle map[string]int) *fakeSchedd {
	f := &fakeSchedd{idle: idle, received: make(chan struct{}, 100)}
	env := p.Env("schedd")
	m := env.Mux()
	m.Handle("POST "+wire.PathResourceRequests, auth.Daemon, func(ctx context.Context, r *wire.Request) (any, error) {
		var q wire.RequestsQuery
		if err := r.Decode(&q); err != nil {
			return nil, err
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.queries = append(f.queries, q)
		n := f.idle[q.Submitter]
		if n == 0 {
			return wire.ResourceRequests{}, nil
		}
		ad, _ := classad.Parse(fmt.Sprintf(`[MyType="Job"; Owner=%q; User=%q; RequestCpus=1; RequestMemory=512; RequestDisk=100;
			Requirements = TARGET.Memory >= RequestMemory]`, q.Submitter, q.Submitter))
		if f.limits != "" {
			ad.Set("ConcurrencyLimits", ast.Str(f.limits))
		}
		return wire.ResourceRequests{Requests: []wire.ResourceRequest{{ID: "ac1", Count: n, Ad: ad}}}, nil
	})
	m.Handle("POST "+wire.PathMatches, auth.Daemon, func(ctx context.Context, r *wire.Request) (any, error) {
		var in wire.Matches
		if err := r.Decode(&in); err != nil {
			return nil, err
		}
		f.mu.Lock()
		f.matches = append(f.matches, in.Matches...)
		f.idle[in.Submitter] -= len(in.Matches)
		f.mu.Unlock()
		f.received <- struct{}{}
		return wire.MatchesResult{Accepted: len(in.Matches)}, nil
	})
	l, err := env.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { wire.Serve(ctx, l, m, nil, time.Second, env.Log); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return f
}

func (f *fakeSchedd) wait(t *testing.T) {
	t.Helper()
	select {
	case <-f.received:
	case <-time.After(5 * time.Second):
		t.Fatal("no matches arrived")
	}
}

// advertise stores ads in the collector as a daemon.
func advertise(t *testing.T, p *pooltest.Pool, srcs ...string) {
	t.Helper()
	var ads []*classad.Ad
	for _, s := range srcs {
		ad, err := classad.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ads = append(ads, ad)
	}
	c := p.Client("collector:9618", "startd@test", auth.Daemon)
	var res wire.UpdateAdsResult
	if err := c.CallRaw(context.Background(), "POST", wire.PathAds, classad.AppendJSONArray(nil, ads), &res); err != nil {
		t.Fatal(err)
	}
}

func slot(name string, seq int) string {
	return fmt.Sprintf(`[MyType="Machine"; Name=%q; MyAddress="startd:1"; State="Unclaimed"; Activity="Idle"; Cpus=1; Memory=2048; Disk=10000;
		Requirements=true; ClaimId="secret-%s"; DaemonStartTime=1; UpdateSequenceNumber=%d]`, name, name, seq)
}

func submitterAd(user, schedd string, idle int) string {
	return fmt.Sprintf(`[MyType="Submitter"; Name=%q; ScheddName="schedd"; MyAddress=%q; IdleJobs=%d; RunningJobs=0]`, user, schedd, idle)
}

func fastConfig(c *negotiator.Config) {
	c.Interval = time.Hour // cycles only when asked
	c.CycleDelay = 10 * time.Millisecond
	c.Seed = 7
}

func TestCycleSendsMatchesWithClaimIDs(t *testing.T) {
	synctest.Test(t, testCycleSendsMatchesWithClaimIDs)
}

func testCycleSendsMatchesWithClaimIDs(t *testing.T) {
	p := pooltest.New(t)
	start.Collector(t, p)
	f := startSchedd(t, p, "schedd:1", map[string]int{"alice@test": 3})
	advertise(t, p, slot("slot1@a", 1), slot("slot2@a", 1), slot("slot1@b", 1), slot("slot2@b", 1),
		submitterAd("alice@test", "schedd:1", 3))
	n := start.Negotiator(t, p, fastConfig)
	n.Reschedule()
	f.wait(t)
	f.mu.Lock()
	if len(f.matches) != 3 {
		t.Fatalf("%d matches, want 3", len(f.matches))
	}
	for _, m := range f.matches {
		v, _ := classad.EvalAttr(m.Slot, "ClaimId", nil)
		if s, _ := v.StringValue(); len(s) < len("secret-") || m.Request != "ac1" {
			t.Errorf("match %v lacks the slot's claim id or the request", m)
		}
	}
	sig := f.queries[0].Significant
	f.mu.Unlock()
	for _, want := range []string{"RequestCpus", "RequestMemory", "RequestDisk", "ConcurrencyLimits"} {
		found := false
		for _, s := range sig {
			found = found || s == want
		}
		if !found {
			t.Errorf("significant attributes %v lack %s", sig, want)
		}
	}

	// The slots have not re-advertised: the next cycle must not match
	// them again, and the one left goes to the new jobs.
	f.mu.Lock()
	f.idle["alice@test"] = 5
	f.mu.Unlock()
	n.Reschedule()
	f.wait(t)
	f.mu.Lock()
	got := len(f.matches)
	f.mu.Unlock()
	if got != 4 {
		t.Errorf("%d matches after the second cycle, want 4: pending slots were matched twice", got)
	}
	rep := waitCycle(t, n, 2)
	if rep.Number != 2 || rep.Matches != 1 || rep.Rejections["busy"] != 4 {
		t.Errorf("report %+v: want cycle 2, 1 match, 4 jobs waiting for busy slots", rep)
	}
}

func TestUnreachableScheddDoesNotStopTheCycle(t *testing.T) {
	synctest.Test(t, testUnreachableScheddDoesNotStopTheCycle)
}

func testUnreachableScheddDoesNotStopTheCycle(t *testing.T) {
	p := pooltest.New(t)
	start.Collector(t, p)
	f := startSchedd(t, p, "schedd:1", map[string]int{"bob@test": 1})
	advertise(t, p, slot("slot1@a", 1), submitterAd("alice@test", "gone:1", 5), submitterAd("bob@test", "schedd:1", 1))
	n := start.Negotiator(t, p, fastConfig)
	n.Reschedule()
	f.wait(t)
	if rep := waitCycle(t, n, 1); len(rep.Unreachable) != 1 || rep.Unreachable[0] != "gone:1" || rep.Matches != 1 {
		t.Errorf("report %+v: want gone:1 unreachable and bob matched", rep)
	}
}

// waitCycle waits until the negotiator has reported cycle number. The
// test runs in a synctest bubble: the cycles come on its fake clock, and
// the wait moves that clock on only while nothing else is to happen.
func waitCycle(t *testing.T, n *negotiator.Server, number int64) wire.CycleReport {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		synctest.Wait()
		if rep := n.LastCycle(); rep.Number >= number {
			return rep
		}
		if time.Now().After(deadline) {
			t.Fatalf("no report of cycle %d", number)
		}
		time.Sleep(time.Millisecond) // the bubble's clock
	}
}

func TestPrioritiesEndpoints(t *testing.T) {
	p := pooltest.New(t)
	start.Collector(t, p)
	n := start.Negotiator(t, p, func(c *negotiator.Config) { c.Interval, c.CycleDelay = time.Hour, time.Hour })
	if err := n.Accountant().Update(time.Now(), map[string]float64{"alice@test": 2}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	user := p.Client(n.Addr(), "alice", auth.Write)
	var prios wire.Priorities
	if err := user.Call(ctx, "GET", wire.PathPriorities, nil, &prios); err != nil {
		t.Fatal(err)
	}
	if len(prios.Users) != 1 || prios.Users[0].User != "alice@test" || prios.Users[0].Factor != 1000 || prios.Users[0].InUse != 2 {
		t.Errorf("priorities %+v", prios)
	}
	err := user.Call(ctx, "POST", wire.PathSetFactor, wire.SetFactor{User: "alice@test", Factor: 1}, nil)
	if !wire.IsCode(err, wire.CodeForbidden) {
		t.Errorf("a user set a factor: %v", err)
	}
	admin := p.Client(n.Addr(), "root", auth.Administrator)
	var pr wire.Priority
	if err := admin.Call(ctx, "POST", wire.PathSetFactor, wire.SetFactor{User: "alice@test", Factor: 10}, &pr); err != nil || pr.Factor != 10 || pr.Effective != 5 {
		t.Errorf("set factor: %+v %v", pr, err)
	}
	if err := admin.Call(ctx, "POST", wire.PathSetFactor, wire.SetFactor{User: "alice@test", Factor: 0}, &pr); !wire.IsCode(err, wire.CodeBadRequest) {
		t.Errorf("a zero factor: %v", err)
	}
	if err := admin.Call(ctx, "POST", wire.PathResetUsage, wire.ResetUsage{User: "nobody"}, &pr); !wire.IsCode(err, wire.CodeNotFound) {
		t.Errorf("reset of an unknown user: %v", err)
	}
	if err := admin.Call(ctx, "POST", wire.PathResetUsage, wire.ResetUsage{User: "alice@test"}, &pr); err != nil || pr.Real != fairshare.MinPriority {
		t.Errorf("reset: %+v %v", pr, err)
	}
}

func TestNegotiatorAdAndDocs(t *testing.T) {
	synctest.Test(t, testNegotiatorAdAndDocs)
}

func testNegotiatorAdAndDocs(t *testing.T) {
	p := pooltest.New(t)
	start.Collector(t, p)
	f := startSchedd(t, p, "schedd:1", map[string]int{"alice@test": 1})
	advertise(t, p, slot("slot1@a", 1), submitterAd("alice@test", "schedd:1", 1))
	n := start.Negotiator(t, p, fastConfig)
	n.Reschedule()
	f.wait(t)
	synctest.Wait() // the cycle is over and the negotiator advertised it
	c := p.Client("collector:9618", "alice", auth.Read)
	var found []*classad.Ad
	err := c.Stream(context.Background(), "POST", wire.PathQuery, wire.Query{Type: "Negotiator"}, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		found = append(found, ad)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 {
		t.Fatalf("%d negotiator ads, want 1", len(found))
	}
	v, _ := classad.EvalAttr(found[0], "LastNegotiationCycleMatches0", nil)
	if m, _ := v.NumberValue(); m != 1 {
		t.Fatalf("the negotiator ad shows %v for the cycle's matches, want 1: %v", v, found[0])
	}
	pooltest.CheckDocumented(t, n.Routes())

	// The same figures as Prometheus metrics, with conventional names.
	if got := testutil.ToFloat64(counter(t, n, "kite_negotiator_matches_total")); got != 1 {
		t.Errorf("kite_negotiator_matches_total = %v, want 1", got)
	}
	problems, err := testutil.GatherAndLint(n.Metrics())
	if err != nil || len(problems) > 0 {
		t.Errorf("metric lint: %v %v", problems, err)
	}
}

// counter finds a metric family's single value.
func counter(t *testing.T, n *negotiator.Server, name string) prometheus.Collector {
	t.Helper()
	families, err := n.Metrics().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: "copy"})
			c.Add(f.GetMetric()[0].GetCounter().GetValue())
			return c
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}

// With every slot taken, a cycle does not ask schedds for their idle jobs.
func TestBusyPoolSkipsRequests(t *testing.T) {
	synctest.Test(t, testBusyPoolSkipsRequests)
}

func testBusyPoolSkipsRequests(t *testing.T) {
	p := pooltest.New(t)
	start.Collector(t, p)
	f := startSchedd(t, p, "schedd:1", map[string]int{"alice@test": 4})
	advertise(t, p, `[MyType="Machine"; Name="slot1@a"; State="Claimed"; Activity="Busy"; Cpus=1; Memory=2048; RemoteUser="bob@test"]`,
		submitterAd("alice@test", "schedd:1", 4))
	n := start.Negotiator(t, p, fastConfig)
	n.Reschedule()
	rep := waitCycle(t, n, 1)
	f.mu.Lock()
	asked := len(f.queries)
	f.mu.Unlock()
	if asked != 0 || rep.Rejections["busy"] != 4 || rep.IdleJobs != 4 {
		t.Errorf("schedd asked %d times; report %+v: want no question and 4 jobs waiting for busy slots", asked, rep)
	}
}
