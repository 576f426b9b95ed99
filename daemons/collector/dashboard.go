package collector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/collector/dashboard"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/wire"
)

// The dashboard's paths: the page (public: it holds no data) and the
// JSON endpoints it calls (READ).
const (
	PathDashboard         = "/dashboard/"
	PathDashboardAPI      = "/v1/dashboard/"
	pathOverview          = PathDashboardAPI + "overview"
	pathQueue             = PathDashboardAPI + "queue"
	pathMachines          = PathDashboardAPI + "machines"
	pathSita              = PathDashboardAPI + "sita"
	pathHistory           = PathDashboardAPI + "history"
	defaultQueueLimit     = 1000
	maxQueueLimit         = 10000
	maxSitaJobsPerSchedd  = 50000
	dashboardAskTimeout   = 5 * time.Second
	dashboardSecurityCSP  = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
	dashboardNoNegotiator = "no negotiator has advertised itself: priorities are unknown"
)

// DashboardConfig configures the web dashboard.
type DashboardConfig struct {
	// Enabled serves the page and its endpoints.
	Enabled bool
	// SampleInterval is how often the pool's statistics are sampled for
	// the utilization plots and the machines' histories.
	SampleInterval time.Duration
	// PoolSamples and MachineSamples bound the pool's history and each
	// machine's, in samples.
	PoolSamples, MachineSamples int
}

// DashboardConfigFrom takes the dashboard's keys of the collector's
// section.
func DashboardConfigFrom(c *config.Config) DashboardConfig {
	return DashboardConfig{
		Enabled: c.Collector.Dashboard, SampleInterval: c.Collector.SampleInterval.Duration,
		PoolSamples: c.Collector.SampleHistory, MachineSamples: c.Collector.MachineHistory,
	}
}

// dashboardRoutes adds the dashboard's page and endpoints to the mux.
func (s *Server) dashboardRoutes(m *wire.Mux) {
	if !s.cfg.Dashboard.Enabled {
		return
	}
	files := http.StripPrefix(PathDashboard, http.FileServerFS(dashboard.Files()))
	m.HandleRaw("GET "+PathDashboard, wire.Public, func(w http.ResponseWriter, r *wire.Request) error {
		h := w.Header()
		h.Set("Content-Security-Policy", dashboardSecurityCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r.HTTP)
		return nil
	})
	m.Handle("GET "+pathOverview, auth.Read, s.handleOverview)
	m.Handle("GET "+pathQueue, auth.Read, s.handleQueue)
	m.Handle("GET "+pathMachines, auth.Read, s.handleMachines)
	m.Handle("GET "+pathMachines+"/{name}", auth.Read, s.handleMachine)
	m.Handle("GET "+pathSita, auth.Read, s.handleSita)
	m.Handle("GET "+pathHistory, auth.Read, s.handleHistory)
	m.Handle("GET "+pathDAGs, auth.Read, s.handleDAGs)
	m.Handle("GET "+pathDAG, auth.Read, s.handleDAG)
}

// ads returns the ads of a type the store holds, absent ones too when
// asked.
func (s *Server) ads(typ string, absent bool) []*classad.Ad {
	found := s.store.Query(typ, nil, 0, absent)
	out := make([]*classad.Ad, len(found))
	for i, f := range found {
		out[i] = f.Ad
	}
	return out
}

// sampleLoop samples the pool every sample interval until ctx is done.
func (s *Server) sampleLoop(ctx context.Context) {
	t := time.NewTicker(s.cfg.Dashboard.SampleInterval)
	defer t.Stop()
	for {
		s.sampler.Sample(s.now(), s.ads(attr.TypeSlot, true), s.ads(attr.TypeSubmitter, false))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) poolName() string {
	if s.env.Config == nil {
		return ""
	}
	return s.env.Config.Pool.Name
}

func (s *Server) handleOverview(ctx context.Context, r *wire.Request) (any, error) {
	prios, err := s.priorities(ctx)
	out := dashboard.Overview{
		Pool: s.poolName(), Time: s.now().Unix(), Errors: []string{},
		Slots:  dashboard.CountSlots(s.ads(attr.TypeSlot, false)),
		Owners: dashboard.Owners(s.ads(attr.TypeSubmitter, false), prios),
	}
	if err != nil {
		out.Errors = append(out.Errors, err.Error())
	}
	var daemons []*classad.Ad
	for _, typ := range []string{attr.TypeCollector, attr.TypeNegotiator, attr.TypeScheduler, attr.TypeMaster} {
		daemons = append(daemons, s.ads(typ, true)...)
	}
	out.Daemons = dashboard.Daemons(daemons)
	if negs := s.ads(attr.TypeNegotiator, false); len(negs) > 0 {
		out.Cycle = dashboard.LastCycle(leaderFirst(negs)[0])
	}
	return out, nil
}

// leaderFirst orders negotiator ads with those that say they lead their
// Raft group first: only the leader negotiates.
func leaderFirst(negs []*classad.Ad) []*classad.Ad {
	out := slices.Clone(negs)
	slices.SortStableFunc(out, func(a, b *classad.Ad) int {
		lead := func(ad *classad.Ad) bool { return classad.EvalStringOr(ad, attr.RaftState, "") == "Leader" }
		switch {
		case lead(a) && !lead(b):
			return -1
		case lead(b) && !lead(a):
			return 1
		}
		return 0
	})
	return out
}

// priorities asks the pool's negotiator for the users' priorities.
func (s *Server) priorities(ctx context.Context) ([]wire.Priority, error) {
	negs := s.ads(attr.TypeNegotiator, false)
	if len(negs) == 0 {
		return nil, errors.New(dashboardNoNegotiator)
	}
	addr := classad.EvalStringOr(leaderFirst(negs)[0], attr.MyAddress, "")
	ctx, cancel := context.WithTimeout(ctx, dashboardAskTimeout)
	defer cancel()
	var p wire.Priorities
	if err := s.env.Connector().Client(addr).Call(ctx, "GET", wire.PathPriorities, nil, &p); err != nil {
		return nil, fmt.Errorf("the negotiator at %s did not say the priorities: %v", addr, err)
	}
	return p.Users, nil
}

// schedd is a schedd the collector knows from its ad.
type schedd struct{ name, addr string }

func (s *Server) schedds() []schedd {
	var out []schedd
	for _, ad := range s.ads(attr.TypeScheduler, false) {
		if addr := classad.EvalStringOr(ad, attr.MyAddress, ""); addr != "" {
			out = append(out, schedd{classad.EvalStringOr(ad, attr.Name, ""), addr})
		}
	}
	return out
}

func (s *Server) handleQueue(ctx context.Context, r *wire.Request) (any, error) {
	limit := defaultQueueLimit
	if v := r.HTTP.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxQueueLimit {
			return nil, wire.BadRequest("limit=%q: must be a number of jobs from 1 to %d", v, maxQueueLimit)
		}
		limit = n
	}
	schedds := s.schedds()
	out := dashboard.Queues{Schedds: make([]dashboard.Queue, len(schedds)), Limit: limit}
	var wg sync.WaitGroup
	for i, sd := range schedds {
		wg.Go(func() { out.Schedds[i] = s.askQueue(ctx, sd, limit) })
	}
	wg.Wait()
	return out, nil
}

// askQueue asks one schedd for its totals and first jobs.
func (s *Server) askQueue(ctx context.Context, sd schedd, limit int) dashboard.Queue {
	q := dashboard.Queue{Schedd: sd.name, Addr: sd.addr, Jobs: []dashboard.Job{}}
	ctx, cancel := context.WithTimeout(ctx, dashboardAskTimeout)
	defer cancel()
	cl := s.env.Connector().Client(sd.addr)
	var totals wire.QueueTotals
	if err := cl.Call(ctx, "GET", wire.PathTotals, nil, &totals); err != nil {
		q.Error = fmt.Sprintf("the schedd did not answer: %v", err)
		return q
	}
	q.Totals = &totals.All
	jobs, err := queryJobs(ctx, cl, wire.JobQuery{Projection: dashboard.QueueAttrs, Limit: limit + 1})
	if err != nil {
		q.Error = fmt.Sprintf("the schedd did not list its jobs: %v", err)
	}
	if len(jobs) > limit {
		jobs, q.Truncated = jobs[:limit], true
	}
	for _, ad := range jobs {
		q.Jobs = append(q.Jobs, dashboard.JobRow(ad))
	}
	return q
}

// queryJobs streams job ads from a schedd.
func queryJobs(ctx context.Context, cl *wire.Client, q wire.JobQuery) ([]*classad.Ad, error) {
	var out []*classad.Ad
	err := cl.Stream(ctx, "POST", wire.PathQueue, q, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err != nil {
			return err
		}
		out = append(out, ad)
		return nil
	})
	return out, err
}

func (s *Server) handleMachines(ctx context.Context, r *wire.Request) (any, error) {
	return struct {
		Machines []dashboard.Machine `json:"machines"`
	}{dashboard.Machines(s.ads(attr.TypeSlot, true))}, nil
}

func (s *Server) handleMachine(ctx context.Context, r *wire.Request) (any, error) {
	name := r.PathValue("name")
	var ads []*classad.Ad
	var raws []json.RawMessage
	for _, f := range s.store.Query(attr.TypeSlot, nil, 0, true) {
		if !strings.EqualFold(dashboard.MachineOf(f.Ad), name) {
			continue
		}
		ads = append(ads, f.Ad)
		data := f.JSON
		if f.Public != nil {
			data = f.Public
		}
		raws = append(raws, json.RawMessage(data))
	}
	if len(ads) == 0 {
		return nil, wire.NotFound("no machine %q in the pool", name)
	}
	machines := dashboard.Machines(ads)
	return dashboard.MachineDetail{
		Machine: machines[0], Ads: raws, Reliability: dashboard.Reliability(ads),
		History: orEmpty(s.sampler.Machine(machines[0].Name)),
	}, nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (s *Server) handleSita(ctx context.Context, r *wire.Request) (any, error) {
	slots := s.ads(attr.TypeSlot, false)
	probe := dashboard.Loads(slots, nil)
	if !probe.Enabled {
		return probe, nil
	}
	projection := []string{attr.ClusterID, attr.ProcID, attr.JobStatus, probe.Attribute, sita.JobMinSize, sita.JobMaxSize, sita.JobVariability}
	q := wire.JobQuery{JobSelection: wire.JobSelection{Constraint: "JobStatus == 1 || JobStatus == 2"}, Projection: projection, Limit: maxSitaJobsPerSchedd}
	var mu sync.Mutex
	var jobs []*classad.Ad
	var errs []string
	var wg sync.WaitGroup
	for _, sd := range s.schedds() {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, dashboardAskTimeout)
			defer cancel()
			got, err := queryJobs(ctx, s.env.Connector().Client(sd.addr), q)
			mu.Lock()
			defer mu.Unlock()
			jobs = append(jobs, got...)
			if err != nil {
				errs = append(errs, fmt.Sprintf("schedd %s did not list its jobs: %v", sd.name, err))
			}
		})
	}
	wg.Wait()
	out := dashboard.Loads(slots, jobs)
	slices.Sort(errs)
	out.Errors = append(out.Errors, errs...)
	return out, nil
}

func (s *Server) handleHistory(ctx context.Context, r *wire.Request) (any, error) {
	return dashboard.History{Interval: s.cfg.Dashboard.SampleInterval.Seconds(), Samples: orEmpty(s.sampler.Pool())}, nil
}
