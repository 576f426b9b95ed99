package sim

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/sita"
)

// SITA-E auto-tuning on 4 hosts (issue 23): the sizes' a drops from 1.8
// to 1.2 half-way. The plan starts fitted to the first half; the tuner
// (sita.tune) sees each job's size as it arrives and moves the hosts'
// boundaries; the hosts re-advertise them and the negotiator's own cycle
// (matchmaker.Cycle, ClassAd matching of the slots' Requirements) places
// the jobs. In the second half, once the tuner has seen a window of the
// new sizes, each host's share of the new jobs' work stays within 20 %
// of the plan's optimum (equal shares: M at most 20 % of the mean load,
// and every host within 20 % of it), where the fixed plan misses it by
// far.
const drift = `
[pool]
dispatch = "queue"
cycle_delay = 0
[[machines]]
name = "host"
count = 4
[[workload]]
type = "a18"
count = 20000
size = { dist = "pareto", k = 1, p = 1e3, a = 1.8 }
arrival = { process = "poisson", load = 0.7 }
[[workload]]
type = "a12"
count = 20000
size = { dist = "pareto", k = 1, p = 1e3, a = 1.2 }
arrival = { process = "poisson", load = 0.7, at = %g }
[[policy]]
name = "tuned"
sita = { intervals = 4, fit = "workload", tune = { every = "100s", window = 3000, threshold = 15 } }
[[policy]]
name = "fixed"
sita = { intervals = 4, fit = "workload" }
`

func TestSitaTuningFollowsDrift(t *testing.T) {
	first := sita.Pareto{K: 1, P: 1e3, A: 1.8}
	rate := 0.7 * 4 / first.Mean()
	switchAt := 20000 / rate // the second half starts as the first ends
	sc := parse(t, fmt.Sprintf(drift, switchAt))
	st := sc.Setups[0]
	shares := map[string][]float64{}
	for _, pol := range st.Policies {
		e, err := newEngine(context.Background(), st, pol, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.run(); err != nil {
			t.Fatal(err)
		}
		r := e.result()
		// The new jobs' work per host, from when the tuner has had a
		// window (3000 jobs) of them.
		loads := make([]float64, len(e.machines))
		settled := switchAt + 3000/(0.7*4/sita.Pareto{K: 1, P: 1e3, A: 1.2}.Mean())
		for i := range e.jobs {
			j := &e.jobs[i]
			if j.group == 1 && j.arrival >= settled {
				loads[j.machine] += j.work
			}
		}
		_, mean, pct := sita.Imbalance(loads)
		worst := 0.0
		for _, l := range loads {
			worst = math.Max(worst, math.Abs(l-mean)/mean)
		}
		shares[pol.Name] = []float64{pct, 100 * worst}
		t.Logf("%s: loads %.0f, M %.1f %% of the mean, worst host %.1f %% off; %d moves", pol.Name, loads, pct, 100*worst, len(r.Retunes))
		switch pol.Name {
		case "tuned":
			if len(r.Retunes) == 0 {
				t.Fatal("the tuner never moved the plan")
			}
			last := r.Retunes[len(r.Retunes)-1]
			if last.At < switchAt || math.Abs(last.A-1.2) > 0.1 {
				t.Errorf("last move at %.0f s to a = %.3f: want one after %.0f s to a near 1.2", last.At, last.A, switchAt)
			}
			for _, m := range r.Retunes {
				if m.At < switchAt {
					t.Errorf("a move at %.0f s (drift %.1f %%), before the sizes changed: the hysteresis let a wobble through", m.At, m.Drift)
				}
			}
			// The hosts advertise the last plan's boundaries.
			iv := sita.Intervals{X: last.Bounds}
			for _, s := range e.slots {
				i := int(classad.EvalNumberOr(s.ad, sita.AttrInterval, 0))
				lo := classad.EvalNumberOr(s.ad, sita.AttrLowerBound, math.NaN())
				if i < 1 || i > 4 || lo != iv.Lower(i) {
					t.Errorf("%s (interval %d) advertises lower bound %g, the plan says %g", s.name, i, lo, iv.Lower(i))
				}
			}
		}
	}
	if got := shares["tuned"]; got[0] > 20 || got[1] > 20 {
		t.Errorf("tuned: M %.1f %%, worst host %.1f %% off the mean: want both within 20 %%", got[0], got[1])
	}
	if got := shares["fixed"]; got[0] < 40 {
		t.Errorf("fixed plan: M %.1f %% in the second half: the drift does not show, the test proves nothing", got[0])
	}
}

// tune needs source = config and sane settings.
func TestSitaTuneErrors(t *testing.T) {
	for _, c := range []struct{ tune, want string }{
		{`source = "job", k = 1, p = 1e3, a = 1.5, tune = {}`, `tune needs source = "config"`},
		{`fit = "workload", tune = { every = 0 }`, "every"},
		{`fit = "workload", tune = { window = 100, min_sizes = 500 }`, "min_sizes = 500"},
		{`fit = "workload", tune = { threshold = 0 }`, "threshold"},
		{`fit = "workload", tune = { method = "median" }`, "method"},
		{`fit = "workload", tune = { windows = 10 }`, "windows"},
	} {
		text := strings.Replace(fmt.Sprintf(drift, 1000.0), `fit = "workload", tune = { every = "100s", window = 3000, threshold = 15 }`, c.tune, 1)
		if _, err := Parse("t.toml", text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.tune, err, c.want)
		}
	}
}
