package cli

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

type historyOptions struct {
	g          *globals
	name, af   string
	afSet      bool
	constraint []string
	limit      int
	long, json bool
	format     printfFormat
	attributes []string
	wide, back bool
	forwards   bool
}

func init() { addCommand(newHistoryCmd) }

func newHistoryCmd(g *globals) *cobra.Command {
	o := &historyOptions{g: g}
	c := &cobra.Command{
		Use:   "history [options] [owner | cluster | cluster.proc ...]",
		Short: "Show jobs that left the queue, newest first (condor_history)",
		RunE: func(c *cobra.Command, args []string) error {
			o.afSet = c.Flags().Changed("af")
			return o.run(c.Context(), c.OutOrStdout(), args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.name, "name", "", "the schedd (its name or host:port)")
	f.IntVar(&o.limit, "limit", 0, "show at most this many jobs")
	f.IntVar(&o.limit, "match", 0, "the same as -limit")
	f.StringArrayVar(&o.constraint, "constraint", nil, "only jobs for which the expression is true")
	f.BoolVarP(&o.long, "long", "l", false, "print whole job ads")
	f.BoolVar(&o.json, "json", false, "print job ads as JSON")
	f.StringVar(&o.af, "af", "", "print the values of the attributes or expressions given as arguments (-af:[lhVr,tng])")
	f.Lookup("af").NoOptDefVal = " "
	f.Var(&o.format, "format", "print ATTR with the printf format FMT (-format FMT ATTR, repeatable)")
	f.StringSliceVar(&o.attributes, "attributes", nil, "with -long or -json: only these attributes (comma-separated)")
	f.BoolVar(&o.wide, "wide", false, "do not truncate the CMD column (Kite never does)")
	f.BoolVar(&o.back, "backwards", false, "newest first (the default)")
	f.Bool("schedd", false, "the schedd's history (the default; Kite keeps no other)")
	f.BoolVar(&o.forwards, "forwards", false, "oldest first; with -limit N, the N oldest")
	return c
}

func (o *historyOptions) run(ctx context.Context, w io.Writer, args []string) error {
	var af *autoFormat
	var err error
	switch {
	case o.afSet && o.format.set():
		return usageError{errors.New("-af and -format may not be used together")}
	case len(o.attributes) > 0 && !o.long && !o.json:
		return usageError{errors.New("-attributes goes with -long or -json")}
	}
	if o.afSet {
		ids := leadingIDs(args) // kite history 13.0 -af ClusterId: 13.0 is a job
		if af, err = parseAutoFormat(strings.TrimSpace(o.af), args[len(ids):]); err != nil {
			return err
		}
		args = ids
	}
	ids, owners := splitArgs(args)
	var parts []string
	for _, c := range o.constraint {
		parts = append(parts, "("+c+")")
	}
	q := wire.HistoryQuery{IDs: ids, Owners: owners, Constraint: strings.Join(parts, " && "), Limit: o.limit}
	if o.forwards {
		q.Limit = 0 // the oldest are the last the schedd sends
	}
	switch {
	case af != nil && !af.raw:
		q.Projection = af.references()
	case o.format.set():
		q.Projection = o.format.references()
	case len(o.attributes) > 0:
		q.Projection = o.attributes
	}
	s, err := o.g.findSchedd(ctx, o.name)
	if err != nil {
		return err
	}
	var ads []*classad.Ad
	if err := s.api.History(ctx, q, func(ad *classad.Ad) error { ads = append(ads, ad); return nil }); err != nil {
		return err
	}
	if o.forwards {
		slices.Reverse(ads)
		if o.limit > 0 && len(ads) > o.limit {
			ads = ads[:o.limit]
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
	return historyTable(adRows(ads), time.Now()).write(w)
}

// historyTable is condor_history's default view.
func historyTable(ads []*row, now time.Time) *table {
	t := &table{
		headers: []string{"ID", "OWNER", "SUBMITTED", "RUN_TIME", "ST", "COMPLETED", "CMD"},
		right:   []bool{true, false, false, true, false, false, false},
	}
	for _, ad := range ads {
		t.add(ad.id(), ad.str(attr.Owner), shortDate(ad.int(attr.QDate)), runTime(ad, now),
			attr.StatusLetter(ad.int(attr.JobStatus)), shortDate(ad.int(attr.CompletionDate)), command(ad))
	}
	return t
}
