package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/wire"
)

func init() {
	addCommand(newNegotiatorCmd)
	addCommand(newUserprioCmd)
	addCommand(newRescheduleCmd)
}

func newNegotiatorCmd(g *globals) *cobra.Command {
	return daemonCmd(g, "negotiator", "Run the negotiator: matchmaking cycles and fair share",
		func(env *daemon.Env, cfg *config.Config) (daemon.Service, error) {
			nc, err := negotiator.ConfigFrom(cfg)
			if err != nil {
				return nil, err
			}
			return negotiator.New(env, nc)
		})
}

// negotiatorClient finds the negotiator through the collector (or takes
// the address given) and returns a client for it.
func negotiatorClient(ctx context.Context, g *globals, addr string) (*wire.Client, error) {
	cfg, err := g.loadConfig()
	if err != nil {
		return nil, err
	}
	conn, err := g.connector(cfg)
	if err != nil {
		return nil, err
	}
	if addr != "" {
		return conn.Client(addr), nil
	}
	ads, err := queryAds(ctx, conn.Collectors(cfg.Pool.CollectorAddrs()), wire.Query{Type: attr.TypeNegotiator, Projection: []string{attr.MyAddress, attr.RaftState}})
	if err != nil {
		return nil, err
	}
	// In a Raft group, the leader first (a follower passes changes on to
	// it); the first that answers.
	var leaders, others []string
	for _, ad := range ads {
		switch a := str(ad, attr.MyAddress); {
		case a == "":
		case str(ad, attr.RaftState) == "Leader":
			leaders = append(leaders, a)
		default:
			others = append(others, a)
		}
	}
	for _, a := range append(leaders, others...) {
		cl := conn.Client(a)
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := cl.Call(pctx, "GET", wire.PathCycle, nil, nil)
		cancel()
		if !errors.Is(err, wire.ErrUnreachable) {
			return cl, nil
		}
	}
	return nil, errors.New("no negotiator in the pool (kite status -negotiator shows none)")
}

type userprioOptions struct {
	g                  *globals
	addr               string
	all, json, usage   bool
	setFactor, setPrio string
	resetUsage         string
}

func newUserprioCmd(g *globals) *cobra.Command {
	o := &userprioOptions{g: g}
	c := &cobra.Command{
		Use:   "userprio [options]",
		Short: "Show or change users' priorities (condor_userprio)",
		Long: `Show the accountant's users: effective priority (real priority × factor;
lower gets more of the pool), priority factor, slot weight in use, usage in
weighted hours and the time since it was last used; -usage shows the usage
instead: slot weight in use, usage in weighted hours, when it began and when
it was last used.

  kite userprio -setfactor alice@example.org 2000
  kite userprio -setprio alice@example.org 25
  kite userprio -resetusage alice@example.org

Changing priorities needs an ADMINISTRATOR token.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.run(c.Context(), c.OutOrStdout(), args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.addr, "name", "", "the negotiator's address (default: found through the collector)")
	f.BoolVar(&o.all, "all", false, "also show real priorities and usage start times")
	f.Bool("allusers", false, "show every user the accountant knows (Kite always does)")
	f.BoolVar(&o.json, "json", false, "print JSON")
	f.BoolVar(&o.usage, "usage", false, "show each user's usage: in use, weighted hours, start and last time")
	f.StringVar(&o.setFactor, "setfactor", "", "set this user's priority factor to the argument")
	f.StringVar(&o.setPrio, "setprio", "", "set this user's real priority to the argument (at least 0.5)")
	f.StringVar(&o.resetUsage, "resetusage", "", "reset this user's usage and priority")
	return c
}

func (o *userprioOptions) run(ctx context.Context, w io.Writer, args []string) error {
	c, err := negotiatorClient(ctx, o.g, o.addr)
	if err != nil {
		return err
	}
	switch {
	case o.setFactor != "" && o.setPrio != "":
		return usageError{errors.New("give -setfactor or -setprio, not both")}
	case o.setPrio != "":
		v, err := editValue("setprio", "PRIORITY", args)
		if err != nil {
			return err
		}
		return editUser(ctx, c, w, wire.PathSetPriority, wire.SetPriority{User: o.setPrio, Priority: v},
			func(p wire.Priority) string {
				return "The real priority of " + p.User + " was set to " + trimFloat(p.Real)
			})
	case o.setFactor != "":
		f, err := editValue("setfactor", "FACTOR", args)
		if err != nil {
			return err
		}
		return editUser(ctx, c, w, wire.PathSetFactor, wire.SetFactor{User: o.setFactor, Factor: f},
			func(p wire.Priority) string {
				return "The priority factor of " + p.User + " was set to " + trimFloat(p.Factor)
			})
	case o.resetUsage != "":
		return editUser(ctx, c, w, wire.PathResetUsage, wire.ResetUsage{User: o.resetUsage},
			func(p wire.Priority) string { return "The accumulated usage of " + p.User + " was reset" })
	case len(args) > 0:
		return usageError{fmt.Errorf("unexpected argument %q", args[0])}
	}
	var prios wire.Priorities
	if err := c.Call(ctx, "GET", wire.PathPriorities, nil, &prios); err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(prios.Users)
	}
	return o.print(w, prios.Users, time.Now())
}

// editValue reads the number an edit option takes after its user.
// editUser sends the negotiator an edit of a user's priority record and
// says what it did, from the record the negotiator answers with.
func editUser(ctx context.Context, c *wire.Client, w io.Writer, path string, body any, done func(wire.Priority) string) error {
	var p wire.Priority
	if err := c.Call(ctx, "POST", path, body, &p); err != nil {
		return err
	}
	fmt.Fprintln(w, done(p))
	return nil
}

func editValue(option, what string, args []string) (float64, error) {
	if len(args) != 1 {
		return 0, usageError{fmt.Errorf("-%s USER %s: the %s is missing", option, what, strings.ToLower(what))}
	}
	v, err := strconv.ParseFloat(args[0], 64)
	if err != nil {
		return 0, usageError{fmt.Errorf("-%s: %q is not a number", option, args[0])}
	}
	return v, nil
}

// print writes condor_userprio's table.
func (o *userprioOptions) print(w io.Writer, users []wire.Priority, now time.Time) error {
	if o.usage {
		return printUsage(w, users, now)
	}
	head := []string{"USER", "EFFECTIVE_PRIO", "FACTOR", "IN_USE", "USAGE_HRS", "LAST_USAGE"}
	right := []bool{false, true, true, true, true, true}
	if o.all {
		head = append(head, "REAL_PRIO", "USAGE_START")
		right = append(right, true, false)
	}
	t := &table{headers: head, right: right}
	inUse, usage := 0.0, 0.0
	for _, u := range users {
		row := []string{u.User, fmt.Sprintf("%.2f", u.Effective), fmt.Sprintf("%.2f", u.Factor),
			trimFloat(u.InUse), fmt.Sprintf("%.2f", u.Usage), sinceUsage(u, now)}
		if o.all {
			row = append(row, fmt.Sprintf("%.2f", u.Real), formatStamp(u.BeginUsage))
		}
		t.add(row...)
		inUse += u.InUse
		usage += u.Usage
	}
	if err := t.write(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nNumber of users: %d, in use: %s, usage: %.2f weighted hours\n", len(users), trimFloat(inUse), usage)
	return err
}

// printUsage writes condor_userprio -usage's table: each user's slot
// weight in use, accumulated usage, and when it began and was last used.
func printUsage(w io.Writer, users []wire.Priority, now time.Time) error {
	t := &table{headers: []string{"USER", "IN_USE", "USAGE_HRS", "USAGE_START", "LAST_USAGE_TIME"},
		right: []bool{false, true, true, false, false}}
	inUse, usage := 0.0, 0.0
	for _, u := range users {
		last := formatStamp(u.LastUsage)
		if u.InUse > 0 {
			last = "<now>"
		}
		t.add(u.User, trimFloat(u.InUse), fmt.Sprintf("%.2f", u.Usage), formatStamp(u.BeginUsage), last)
		inUse += u.InUse
		usage += u.Usage
	}
	if err := t.write(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nNumber of users: %d, in use: %s, usage: %.2f weighted hours\n", len(users), trimFloat(inUse), usage)
	return err
}

// sinceUsage is condor_userprio's Time Since Last Usage: "<now>" while
// in use, else days+hours:minutes.
func sinceUsage(u wire.Priority, now time.Time) string {
	switch {
	case u.InUse > 0:
		return "<now>"
	case u.LastUsage.IsZero():
		return "never"
	}
	d := now.Sub(u.LastUsage)
	return fmt.Sprintf("%d+%02d:%02d", int(d.Hours())/24, int(d.Hours())%24, int(d.Minutes())%60)
}

func formatStamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("1/2 15:04")
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func newRescheduleCmd(g *globals) *cobra.Command {
	var addr string
	c := &cobra.Command{
		Use:   "reschedule",
		Short: "Ask the negotiator for a cycle now (condor_reschedule)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cl, err := negotiatorClient(c.Context(), g, addr)
			if err != nil {
				return err
			}
			if err := cl.Call(c.Context(), "POST", wire.PathReschedule, nil, nil); err != nil {
				return err
			}
			fmt.Fprintln(c.OutOrStdout(), "Sent a reschedule request to the negotiator.")
			return nil
		},
	}
	c.Flags().StringVar(&addr, "name", "", "the negotiator's address (default: found through the collector)")
	return c
}
