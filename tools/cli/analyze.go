package cli

import (
	"context"

	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/analyze"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

func init() { addCommand(newAnalyzeCmd) }

func newAnalyzeCmd(g *globals) *cobra.Command {
	var name string
	c := &cobra.Command{
		Use:   "analyze [-name SCHEDD] JOB...",
		Short: "Explain why jobs do not run (condor_q -better-analyze)",
		Long: `Explain why idle jobs do not run: how many of the pool's slots each clause of
a job's Requirements rejects (and how many it alone rejects), how many slots
refuse the job by their own policy and with which clause, how many matching
slots are free, running your jobs or claimed by others, and what change to
the job would let it match, checked against the pool.

JOB is cluster.proc, or a cluster (its first job).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runAnalyze(c.Context(), g, c.OutOrStdout(), name, args)
		},
	}
	c.Flags().StringVar(&name, "name", "", "the schedd holding the jobs (a name in the pool, or host:port)")
	return c
}

func runAnalyze(ctx context.Context, g *globals, w io.Writer, scheddName string, ids []string) error {
	for _, id := range ids {
		if !isJobID(id) {
			return usageError{fmt.Errorf("%q is not a job id (cluster or cluster.proc)", id)}
		}
	}
	s, err := g.findSchedd(ctx, scheddName)
	if err != nil {
		return err
	}
	var jobs []*classad.Ad
	for _, id := range ids {
		var job *classad.Ad
		q := wire.JobQuery{JobSelection: wire.JobSelection{IDs: []string{id}}, Limit: 1}
		err := streamAds(ctx, s.client, wire.PathQueue, q, func(ad *classad.Ad) error { job = ad; return nil })
		if err != nil {
			return err
		}
		if job == nil {
			return fmt.Errorf("no job %s in the queue of %s", id, s.name)
		}
		jobs = append(jobs, job)
	}
	return analyzeAds(ctx, g, w, jobs)
}

// analyzeAds reads the pool's slots and prints each job's analysis.
func analyzeAds(ctx context.Context, g *globals, w io.Writer, jobs []*classad.Ad) error {
	cfg, err := g.loadConfig()
	if err != nil {
		return err
	}
	conn, err := g.connector(cfg)
	if err != nil {
		return err
	}
	slots, err := queryAds(ctx, conn.Collectors(cfg.Pool.CollectorAddrs()), wire.Query{Type: attr.TypeSlot})
	if err != nil {
		return fmt.Errorf("reading the pool's slots: %w", err)
	}
	negs, err := queryAds(ctx, conn.Collectors(cfg.Pool.CollectorAddrs()), wire.Query{Type: attr.TypeNegotiator})
	if err != nil {
		return fmt.Errorf("reading the negotiator's ad: %w", err)
	}
	var neg *classad.Ad
	if len(negs) > 0 {
		neg = negs[0]
	}
	for i, job := range jobs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		r := analyze.Job(job, slots)
		r.NeverRuns(negotiator.LimitShortfalls(job, neg))
		if err := printAnalysis(w, job, r); err != nil {
			return err
		}
	}
	return nil
}

// printAnalysis writes one job's analysis.
func printAnalysis(w io.Writer, job *classad.Ad, r *analyze.Report) error {
	var b strings.Builder
	status := attr.StatusLetter(classad.EvalIntOr(job, attr.JobStatus, 0))
	fmt.Fprintf(&b, "Job %s (%s), status %s\n\n", jobID(job), str(job, attr.Owner), status)
	fmt.Fprintf(&b, "Of %d slots in the pool:\n", r.Slots)
	fmt.Fprintf(&b, "  %6d are rejected by the job's Requirements\n", r.RejectedByJob)
	fmt.Fprintf(&b, "  %6d reject the job by their own policy (START, Requirements)\n", r.RejectedBySlot)
	fmt.Fprintf(&b, "  %6d match: %d free, %d running your jobs, %d claimed by others, %d not taking jobs now\n",
		r.Matching, r.Free, r.Yours, r.Others, r.Offline)
	if len(r.Clauses) > 0 {
		b.WriteString("\nThe job's Requirements, clause by clause:\n")
		t := &table{headers: []string{"PASS", "ALONE_REJECTS", "UNDEFINED", "CLAUSE"}, right: []bool{true, true, true, false}}
		for _, c := range r.Clauses {
			expr := c.Expr
			if c.Attr != "" {
				expr += "   (from " + c.Attr + ")"
			}
			t.add(fmt.Sprint(c.Pass), fmt.Sprint(c.Alone), fmt.Sprint(c.Undefined), expr)
		}
		if err := t.write(&b); err != nil {
			return err
		}
	}
	if len(r.SlotClauses) > 0 {
		b.WriteString("\nThe slots' own clauses that refuse the job:\n")
		t := &table{headers: []string{"SLOTS", "CLAUSE"}, right: []bool{true, false}}
		for _, c := range r.SlotClauses {
			t.add(fmt.Sprint(c.Slots), c.Expr)
		}
		if err := t.write(&b); err != nil {
			return err
		}
	}
	if len(r.Never) > 0 {
		b.WriteString("\nThe job never runs:\n")
		for _, s := range r.Never {
			b.WriteString("  - " + s + "\n")
		}
	}
	if len(r.Suggestions) > 0 {
		b.WriteString("\nWhat would help:\n")
		for _, s := range r.Suggestions {
			b.WriteString("  - " + s + "\n")
		}
	}
	if r.Slots == 0 {
		b.WriteString("\nThe pool has no slots: is a startd running and advertising to the collector?\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
