package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/userlog"
	"github.com/kite-sched/kite/internal/wire"
)

// printUserlog is kite q -userlog FILE: the jobs of a job event log
// instead of the schedd's queue, as condor_q(1) describes it ("a job
// event log does not contain all of the job information, so some fields
// in the normal output of condor_q will be blank"). There are no batches
// without the schedd: the default view is -nobatch's.
func (o *qOptions) printUserlog(w io.Writer, args []string, af *autoFormat) error {
	jobs, err := userlogJobs(o.userlog)
	if err != nil {
		return err
	}
	q := o.query(args, "")
	keep, err := jobFilter(q)
	if err != nil {
		return err
	}
	var ads []*classad.Ad
	for _, ad := range jobs {
		if keep(ad) {
			ads = append(ads, ad)
		}
	}
	switch {
	case af != nil:
		return af.print(w, ads)
	case o.format.set():
		return o.format.print(w, ads)
	case o.long:
		return printLong(w, ads)
	case o.json:
		return printJSON(w, ads)
	}
	rows := adRows(ads)
	now := o.now()
	view := func() *table {
		switch {
		case o.hold:
			return holdTable(rows, now)
		case o.run:
			return runTable(rows, now)
		}
		return jobTable(rows, now)
	}
	if !o.total {
		fmt.Fprintf(w, "\n\n-- Userlog: %s\n", o.userlog)
		if err := view().write(w); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Total for query: %s\n", countLine(countAds(rows)))
	return nil
}

// jobFilter is a query's selection as a test of an ad: its job ids,
// owners and constraint.
func jobFilter(q wire.JobQuery) (func(*classad.Ad) bool, error) {
	var constraint *classad.Program
	if q.Constraint != "" {
		p, err := classad.Compile(q.Constraint)
		if err != nil {
			return nil, usageError{fmt.Errorf("-constraint: %w", err)}
		}
		constraint = p
	}
	return func(ad *classad.Ad) bool {
		r := &row{rec: ad.Record(), ad: ad}
		if len(q.IDs) > 0 && !slices.ContainsFunc(q.IDs, func(id string) bool { return id == r.id() || id == strconv.FormatInt(r.int(attr.ClusterID), 10) }) {
			return false
		}
		if len(q.Owners) > 0 && !slices.ContainsFunc(q.Owners, func(o string) bool { return o == r.str(attr.Owner) }) {
			return false
		}
		if constraint == nil {
			return true
		}
		v, _ := classad.Eval(constraint, ad, nil)
		return v.IsTrue()
	}, nil
}

// userlogJobs reads a job event log into an ad per job, ordered by job
// id: what the events tell of it (its id, status, submission, start,
// hold and end), nothing else.
func userlogJobs(path string) ([]*classad.Ad, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open the job event log: %w", err)
	}
	defer f.Close()
	r := userlog.NewReader(f, path)
	jobs := map[userlog.JobID]*classad.Ad{}
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if ev.Job.Proc < 0 {
			continue // a cluster's event (late materialization's), not a job's
		}
		id := userlog.JobID{Cluster: ev.Job.Cluster, Proc: ev.Job.Proc}
		ad := jobs[id]
		if ad == nil {
			ad = classad.NewAd()
			ad.Set(attr.ClusterID, ast.Int(id.Cluster))
			ad.Set(attr.ProcID, ast.Int(id.Proc))
			ad.Set(attr.JobStatus, ast.Int(attr.Idle))
			jobs[id] = ad
		}
		applyEvent(ad, &ev)
	}
	ids := make([]userlog.JobID, 0, len(jobs))
	for id := range jobs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		return ids[i].Cluster < ids[j].Cluster || ids[i].Cluster == ids[j].Cluster && ids[i].Proc < ids[j].Proc
	})
	ads := make([]*classad.Ad, len(ids))
	for i, id := range ids {
		ads[i] = jobs[id]
	}
	return ads, nil
}

// applyEvent records what an event says of its job.
func applyEvent(ad *classad.Ad, ev *userlog.Event) {
	t := ast.Int(ev.Time.Unix())
	status := func(s int64) {
		ad.Set(attr.JobStatus, ast.Int(s))
		ad.Set(attr.EnteredCurrentStatus, t)
	}
	switch ev.Code {
	case userlog.Submit:
		ad.Set(attr.QDate, t)
		status(attr.Idle)
	case userlog.Execute:
		ad.Set(attr.JobCurrentStartDate, t)
		if host := strings.Trim(ev.Host, "<>"); host != "" {
			ad.Set(attr.RemoteHost, ast.Str(host))
		}
		status(attr.Running)
	case userlog.Evicted, userlog.Released, userlog.Disconnected:
		status(attr.Idle)
	case userlog.Suspended:
		status(attr.Suspended)
	case userlog.Unsuspended, userlog.Reconnected:
		status(attr.Running)
	case userlog.Held:
		ad.Set(attr.HoldReason, ast.Str(ev.Reason))
		ad.Set(attr.HoldReasonCode, ast.Int(int64(ev.HoldCode)))
		ad.Set(attr.HoldReasonSubCode, ast.Int(int64(ev.HoldSubCode)))
		status(attr.Held)
	case userlog.Aborted:
		status(attr.Removed)
	case userlog.Terminated:
		ad.Set(attr.CompletionDate, t)
		if ev.Normal {
			ad.Set(attr.ExitCode, ast.Int(int64(ev.ReturnCode)))
		}
		status(attr.Completed)
	}
}
