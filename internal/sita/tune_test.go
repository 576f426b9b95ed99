package sita

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// A tuner fed sizes of one distribution makes a plan near its
// equal-load intervals and keeps it while the sizes keep coming from
// there (the fits wobble within the threshold); when a changes, it moves
// to the new distribution's intervals once the window holds the new
// sizes, and not before Hold has passed.
func TestTunerFollowsDrift(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	before, after := Pareto{K: 1, P: 1e3, A: 1.8}, Pareto{K: 1, P: 1e3, A: 1.2}
	draw := func(d Pareto, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = d.Sample(r)
		}
		return out
	}
	t0 := time.Unix(0, 0)
	tu, err := NewTuner(TuneConfig{Intervals: 4, Window: 4000, Hold: time.Hour}, nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tu.Plan(); ok {
		t.Fatal("a plan before any size")
	}
	tu.Observe(draw(before, 500)...)
	if _, _, err := tu.Tune(t0); err == nil || !strings.Contains(err.Error(), "500 sizes seen, 1000 needed") {
		t.Errorf("tune on 500 sizes: %v", err)
	}
	tu.Observe(draw(before, 3500)...)
	plan, c, err := tu.Tune(t0)
	if err != nil || !c.Moved || plan.Generation != 1 {
		t.Fatalf("first plan: %+v, %+v, %v", plan, c, err)
	}
	// A plan is judged by what it does: the hosts' expected loads under
	// the true distribution. Paper 003's fit takes p as the largest size
	// seen, below the true p when the tail is heavy (454 of 1000 for the
	// 4000 sizes of a = 1.2 here), so the top boundaries come out low and
	// the top interval carries more than its share: M of about 13 %.
	imbalance := func(d Pareto, iv Intervals) float64 {
		loads, _ := d.ExpectedLoads(iv)
		_, _, pct := Imbalance(loads)
		return pct
	}
	if m := imbalance(before, plan.Intervals); m > 5 {
		t.Errorf("plan %v loads B(1, 1e3, 1.8) unequally: M = %.1f %% of the mean", plan.Intervals.X, m)
	}
	for k := 1; k <= 5; k++ {
		tu.Observe(draw(before, 2000)...)
		p, c, err := tu.Tune(t0.Add(time.Duration(k) * 2 * time.Hour))
		if err != nil || c.Moved || p.Generation != 1 {
			t.Errorf("same sizes, round %d: moved %v (drift %.1f %%), generation %d, %v", k, c.Moved, c.Drift, p.Generation, err)
		}
	}
	// a drops to 1.2: the window fills with the new sizes.
	at := t0.Add(20 * time.Hour)
	tu.Observe(draw(after, 4000)...)
	plan, c, err = tu.Tune(at)
	if err != nil || !c.Moved || plan.Generation != 2 || !plan.At.Equal(at) {
		t.Fatalf("after the drift: %+v, drift %.1f %%, %v", plan, c.Drift, err)
	}
	if m := imbalance(after, plan.Intervals); m > 15 || math.Abs(plan.Pareto.A-1.2) > 0.1 {
		t.Errorf("plan %v (a = %.3f) loads B(1, 1e3, 1.2) unequally: M = %.1f %% of the mean", plan.Intervals.X, plan.Pareto.A, m)
	}
	old, _ := before.Boundaries(4)
	if m := imbalance(after, old); m < 20 {
		t.Errorf("the old plan loads the new sizes with M = %.1f %%: the test shows no drift", m)
	}
	// Back to 1.8 within the hour: held, then moved.
	tu.Observe(draw(before, 4000)...)
	if p, c, _ := tu.Tune(at.Add(time.Minute)); c.Moved || !c.Held || p.Generation != 2 {
		t.Errorf("within Hold: moved %v, held %v, generation %d", c.Moved, c.Held, p.Generation)
	}
	if p, c, _ := tu.Tune(at.Add(time.Hour)); !c.Moved || p.Generation != 3 {
		t.Errorf("after Hold: moved %v, generation %d", c.Moved, p.Generation)
	}
}

// An initial plan is in force until the window says otherwise; bad
// sizes are skipped; bad settings are errors that name them.
func TestTunerSettings(t *testing.T) {
	d := Pareto{K: 10, P: 1e6, A: 1.5}
	tu, err := NewTuner(TuneConfig{Intervals: 8}, &d, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := tu.Plan(); !ok || p.Generation != 1 || p.Pareto != d || p.Intervals.N() != 8 {
		t.Errorf("initial plan %+v, %v", p, ok)
	}
	if c := tu.Config(); c.Window != 2000 || c.MinSizes != 1000 || c.Threshold != 10 || c.Method != Moments {
		t.Errorf("defaults %+v", c)
	}
	if n := tu.Observe(1, 0, -3, math.NaN(), math.Inf(1), 5); n != 4 {
		t.Errorf("skipped %d of 1, 0, -3, NaN, +Inf, 5; want 4", n)
	}
	for _, c := range []struct {
		cfg  TuneConfig
		want string
	}{
		{TuneConfig{}, "intervals = 0"},
		{TuneConfig{Intervals: 4, Window: 1}, "window = 1"},
		{TuneConfig{Intervals: 4, Window: 100, MinSizes: 200}, "min_sizes = 200"},
		{TuneConfig{Intervals: 4, Threshold: 150}, "threshold = 150"},
		{TuneConfig{Intervals: 4, Hold: -time.Second}, "hold = -1s"},
		{TuneConfig{Intervals: 4, Method: "median"}, `method = "median"`},
	} {
		if _, err := NewTuner(c.cfg, nil, time.Time{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.cfg, err, c.want)
		}
	}
	if _, err := NewTuner(TuneConfig{Intervals: 4}, &Pareto{K: 5, P: 1, A: 1}, time.Time{}); err == nil {
		t.Error("a bad initial plan: want an error")
	}
}
