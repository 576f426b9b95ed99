package sitatune_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/sitatune"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// A schedd with no machines: its jobs stay idle, so every pass sees and
// writes them all.
type schedd struct {
	t    *testing.T
	p    *pooltest.Pool
	user *wire.Client
}

func newSchedd(t *testing.T) *schedd {
	p := pooltest.New(t)
	start.Collector(t, p)
	start.Schedd(t, p, "schedd:1", nil)
	return &schedd{t: t, p: p, user: p.Client("schedd:1", "alice", auth.Write)}
}

// submit queues one job per size; plan, when not "", is the submit
// file's lines giving the jobs k, p and a.
func (s *schedd) submit(plan string, sizes ...float64) {
	s.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "executable = /bin/true\n+JobSize = $(size)\n%squeue size from (\n", plan)
	for _, x := range sizes {
		fmt.Fprintf(&b, "%g\n", x)
	}
	b.WriteString(")\n")
	dir := s.t.TempDir()
	d, _, err := submit.Parse(filepath.Join(dir, "job.sub"), []byte(b.String()))
	if err != nil {
		s.t.Fatal(err)
	}
	var nc wire.NewCluster
	ctx := context.Background()
	if err := s.user.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		s.t.Fatal(err)
	}
	env := submit.LocalEnv(dir)
	env.Cluster, env.Owner = int(nc.Cluster), nc.Owner
	c, _, err := d.Expand(env)
	if err != nil {
		s.t.Fatal(err)
	}
	var res wire.SubmitResult
	if err := s.user.CallRaw(ctx, "POST", wire.PathSubmit+"?cluster="+strconv.FormatInt(nc.Cluster, 10), c.AppendJSON(nil), &res); err != nil {
		s.t.Fatal(err)
	}
}

// plans counts the plans the queue's jobs carry ("none" for none).
func (s *schedd) plans() map[string]int {
	s.t.Helper()
	out := map[string]int{}
	err := s.user.Stream(context.Background(), "POST", wire.PathQueue, wire.JobQuery{}, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err != nil {
			return err
		}
		if d := sitatune.Carried(ad); d != nil {
			out[d.String()]++
		} else {
			out["none"]++
		}
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

// sizes are n sizes of d, evenly spread over its quantiles (a sample
// without noise).
func sizes(d sita.Pareto, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = d.Quantile((float64(i) + 0.5) / float64(n))
	}
	return out
}

// A tuner's passes: the first moves to the fit and writes it into every
// idle job; a keep writes the plan in force only into the jobs that do
// not carry it (submitted since, or with another plan); a drift past the
// threshold within the hold waits, and moves once the hold has passed;
// without Apply nothing is written.
func TestPasses(t *testing.T) {
	s := newSchedd(t)
	before, after := sita.Pareto{K: 1, P: 100, A: 1.8}, sita.Pareto{K: 1, P: 100, A: 0.8}
	s.submit("", sizes(before, 200)...)
	cfg := sita.TuneConfig{Intervals: 4, Window: 1000, MinSizes: 100, Hold: time.Hour}
	dry, err := sitatune.New(s.user, sitatune.Options{Tune: cfg, Attr: "JobSize"})
	if err != nil {
		t.Fatal(err)
	}
	tu, err := sitatune.New(s.user, sitatune.Options{Tune: cfg, Attr: "JobSize", Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t0 := time.Unix(1_000_000, 0)

	p, err := dry.Pass(ctx, t0)
	if err != nil || !p.Check.Moved || p.Set != 0 || p.Current != nil {
		t.Fatalf("a pass without Apply: %+v, %v; want a move, nothing written", p, err)
	}
	if got := s.plans(); got["none"] != 200 {
		t.Fatalf("without Apply the jobs carry %v, want none", got)
	}

	p, err = tu.Pass(ctx, t0)
	if err != nil || !p.Check.Moved || p.Set != 200 || p.Plan.Generation != 1 {
		t.Fatalf("the first pass: %+v, %v; want a move written into 200 jobs, generation 1", p, err)
	}
	first := p.Plan.Pareto
	if a := first.A; a < 1.7 || a > 1.9 {
		t.Errorf("the first fit's a = %v, want about 1.8", a)
	}

	// Ten new jobs of the same sizes' kind, five carrying another plan.
	s.submit("", sizes(before, 5)...)
	s.submit("+Min_size_of_job = 2.0\n+Max_size_of_job = 50.0\n+Pareto_variability = 1.0\n", sizes(before, 5)...)
	p, err = tu.Pass(ctx, t0.Add(time.Minute))
	if err != nil || p.Check.Moved || p.Set != 10 || p.Current == nil || *p.Current != first || p.Carriers != 200 {
		t.Fatalf("a keep: %+v, %v; want the plan in force (%s, 200 carriers) written into the 10 new jobs", p, err, first)
	}
	if got := s.plans(); len(got) != 1 || got[first.String()] != 210 {
		t.Fatalf("after the keep the jobs carry %v, want %s on all 210", got, first)
	}

	// The sizes drift: within the hour the move waits, after it it moves.
	s.submit("", sizes(after, 200)...)
	p, err = tu.Pass(ctx, t0.Add(30*time.Minute))
	if err != nil || p.Check.Moved || !p.Check.Held || p.Check.Drift <= 10 || p.Set != 200 {
		t.Fatalf("a drift within the hold: %+v, %v; want it held, the plan in force written into the 200 new jobs", p, err)
	}
	p, err = tu.Pass(ctx, t0.Add(2*time.Hour))
	if err != nil || !p.Check.Moved || p.Set != 410 || p.Plan.Generation != 2 || p.Plan.Pareto == first {
		t.Fatalf("a drift after the hold: %+v, %v; want a second plan written into all 410 idle jobs", p, err)
	}
}

// Bad options are refused before anything is read.
func TestNewRefuses(t *testing.T) {
	for _, c := range []struct {
		opts sitatune.Options
		want string
	}{
		{sitatune.Options{Tune: sita.TuneConfig{Intervals: 0}}, "intervals = 0"},
		{sitatune.Options{Tune: sita.TuneConfig{Intervals: 4, Threshold: 100}}, "threshold = 100"},
		{sitatune.Options{Tune: sita.TuneConfig{Intervals: 4}, Attr: "not an attr"}, "size attribute"},
		{sitatune.Options{Tune: sita.TuneConfig{Intervals: 4, Hold: -time.Second}}, "hold"},
	} {
		if _, err := sitatune.New(nil, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.opts, err, c.want)
		}
	}
}
