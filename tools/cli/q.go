package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

type qOptions struct {
	g                          *globals
	name                       string
	long, json, nobatch        bool
	hold, run, allusers, total bool
	constraint                 []string
	af                         string
	afSet                      bool
	limit                      int
	format                     printfFormat
	attributes                 []string
	batch, idle, wide, stream  bool
	userlog                    string
	global                     bool
	gathered                   *[]*classad.Ad // -global -json: every schedd's ads, printed as one array
	now                        func() time.Time
	analyze                    bool
	factory                    bool
	dag                        bool // q_dag.go
	watching                   qWatch
}

// analyzeJobs explains why the selected jobs do not run: the idle ones,
// unless job ids name others.
func (o *qOptions) analyzeJobs(ctx context.Context, w io.Writer, s *scheddConn, q wire.JobQuery) error {
	if len(q.IDs) == 0 {
		c := "JobStatus == 1"
		if q.Constraint != "" {
			c = "(" + q.Constraint + ") && " + c
		}
		q.Constraint = c
	}
	var jobs []*classad.Ad
	if err := s.api.Query(ctx, q, func(ad *classad.Ad) error { jobs = append(jobs, ad); return nil }); err != nil {
		return err
	}
	if len(jobs) == 0 {
		_, err := fmt.Fprintln(w, "No idle jobs to analyze.")
		return err
	}
	return analyzeAds(ctx, o.g, w, jobs)
}

func init() { addCommand(newQCmd) }

func newQCmd(g *globals) *cobra.Command {
	o := &qOptions{g: g, now: time.Now}
	c := &cobra.Command{
		Use:   "q [options] [owner | cluster | cluster.proc ...]",
		Short: "Show the job queue (condor_q)",
		Long: `Show jobs in the queue: by default your own, summarised by batch (a
cluster, or the jobs sharing a batch_name), with the totals condor_q prints.

Arguments select owners and jobs (cluster or cluster.proc); owners are or-ed
with each other, and and-ed with job ids. -nobatch lists each job, -hold the
held ones with their reasons, -run the running ones with their hosts, -idle
the idle ones; -long, -json (with -attributes A,B: only those), -af[:jlhVrTY,tng]
and -format FMT ATTR print ads for scripts, which should not parse the
tables. -global asks every schedd of the pool; -userlog FILE shows the jobs
of a job event log instead of a schedd's queue.

-watch shows the selected jobs' progress live, one line per batch: a bar
(# completed, x removed, = running, ! held, . idle), the share done, the
counts and an ETA from the rate of the latest completions ("--" until one
completes), until every job has left the queue. Jobs that left are looked
up in the history to tell completed from removed. On a terminal the view
is redrawn in place; otherwise a line is printed when a batch's counts
change. See docs/progress.md.`,
		RunE: func(c *cobra.Command, args []string) error {
			o.afSet = c.Flags().Changed("af")
			if o.watching.on {
				return o.runWatch(c.Context(), c.OutOrStdout(), args)
			}
			return o.runQ(c.Context(), c.OutOrStdout(), args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.name, "name", "", "the schedd to ask (its name or host:port)")
	f.BoolVarP(&o.long, "long", "l", false, "print whole job ads")
	f.BoolVar(&o.json, "json", false, "print job ads as JSON")
	f.BoolVar(&o.nobatch, "nobatch", false, "one line per job instead of one per batch")
	f.BoolVar(&o.hold, "hold", false, "show held jobs and why they are held")
	f.BoolVar(&o.run, "run", false, "show running jobs and where they run")
	f.BoolVar(&o.allusers, "allusers", false, "show every owner's jobs, not only yours")
	f.BoolVar(&o.total, "totals", false, "print only the totals")
	f.StringArrayVar(&o.constraint, "constraint", nil, "only jobs for which the expression is true")
	f.StringVar(&o.af, "af", "", "print the values of the attributes or expressions given as arguments (-af:[lhVr,tng])")
	f.Lookup("af").NoOptDefVal = " "
	f.IntVar(&o.limit, "limit", 0, "show at most this many jobs")
	f.BoolVar(&o.analyze, "better-analyze", false, "explain why the selected idle jobs do not run (kite analyze)")
	f.BoolVar(&o.analyze, "analyze", false, "the same as -better-analyze")
	f.Var(&o.format, "format", "print ATTR with the printf format FMT (-format FMT ATTR, repeatable)")
	f.StringSliceVar(&o.attributes, "attributes", nil, "with -long or -json: only these attributes (comma-separated)")
	f.BoolVar(&o.batch, "batch", false, "one line per batch (the default)")
	f.BoolVar(&o.idle, "idle", false, "show idle jobs, one line per job")
	f.BoolVar(&o.wide, "wide", false, "do not truncate the CMD column (Kite never does)")
	f.BoolVar(&o.stream, "stream-results", false, "print ads as they come (Kite's -af and -format always do)")
	f.StringVar(&o.userlog, "userlog", "", "show the jobs of this job event log instead of the schedd's queue")
	f.BoolVar(&o.global, "global", false, "show the jobs of every schedd of the pool")
	f.BoolVar(&o.factory, "factory", false, "show the job factories (clusters submitted with max_idle or max_materialize) instead of jobs")
	f.BoolVar(&o.dag, "dag", false, "show the DAGs (kite submit_dag) and their nodes instead of jobs")
	o.watching.flags(f)
	return c
}

// tableAttrs are what the tables need of each job.
var tableAttrs = []string{
	attr.ClusterID, attr.ProcID, attr.Owner, attr.JobBatchName, attr.QDate, attr.JobStatus, attr.TotalSubmitProcs,
	attr.RemoteWallClockTime, attr.JobCurrentStartDate, attr.JobPrio, attr.ImageSize, attr.MemoryUsage,
	attr.Cmd, attr.Args, attr.Arguments, attr.HoldReason, attr.HoldReasonCode, attr.HoldReasonSubCode,
	attr.EnteredCurrentStatus, attr.RemoteHost, attr.CompletionDate,
}

func (o *qOptions) runQ(ctx context.Context, w io.Writer, args []string) error {
	af, args, err := o.options(args)
	if err != nil {
		return err
	}
	if o.userlog != "" {
		return o.printUserlog(w, args, af)
	}
	if !o.global {
		return o.queryOne(ctx, w, o.name, args, af)
	}
	names, err := o.g.scheddNames(ctx)
	if err != nil {
		return err
	}
	if o.json {
		o.gathered = &[]*classad.Ad{}
	}
	for _, name := range names {
		if err := o.queryOne(ctx, w, name, args, af); err != nil {
			return fmt.Errorf("schedd %s: %w", name, err)
		}
		if af != nil {
			af.headings = false
		}
	}
	if o.gathered != nil {
		return printJSON(w, *o.gathered)
	}
	return nil
}

// scheddNames returns the names of the pool's schedds, sorted.
func (g *globals) scheddNames(ctx context.Context) ([]string, error) {
	cfg, err := g.loadConfig()
	if err != nil {
		return nil, err
	}
	conn, err := g.connector(cfg)
	if err != nil {
		return nil, err
	}
	ads, err := scheddAds(ctx, conn.Collectors(cfg.Pool.CollectorAddrs()))
	if err != nil {
		return nil, fmt.Errorf("finding the schedds: %w", err)
	}
	var names []string
	for _, ad := range ads {
		names = append(names, str(ad, attr.Name))
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no schedd in the pool (is kite schedd running, and advertising to %s?)", cfg.Pool.Collector)
	}
	sort.Strings(names)
	return names, nil
}

// queryOne shows the jobs of the schedd named (the default one for "").
func (o *qOptions) queryOne(ctx context.Context, w io.Writer, name string, args []string, af *autoFormat) error {
	s, q, totals, err := o.selection(ctx, name, args)
	if err != nil {
		return err
	}
	if o.analyze {
		return o.analyzeJobs(ctx, w, s, q)
	}
	if o.factory {
		return o.printFactories(ctx, w, s, q)
	}
	if o.dag {
		return o.printDAGs(ctx, w, s, q)
	}
	switch {
	case af != nil && !af.raw:
		q.Projection = af.references()
	case o.format.set():
		q.Projection = o.format.references()
	case len(o.attributes) > 0:
		q.Projection = o.attributes
	case af == nil && !o.long && !o.json:
		q.Projection = tableAttrs
	}
	if af != nil {
		return o.printAF(ctx, w, s, q, af)
	}
	if o.format.set() {
		bw := bufio.NewWriterSize(w, 64<<10)
		one := []*classad.Ad{nil}
		err := s.api.Query(ctx, q, func(ad *classad.Ad) error {
			one[0] = ad
			return o.format.print(bw, one)
		})
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		return err
	}
	if o.long || o.json {
		var ads []*classad.Ad
		if err := s.api.Query(ctx, q, func(ad *classad.Ad) error { ads = append(ads, ad); return nil }); err != nil {
			return err
		}
		if o.gathered != nil {
			*o.gathered = append(*o.gathered, ads...)
			return nil
		}
		if o.long {
			return printLong(w, ads)
		}
		return printJSON(w, ads)
	}
	if o.batchView() {
		return o.printBatches(ctx, w, s, q, totals)
	}
	var rows []*row
	if err := streamRows(ctx, s.client, wire.PathQueue, q, func(r *row) error { rows = append(rows, r); return nil }); err != nil {
		return err
	}
	return o.printTables(w, s, rows, totals, q)
}

// options checks the output options and reads -af's expressions from
// the arguments, returning the job and owner arguments left.
func (o *qOptions) options(args []string) (*autoFormat, []string, error) {
	if o.batch {
		o.nobatch = false
	}
	switch {
	case o.afSet && o.format.set():
		return nil, nil, usageError{errors.New("-af and -format may not be used together")}
	case len(o.attributes) > 0 && !o.long && !o.json:
		return nil, nil, usageError{errors.New("-attributes goes with -long or -json")}
	case o.global && (o.name != "" || o.userlog != ""):
		return nil, nil, usageError{errors.New("-global asks every schedd: not with -name or -userlog")}
	case !o.afSet:
		return nil, args, nil
	}
	ids := leadingIDs(args)
	af, err := parseAutoFormat(strings.TrimSpace(o.af), args[len(ids):])
	return af, ids, err
}

// batchView reports whether the jobs show as condor_q's default view,
// one line per batch.
func (o *qOptions) batchView() bool { return !o.nobatch && !o.hold && !o.run && !o.idle }

// leadingIDs returns the job ids before -af's expressions: kite q 12 -af
// Args reads 12 as a cluster, since a number is no use as an expression.
func leadingIDs(args []string) []string {
	n := 0
	for n < len(args)-1 && isJobID(args[n]) {
		n++
	}
	return args[:n]
}

// printAF streams -af output: no ad is kept longer than its line.
func (o *qOptions) printAF(ctx context.Context, w io.Writer, s *scheddConn, q wire.JobQuery, af *autoFormat) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if af.headings {
		bw.Write(af.appendHeadings(nil))
	}
	var err error
	if names, ok := plainNames(af); ok {
		var buf []byte
		err = streamRows(ctx, s.client, wire.PathQueue, q, func(r *row) error {
			buf = printRow(bw, af, names, r, buf)
			return nil
		})
	} else {
		one := []*classad.Ad{nil}
		err = s.api.Query(ctx, q, func(ad *classad.Ad) error {
			one[0] = ad
			return af.printAds(bw, one)
		})
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// query builds the selection: arguments, constraints, and only the
// caller's jobs unless told otherwise.
// selection finds the schedd and builds the query of the jobs args
// select (the caller's own by default), with the queue's totals.
func (o *qOptions) selection(ctx context.Context, name string, args []string) (*scheddConn, wire.JobQuery, wire.QueueTotals, error) {
	var totals wire.QueueTotals
	s, err := o.g.findSchedd(ctx, name)
	if err != nil {
		return nil, wire.JobQuery{}, totals, err
	}
	totals, err = s.api.Totals(ctx)
	if err != nil {
		return nil, wire.JobQuery{}, totals, err
	}
	return s, o.query(args, totals.Caller), totals, nil
}

func (o *qOptions) query(args []string, caller string) wire.JobQuery {
	ids, owners := splitArgs(args)
	var q wire.JobQuery
	q.IDs, q.Owners, q.Limit = ids, owners, o.limit
	if len(ids) == 0 && len(owners) == 0 && !o.allusers && caller != "" {
		q.Owners = []string{caller}
	}
	var parts []string
	for _, c := range o.constraint {
		parts = append(parts, "("+c+")")
	}
	if o.hold {
		parts = append(parts, "(JobStatus == 5)")
	}
	if o.run {
		parts = append(parts, "(JobStatus == 2)")
	}
	if o.idle {
		parts = append(parts, "(JobStatus == 1)")
	}
	q.Constraint = strings.Join(parts, " && ")
	return q
}

// printBatches is the default view: the schedd summarises the jobs by
// batch, so that 100 000 jobs make a few lines on the wire, not 100 000
// ads.
func (o *qOptions) printBatches(ctx context.Context, w io.Writer, s *scheddConn, q wire.JobQuery, totals wire.QueueTotals) error {
	q.Batches = true
	var batches []wire.Batch
	err := s.client.Stream(ctx, "POST", wire.PathQueue, q, func(item json.RawMessage) error {
		var b wire.Batch
		if err := json.Unmarshal(item, &b); err != nil {
			return fmt.Errorf("the schedd sent a bad batch: %w", err)
		}
		batches = append(batches, b)
		return nil
	})
	if err != nil {
		return err
	}
	var sum wire.StatusCounts
	for _, b := range batches {
		sum = addCounts(sum, b.StatusCounts)
	}
	return o.printWith(w, s, func() *table { return batchTable(batches) }, sum, totals, q)
}

func addCounts(a, b wire.StatusCounts) wire.StatusCounts {
	return wire.StatusCounts{Jobs: a.Jobs + b.Jobs, Completed: a.Completed + b.Completed, Removed: a.Removed + b.Removed,
		Idle: a.Idle + b.Idle, Running: a.Running + b.Running, Held: a.Held + b.Held, Suspended: a.Suspended + b.Suspended}
}

func (o *qOptions) printTables(w io.Writer, s *scheddConn, ads []*row, totals wire.QueueTotals, q wire.JobQuery) error {
	now := o.now()
	view := func() *table {
		switch {
		case o.hold:
			return holdTable(ads, now)
		case o.run:
			return runTable(ads, now)
		}
		return jobTable(ads, now)
	}
	return o.printWith(w, s, view, countAds(ads), totals, q)
}

// printWith prints the header, a view and condor_q's totals.
func (o *qOptions) printWith(w io.Writer, s *scheddConn, view func() *table, query wire.StatusCounts, totals wire.QueueTotals, q wire.JobQuery) error {
	if !o.total {
		fmt.Fprintf(w, "\n\n-- Schedd: %s : <%s> @ %s\n", s.name, s.addr, o.now().Format("01/02/06 15:04:05"))
		if err := view().write(w); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Total for query: %s\n", countLine(query))
	if len(q.Owners) == 1 && !o.allusers {
		fmt.Fprintf(w, "Total for %s: %s\n", q.Owners[0], countLine(totals.ByOwner[q.Owners[0]]))
	}
	fmt.Fprintf(w, "Total for all users: %s\n", countLine(totals.All))
	return nil
}

func countAds(ads []*row) wire.StatusCounts {
	var c wire.StatusCounts
	for _, ad := range ads {
		c.Jobs++
		switch ad.int(attr.JobStatus) {
		case attr.Completed:
			c.Completed++
		case attr.Removed:
			c.Removed++
		case attr.Idle:
			c.Idle++
		case attr.Running:
			c.Running++
		case attr.Held:
			c.Held++
		case attr.Suspended:
			c.Suspended++
		}
	}
	return c
}

// countLine is condor_q's totals sentence.
func countLine(c wire.StatusCounts) string {
	return fmt.Sprintf("%d jobs; %d completed, %d removed, %d idle, %d running, %d held, %d suspended",
		c.Jobs, c.Completed, c.Removed, c.Idle, c.Running, c.Held, c.Suspended)
}

// batchTable is the default view: one line per batch.
func batchTable(batches []wire.Batch) *table {
	anyHeld := false
	for _, b := range batches {
		anyHeld = anyHeld || b.Held > 0
	}
	headers := []string{"OWNER", "BATCH_NAME", "SUBMITTED", "DONE", "RUN", "IDLE"}
	if anyHeld || len(batches) == 0 {
		headers = append(headers, "HOLD")
	}
	headers = append(headers, "TOTAL", "JOB_IDS")
	t := &table{headers: headers, right: make([]bool, len(headers))}
	for i := 3; i < len(headers)-1; i++ {
		t.right[i] = true
	}
	for _, b := range batches {
		name := b.Name
		if name == "" {
			name = "ID: " + strconv.FormatInt(b.Cluster, 10)
		}
		total := max(b.Total, int64(b.Jobs))
		done := total - int64(b.Jobs) - b.Unmade // a factory's procs not yet made are not done
		row := []string{b.Owner, name, shortDate(b.Submitted), dash(done), dash(int64(b.Running)), dash(int64(b.Idle))}
		if anyHeld {
			row = append(row, dash(int64(b.Held)))
		}
		row = append(row, strconv.FormatInt(total, 10), idRange(b.First, b.Last))
		t.add(row...)
	}
	return t
}

// dash prints a count, "_" for none, as condor_q does.
func dash(n int64) string {
	if n == 0 {
		return "_"
	}
	return strconv.FormatInt(n, 10)
}

// idRange prints the first and last job ids of a batch.
func idRange(first, last string) string {
	if first == last {
		return first
	}
	fc, _, _ := strings.Cut(first, ".")
	lc, lp, _ := strings.Cut(last, ".")
	if fc == lc {
		return first + "-" + lp
	}
	return first + " ... " + last
}

func shortDate(unix int64) string {
	if unix == 0 {
		return ""
	}
	return time.Unix(unix, 0).Format("1/2 15:04")
}

// runTime is a job's wall time: past runs and the current one.
func runTime(ad interface{ int(string) int64 }, now time.Time) string {
	secs := ad.int(attr.RemoteWallClockTime)
	if ad.int(attr.JobStatus) == attr.Running {
		if start := ad.int(attr.JobCurrentStartDate); start > 0 {
			secs += now.Unix() - start
		}
	}
	return formatDuration(secs)
}

// command is a job's executable and arguments, as condor_q's CMD.
func command(ad interface{ str(string) string }) string {
	cmd := path.Base(ad.str(attr.Cmd))
	args := ad.str(attr.Arguments)
	if args == "" {
		args = ad.str(attr.Args)
	}
	if args != "" {
		cmd += " " + args
	}
	return cmd
}

// jobTable is -nobatch: one line per job.
func jobTable(ads []*row, now time.Time) *table {
	t := &table{
		headers: []string{"ID", "OWNER", "SUBMITTED", "RUN_TIME", "ST", "PRI", "SIZE", "CMD"},
		right:   []bool{true, false, false, true, false, true, true, false},
	}
	for _, ad := range ads {
		size := float64(ad.int(attr.ImageSize)) / 1024 // ImageSize is KiB
		if v := ad.value(attr.MemoryUsage); !v.IsUndefined() {
			size = float64(ad.int(attr.MemoryUsage))
		}
		t.add(ad.id(), ad.str(attr.Owner), shortDate(ad.int(attr.QDate)), runTime(ad, now),
			attr.StatusLetter(ad.int(attr.JobStatus)), strconv.FormatInt(ad.int(attr.JobPrio), 10),
			strconv.FormatFloat(size, 'f', 1, 64), command(ad))
	}
	return t
}

// holdTable is -hold: held jobs and why.
func holdTable(ads []*row, now time.Time) *table {
	t := &table{
		headers: []string{"ID", "OWNER", "HELD_SINCE", "CODE/SUB", "HOLD_REASON"},
		right:   []bool{true, false, false, false, false},
	}
	for _, ad := range ads {
		code := fmt.Sprintf("%d/%d", ad.int(attr.HoldReasonCode), ad.int(attr.HoldReasonSubCode))
		t.add(ad.id(), ad.str(attr.Owner), shortDate(ad.int(attr.EnteredCurrentStatus)), code, ad.str(attr.HoldReason))
	}
	return t
}

// runTable is -run: running jobs and where.
func runTable(ads []*row, now time.Time) *table {
	t := &table{
		headers: []string{"ID", "OWNER", "SUBMITTED", "RUN_TIME", "HOST(S)"},
		right:   []bool{true, false, false, true, false},
	}
	for _, ad := range ads {
		t.add(ad.id(), ad.str(attr.Owner), shortDate(ad.int(attr.QDate)), runTime(ad, now), ad.str(attr.RemoteHost))
	}
	return t
}
