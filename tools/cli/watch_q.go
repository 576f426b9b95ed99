package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"
)

// qWatch holds kite q -watch's options.
type qWatch struct {
	on   bool
	opts watchOptions
}

// watchFlags registers -watch and its options on kite q.
func (qw *qWatch) flags(f *pflag.FlagSet) {
	f.BoolVar(&qw.on, "watch", false, "show live progress of the selected jobs by batch until they all leave the queue (condor_watch_q)")
	f.DurationVar(&qw.opts.interval, "interval", 2*time.Second, "with -watch: how often to ask the schedd")
	f.DurationVar(&qw.opts.timeout, "timeout", 0, "with -watch: give up after this long (status 1, \"Time expired.\")")
	f.BoolVar(&qw.opts.exitHeld, "exit-held", false, "with -watch: stop, status 1, as soon as a watched job is held")
}

// runWatch is kite q -watch: the selected jobs' progress, by batch.
func (o *qOptions) runWatch(ctx context.Context, w io.Writer, args []string) error {
	if o.watching.opts.interval <= 0 {
		return usageError{fmt.Errorf("-interval must be positive")}
	}
	if o.long || o.json || o.afSet || o.format.set() || o.analyze || o.nobatch || o.run || o.idle || o.total || o.global || o.userlog != "" {
		return usageError{fmt.Errorf("-watch shows progress by batch: it does not go with -long, -json, -af, -format, -nobatch, -run, -idle, -totals, -global, -userlog or -analyze")}
	}
	s, q, _, err := o.selection(ctx, o.name, args)
	if err != nil {
		return err
	}
	opts := o.watching.opts
	opts.schedd = s.name
	qw := newQueueWatch(s.client, q)
	end, err := qw.run(ctx, newDisplay(w, isTerminal(w)), opts, o.now)
	if errors.Is(err, errNoJobs) {
		_, err = fmt.Fprintln(w, "No jobs to watch: none in the queue match.")
		return err
	}
	if err != nil {
		return err
	}
	switch end {
	case endTimeout:
		return errors.New("Time expired.")
	case endHeld:
		return fmt.Errorf("%d job(s) held", qw.total.Held)
	}
	return nil
}
