package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

type statusOptions struct {
	g                                           *globals
	long, json, total, absent                   bool
	schedd, submitters, negotiator, master, any bool
	collector                                   bool
	constraint                                  []string
	af                                          string
	afSet                                       bool
	limit                                       int
	format                                      printfFormat
	attributes                                  []string
	startd, avail, claimed                      bool
	gpus                                        bool // condor_status -gpus (status_gpus.go)
	stderr                                      io.Writer
}

func newStatusCmd(g *globals) *cobra.Command {
	o := &statusOptions{g: g}
	c := &cobra.Command{
		Use:   "status [options] [name...]",
		Short: "Show the pool's slots and daemons (condor_status)",
		Long: `Show the slots of the pool and a summary by platform, or other daemons' ads.

Names select slots (or daemons) by Name or by Machine; -avail selects the
slots that could run a job now, -claimed the claimed ones. HTCondor's
single-dash options work too: kite status -af Name Memory, -format '%s\n' Name.`,
		RunE: func(c *cobra.Command, args []string) error {
			o.afSet = c.Flags().Changed("af")
			o.stderr = c.ErrOrStderr()
			return o.run(c.Context(), c.OutOrStdout(), args)
		},
	}
	f := c.Flags()
	f.BoolVarP(&o.long, "long", "l", false, "print whole ads")
	f.BoolVar(&o.json, "json", false, "print ads as JSON")
	f.BoolVar(&o.total, "total", false, "print only the summary")
	f.BoolVar(&o.absent, "absent", false, "show only ads whose daemon gossip reports dead")
	f.BoolVar(&o.schedd, "schedd", false, "show schedds")
	f.BoolVar(&o.submitters, "submitters", false, "show submitters")
	f.BoolVar(&o.negotiator, "negotiator", false, "show negotiators")
	f.BoolVar(&o.master, "master", false, "show masters")
	f.BoolVar(&o.collector, "collector", false, "show collectors")
	f.BoolVar(&o.any, "any", false, "show every ad")
	f.StringArrayVar(&o.constraint, "constraint", nil, "only ads for which the expression is true")
	f.StringVar(&o.af, "af", "", "print the values of the attributes or expressions given as arguments (-af:[lhVr,tng])")
	f.Lookup("af").NoOptDefVal = " "
	f.IntVar(&o.limit, "limit", 0, "show at most this many ads")
	f.Var(&o.format, "format", "print ATTR with the printf format FMT (-format FMT ATTR, repeatable)")
	f.StringSliceVar(&o.attributes, "attributes", nil, "with -long or -json: only these attributes (comma-separated)")
	f.BoolVar(&o.startd, "startd", false, "show slots (the default)")
	f.BoolVar(&o.avail, "avail", false, "show slots that are available to run a job: unclaimed and idle")
	f.BoolVar(&o.claimed, "claimed", false, "show claimed slots")
	f.BoolVar(&o.gpus, "gpus", false, "show the slots with GPUs: their GPUs, GPU memory and model")
	return c
}

// adType returns the MyType the options ask for ("" for all).
func (o *statusOptions) adType() string {
	switch {
	case o.any:
		return ""
	case o.schedd:
		return attr.TypeScheduler
	case o.submitters:
		return attr.TypeSubmitter
	case o.negotiator:
		return attr.TypeNegotiator
	case o.master:
		return attr.TypeMaster
	case o.collector:
		return attr.TypeCollector
	}
	return attr.TypeSlot
}

func (o *statusOptions) run(ctx context.Context, w io.Writer, args []string) error {
	af, args, err := o.options(args)
	if err != nil {
		return err
	}
	q := wire.Query{Type: o.adType(), Constraint: o.query(args), Limit: o.limit, Absent: o.absent}
	switch {
	case af != nil && !af.raw:
		q.Projection = af.references()
	case o.format.set():
		q.Projection = o.format.references()
	case len(o.attributes) > 0:
		q.Projection = o.attributes
	}
	ads, err := o.fetch(ctx, q)
	if err != nil {
		return err
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
	return o.printTable(w, ads)
}

// options checks the output options and takes -af's expressions from
// the arguments, returning the names left.
func (o *statusOptions) options(args []string) (*autoFormat, []string, error) {
	switch {
	case o.afSet && o.format.set():
		return nil, nil, usageError{errors.New("-af and -format may not be used together")}
	case len(o.attributes) > 0 && !o.long && !o.json:
		return nil, nil, usageError{errors.New("-attributes goes with -long or -json")}
	case (o.avail || o.claimed || o.gpus) && o.adType() != attr.TypeSlot:
		return nil, nil, usageError{errors.New("-avail, -claimed and -gpus select slots")}
	case !o.afSet:
		return nil, args, nil
	}
	af, err := parseAutoFormat(strings.TrimSpace(o.af), args)
	if err == nil && af.jobID {
		err = usageError{errors.New("-af:j: the ads of condor_status have no job id")}
	}
	return af, nil, err
}

// query combines -constraint options, -absent and name arguments.
func (o *statusOptions) query(names []string) string {
	var parts []string
	for _, c := range o.constraint {
		parts = append(parts, "("+c+")")
	}
	if o.absent {
		parts = append(parts, "(Absent =?= true)")
	}
	if o.avail {
		parts = append(parts, `(State == "Unclaimed" && Activity == "Idle")`)
	}
	if o.claimed {
		parts = append(parts, `(State == "Claimed")`)
	}
	if o.gpus {
		parts = append(parts, gpuSlots)
	}
	if len(names) > 0 {
		var or []string
		for _, n := range names {
			q := strconv.Quote(n)
			or = append(or, fmt.Sprintf("Name == %s || Machine == %s", q, q))
		}
		parts = append(parts, "("+strings.Join(or, " || ")+")")
	}
	return strings.Join(parts, " && ")
}

func (o *statusOptions) fetch(ctx context.Context, q wire.Query) ([]*classad.Ad, error) {
	cfg, err := o.g.loadConfig()
	if err != nil {
		return nil, err
	}
	client, err := o.g.apiClient(cfg)
	if err != nil {
		return nil, err
	}
	coll := client.Collector()
	ads, err := coll.QueryAll(ctx, q)
	if err == nil && len(cfg.Pool.Collectors) > 1 {
		// Several collectors: say which one answered (condor_status
		// names the pool it asked).
		fmt.Fprintf(o.stderr, "-- answered by the collector at %s\n", coll.Addr())
	}
	return ads, err
}

// adStreamer is a collector's client, or the pool's collectors'
// (wire.Collectors: the first that answers).
type adStreamer interface {
	Stream(ctx context.Context, method, path string, in any, each func(item json.RawMessage) error) error
}

// queryAds runs a collector query and decodes the streamed ads.
func queryAds(ctx context.Context, c adStreamer, q wire.Query) ([]*classad.Ad, error) {
	var ads []*classad.Ad
	err := c.Stream(ctx, "POST", wire.PathQuery, q, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err != nil {
			return fmt.Errorf("collector sent a bad ad: %w", err)
		}
		ads = append(ads, ad)
		return nil
	})
	return ads, err
}

func (o *statusOptions) printTable(w io.Writer, ads []*classad.Ad) error {
	switch o.adType() {
	case attr.TypeSlot:
		if o.gpus && !o.total {
			if err := gpuTable(ads).write(w); err != nil {
				return err
			}
			fmt.Fprintln(w)
		} else if !o.total {
			if err := slotTable(ads).write(w); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
		return slotSummary(ads).write(w)
	case "":
		return adsTable(ads, "MyType", "TargetType", "Name").write(w)
	case attr.TypeScheduler:
		return adsTable(ads, scheddColumns...).write(w)
	case attr.TypeSubmitter:
		return adsTable(ads, "Name", "Machine", "RunningJobs", "IdleJobs", "HeldJobs").write(w)
	}
	return adsTable(ads, "Name", "MyAddress").write(w)
}

// scheddColumns are condor_status -schedd's columns, from the schedd
// ad's totals of every owner's jobs.
var scheddColumns = []string{"Name", "Machine", "RunningJobs=TotalRunningJobs", "IdleJobs=TotalIdleJobs", "HeldJobs=TotalHeldJobs"}

// str evaluates an attribute of an ad for display.
func str(ad *classad.Ad, name string) string {
	v, _ := classad.EvalAttr(ad, name, nil)
	if v.IsUndefined() {
		return ""
	}
	return formatValue(v, false)
}

// adsTable prints attributes of ads in columns: "HEADING=Attr" shows Attr
// under another heading.
func adsTable(ads []*classad.Ad, cols ...string) *table {
	headers, names := make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		headers[i], names[i], _ = strings.Cut(c, "=")
		if names[i] == "" {
			names[i] = headers[i]
		}
	}
	t := &table{headers: headers, right: make([]bool, len(cols))}
	for _, ad := range ads {
		row := make([]string, len(cols))
		for i, n := range names {
			row[i] = str(ad, n)
		}
		t.add(row...)
	}
	return t
}

// slotTable is condor_status's default view of slots.
func slotTable(ads []*classad.Ad) *table {
	t := &table{
		headers: []string{"Name", "OpSys", "Arch", "State", "Activity", "LoadAv", "Mem", "ActvtyTime"},
		right:   []bool{false, false, false, false, false, true, true, true},
	}
	now := time.Now().Unix()
	for _, ad := range ads {
		load := "0.000"
		if v, _ := classad.EvalAttr(ad, "LoadAvg", nil); v.IsNumber() {
			f, _ := v.NumberValue()
			load = fmt.Sprintf("%.3f", f)
		}
		since := now
		if v, _ := classad.EvalAttr(ad, "EnteredCurrentActivity", nil); v.IsNumber() {
			f, _ := v.NumberValue()
			since = int64(f)
		}
		t.add(str(ad, "Name"), str(ad, "OpSys"), str(ad, "Arch"), str(ad, "State"), str(ad, "Activity"),
			load, str(ad, "Memory"), formatDuration(now-since))
	}
	return t
}

// formatDuration is HTCondor's d+hh:mm:ss.
func formatDuration(secs int64) string {
	secs = max(secs, 0)
	return fmt.Sprintf("%d+%02d:%02d:%02d", secs/86400, secs%86400/3600, secs%3600/60, secs%60)
}

// slotStates are the summary's columns after Total, and the State each
// counts (Backfill idle is BkIdle).
var slotStates = []string{"Owner", "Claimed", "Unclaimed", "Matched", "Preempting", "Drained", "Backfill"}

// slotSummary counts slots by platform and state.
func slotSummary(ads []*classad.Ad) *table {
	counts := map[string][]int{}
	for _, ad := range ads {
		platform := str(ad, "Arch") + "/" + str(ad, "OpSys")
		c := counts[platform]
		if c == nil {
			c = make([]int, len(slotStates)+2)
			counts[platform] = c
		}
		c[0]++
		state := str(ad, "State")
		for i, s := range slotStates {
			if strings.EqualFold(s, state) {
				c[i+1]++
			}
		}
		if strings.EqualFold(state, "Backfill") && strings.EqualFold(str(ad, "Activity"), "Idle") {
			c[len(c)-1]++
		}
	}
	headers := []string{"", "Total", "Owner", "Claimed", "Unclaimed", "Matched", "Preempting", "Drain", "Backfill", "BkIdle"}
	t := &table{headers: headers, right: []bool{true, true, true, true, true, true, true, true, true, true}, totals: true}
	platforms := make([]string, 0, len(counts))
	for p := range counts {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)
	total := make([]int, len(slotStates)+2)
	for _, p := range platforms {
		t.add(append([]string{p}, itoas(counts[p])...)...)
		for i, n := range counts[p] {
			total[i] += n
		}
	}
	t.add(append([]string{"Total"}, itoas(total)...)...)
	return t
}

func itoas(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.Itoa(n)
	}
	return out
}
