package collector

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/kite-sched/kite/daemons/collector/dashboard"
	"github.com/kite-sched/kite/internal/wire"
)

// The DAG pages' endpoints: every schedd's DAGs, and one DAG's picture
// (query schedd=NAME&id=N).
const (
	pathDAGs = PathDashboardAPI + "dags"
	pathDAG  = PathDashboardAPI + "dag"
)

// handleDAGs lists the DAGs in every schedd's queue and those each
// finished last, from their ads.
func (s *Server) handleDAGs(ctx context.Context, r *wire.Request) (any, error) {
	schedds := s.schedds()
	found := make([][]dashboard.DAGSummary, len(schedds))
	errs := make([]string, len(schedds))
	var wg sync.WaitGroup
	for i, sd := range schedds {
		wg.Go(func() { found[i], errs[i] = s.askDAGs(ctx, sd) })
	}
	wg.Wait()
	out := dashboard.DAGList{DAGs: []dashboard.DAGSummary{}, Errors: []string{}}
	for i := range schedds {
		out.DAGs = append(out.DAGs, found[i]...)
		if errs[i] != "" {
			out.Errors = append(out.Errors, errs[i])
		}
	}
	return out, nil
}

// askDAGs asks one schedd for its DAGs' ads, the recently finished too.
func (s *Server) askDAGs(ctx context.Context, sd schedd) ([]dashboard.DAGSummary, string) {
	infos, err := s.queryDAGs(ctx, sd, wire.DAGQuery{AdsOnly: true, Finished: true})
	if err != nil {
		return nil, err.Error()
	}
	var out []dashboard.DAGSummary
	for i := range infos {
		sum, err := dashboard.Summarize(sd.name, &infos[i])
		if err != nil {
			return out, fmt.Sprintf("schedd %s: %v", sd.name, err)
		}
		out = append(out, sum)
	}
	return out, ""
}

// handleDAG lays out one DAG of one schedd, running or finished (the
// schedd keeps its last finished DAGs' final graphs).
func (s *Server) handleDAG(ctx context.Context, r *wire.Request) (any, error) {
	q := r.HTTP.URL.Query()
	id, err := strconv.ParseInt(q.Get("id"), 10, 64)
	if err != nil || id < 1 {
		return nil, wire.BadRequest("id=%q: must be a DAG's id", q.Get("id"))
	}
	name := q.Get("schedd")
	for _, sd := range s.schedds() {
		if sd.name != name {
			continue
		}
		q := wire.DAGQuery{IDs: []int64{id}, Graph: true, MaxNodes: dashboard.MaxDrawnNodes, Finished: true}
		infos, err := s.queryDAGs(ctx, sd, q)
		if err != nil {
			return nil, err
		}
		if len(infos) == 0 {
			return nil, wire.NotFound("schedd %s has no DAG %d, running or finished", name, id)
		}
		return dashboard.Graph(name, &infos[0], dashboard.MaxDrawnNodes)
	}
	return nil, wire.NotFound("no schedd %q has advertised itself", name)
}

// queryDAGs asks a schedd for DAGs.
func (s *Server) queryDAGs(ctx context.Context, sd schedd, q wire.DAGQuery) ([]wire.DAGInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, dashboardAskTimeout)
	defer cancel()
	var infos []wire.DAGInfo
	if err := s.env.Connector().Client(sd.addr).Call(ctx, "POST", wire.PathDAGs, q, &infos); err != nil {
		return nil, fmt.Errorf("schedd %s did not list its DAGs: %v", sd.name, err)
	}
	return infos, nil
}
