package schedd

import (
	"context"
	"iter"
	"slices"
	"strconv"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/attrclass"
	"github.com/kite-sched/kite/daemons/schedd/jobtypes"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// Attributes the schedd keeps in job ads for itself: never shown to tools.
const (
	attrClaimID    = attrclass.ClaimID
	attrStartdAddr = attrclass.StartdAddr
)

func private(name string) bool {
	return ast.EqualFold(name, attrClaimID) || ast.EqualFold(name, attrStartdAddr) || ast.EqualFold(name, attrReplicaClaims)
}

// selection is a compiled wire.JobSelection.
type selection struct {
	ids        []queue.Selector
	owners     []string
	constraint *classad.Program
}

func (s *Server) compileSelection(js wire.JobSelection) (*selection, error) {
	sel := &selection{owners: js.Owners}
	for _, s := range js.IDs {
		id, err := queue.ParseSelector(s)
		if err != nil {
			return nil, wire.BadRequest("%v", err)
		}
		sel.ids = append(sel.ids, id)
	}
	if js.Constraint != "" {
		p, err := s.exprLimits().Compile("constraint", js.Constraint)
		if err != nil {
			return nil, err
		}
		sel.constraint = p
	}
	return sel, nil
}

// empty reports whether the selection names nothing.
func (sel *selection) empty() bool {
	return len(sel.ids) == 0 && len(sel.owners) == 0 && sel.constraint == nil
}

// picks reports whether the ids and owners select a job (not the
// constraint, which needs the whole ad).
func (sel *selection) picks(j *queue.Job) bool {
	byID, byOwner := len(sel.ids) == 0, len(sel.owners) == 0
	for _, s := range sel.ids {
		if s.Cluster == j.ID.Cluster && (s.Proc < 0 || s.Proc == j.ID.Proc) {
			byID = true
			break
		}
	}
	for _, o := range sel.owners {
		if o == j.Owner() {
			byOwner = true
			break
		}
	}
	return byID && byOwner
}

// holds reports whether the constraint holds for a job's whole ad.
func (sel *selection) holds(ad *classad.Ad) bool {
	if sel.constraint == nil {
		return true
	}
	v, _ := classad.Eval(sel.constraint, ad, nil)
	return v.IsTrue()
}

// clusters yields the clusters the ids could select, in order.
func (sel *selection) clusters(r *queue.Reader) iter.Seq[*queue.Cluster] {
	return func(yield func(*queue.Cluster) bool) { sel.eachCluster(r, yield) }
}

func (sel *selection) eachCluster(r *queue.Reader, yield func(*queue.Cluster) bool) {
	if len(sel.ids) == 0 {
		r.Clusters(yield)
		return
	}
	seen := map[int64]bool{}
	var ids []int64
	for _, s := range sel.ids {
		if !seen[s.Cluster] {
			seen[s.Cluster] = true
			ids = append(ids, s.Cluster)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if c := r.Cluster(id); c != nil && !yield(c) {
			return
		}
	}
}

// views returns the jobs the ids and owners select, as views.
func (s *Server) views(sel *selection) []queue.View {
	var out []queue.View
	s.q.Read(func(r *queue.Reader) {
		for c := range sel.clusters(r) {
			if len(sel.owners) > 0 && !contains(sel.owners, c.Owner) {
				continue
			}
			for j := range c.Jobs {
				if sel.picks(j) {
					out = append(out, j.View())
				}
			}
		}
	})
	return out
}

func (s *Server) handleQuery(ctx context.Context, r *wire.Request, out *wire.Stream) error {
	var q wire.JobQuery
	if err := r.Decode(&q); err != nil {
		return err
	}
	if q.Limit < 0 {
		return wire.BadRequest("query: limit must not be negative")
	}
	sel, err := s.compileSelection(q.JobSelection)
	if err != nil {
		return err
	}
	if err := s.exprLimits().Names("projection", q.Projection); err != nil {
		return err
	}
	if q.Factories {
		return s.sendFactories(out, sel, q.Projection)
	}
	views := s.views(sel)
	if q.Batches {
		return sendBatches(out, views, sel, s.unmade)
	}
	if jobtypes.Wanted(&q) {
		s.types.PublishViews(views)
	}
	var buf []byte
	var rec ast.Record
	var m queue.Materializer
	sent := 0
	for i := range views {
		v := &views[i]
		if sel.constraint != nil && !sel.holds(m.Ad(v)) {
			continue
		}
		buf = v.AppendJSON(buf[:0], q.Projection, &rec, private)
		if err := out.SendJSON(buf); err != nil {
			return err
		}
		if sent++; q.Limit > 0 && sent >= q.Limit {
			break
		}
	}
	return nil
}

func (s *Server) handleTotals(ctx context.Context, r *wire.Request) (any, error) {
	out := wire.QueueTotals{Schedd: s.name, Addr: s.Addr(), Caller: r.Caller.Name, ByOwner: map[string]wire.StatusCounts{}}
	s.q.Read(func(r *queue.Reader) {
		per, all := r.Counts()
		for o, c := range per {
			out.ByOwner[o] = statusCounts(c)
		}
		out.All = statusCounts(all)
	})
	return out, nil
}

func statusCounts(c queue.Counts) wire.StatusCounts {
	return wire.StatusCounts{Jobs: c.Total(), Completed: c.Completed, Removed: c.Removed,
		Idle: c.Idle, Running: c.Running, Held: c.Held, Suspended: c.Suspended}
}

func (s *Server) handleHistory(ctx context.Context, r *wire.Request, out *wire.Stream) error {
	var q wire.HistoryQuery
	if err := r.Decode(&q); err != nil {
		return err
	}
	if q.Limit < 0 {
		return wire.BadRequest("history: limit must not be negative")
	}
	sel, err := s.compileSelection(wire.JobSelection{IDs: q.IDs, Owners: q.Owners, Constraint: q.Constraint})
	if err != nil {
		return err
	}
	sent := 0
	var sendErr error
	var buf []byte
	plain := sel.empty() && len(q.Projection) == 0 // send records as they are
	err = s.q.History(func(raw []byte) bool {
		if plain {
			if sendErr = out.SendJSON(raw); sendErr != nil {
				return false
			}
			sent++
			return q.Limit == 0 || sent < q.Limit
		}
		ad, err := classad.ParseJSON(raw)
		if err != nil {
			s.log.Warn("history: a bad record", "err", err)
			return true
		}
		if !sel.historyPicks(ad) || !sel.holds(ad) {
			return true
		}
		data := raw
		if len(q.Projection) > 0 {
			buf = classad.AppendJSON(buf[:0], project(ad, q.Projection), false)
			data = buf
		}
		if sendErr = out.SendJSON(data); sendErr != nil {
			return false
		}
		sent++
		return q.Limit == 0 || sent < q.Limit
	})
	if sendErr != nil {
		return sendErr
	}
	return err
}

// historyPicks applies ids and owners to a finished job's ad.
func (sel *selection) historyPicks(ad *classad.Ad) bool {
	cluster, _ := classad.EvalInt(ad, attr.ClusterID)
	proc, _ := classad.EvalInt(ad, attr.ProcID)
	owner := ""
	if e, ok := ad.Lookup(attr.Owner); ok {
		if l, isLit := e.(*ast.Literal); isLit {
			owner = l.Str
		}
	}
	byID, byOwner := len(sel.ids) == 0, len(sel.owners) == 0 || contains(sel.owners, owner)
	for _, s := range sel.ids {
		if s.Cluster == cluster && (s.Proc < 0 || s.Proc == proc) {
			byID = true
		}
	}
	return byID && byOwner
}

// project returns an ad holding only the named attributes of ad.
func project(ad *classad.Ad, names []string) *classad.Ad {
	out := classad.NewAd()
	for _, n := range names {
		if i := ad.Index(n); i >= 0 && !private(n) {
			out.Set(ad.Name(i), ad.Expr(i))
		}
	}
	return out
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }

// sendBatches sends condor_q's batch summary of the selected jobs.
// unmade says how many procs of a cluster its factory has yet to make.
func sendBatches(out *wire.Stream, views []queue.View, sel *selection, unmade func(cluster int64) int64) error {
	byKey := map[string]*wire.Batch{}
	var order []*wire.Batch
	seen := map[*classad.Ad]bool{} // clusters counted in their batch's total
	var m queue.Materializer
	for i := range views {
		v := &views[i]
		if sel.constraint != nil && !sel.holds(m.Ad(v)) {
			continue
		}
		name := v.String(attr.JobBatchName)
		key := v.Owner + "\x00" + name
		if name == "" {
			key += "\x00" + strconv.FormatInt(v.ID.Cluster, 10)
		}
		b := byKey[key]
		qdate := v.Int(attr.QDate, 0)
		if b == nil {
			b = &wire.Batch{Owner: v.Owner, Name: name, Cluster: v.ID.Cluster, Submitted: qdate, First: v.ID.String()}
			byKey[key] = b
			order = append(order, b)
		}
		if !seen[v.Cluster] {
			seen[v.Cluster] = true
			b.Total += v.Int(attr.TotalSubmitProcs, 0)
			b.Unmade += unmade(v.ID.Cluster)
		}
		b.Submitted = min(b.Submitted, qdate)
		b.Last = v.ID.String()
		countStatus(&b.StatusCounts, v.Status)
	}
	for _, b := range order {
		if err := out.Send(b); err != nil {
			return err
		}
	}
	return nil
}

func countStatus(c *wire.StatusCounts, status int64) {
	c.Jobs++
	switch status {
	case attr.Idle:
		c.Idle++
	case attr.Running:
		c.Running++
	case attr.Held:
		c.Held++
	case attr.Removed:
		c.Removed++
	case attr.Completed:
		c.Completed++
	case attr.Suspended:
		c.Suspended++
	}
}
