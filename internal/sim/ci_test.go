package sim

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
)

// Student's t quantiles against the printed tables (e.g. NIST/SEMATECH
// e-Handbook, table 1.3.6.7.2), to the table's 3 decimals.
func TestStudentT(t *testing.T) {
	for _, c := range []struct {
		p    float64
		df   int
		want float64
	}{
		{0.975, 1, 12.706}, {0.975, 2, 4.303}, {0.975, 4, 2.776}, {0.975, 9, 2.262},
		{0.975, 30, 2.042}, {0.95, 5, 2.015}, {0.995, 10, 3.169}, {0.975, 1000, 1.962},
	} {
		if got := StudentT(c.p, c.df); math.Abs(got-c.want) > 0.0015 {
			t.Errorf("t(%g, %d) = %.4f, want %.3f", c.p, c.df, got, c.want)
		}
	}
	if got := StudentT(0.025, 4); math.Abs(got+2.776) > 0.0015 {
		t.Errorf("t(0.025, 4) = %.4f, want -2.776", got)
	}
}

// The half-width of 1, 2, 3, 4, 5: s = √2.5, t(0.975, 4) = 2.7764.
func TestHalfWidth(t *testing.T) {
	got := HalfWidth([]float64{1, 2, 3, 4, 5}, 0.95)
	want := 2.776445 * math.Sqrt(2.5) / math.Sqrt(5)
	if math.Abs(got-want) > 1e-5 {
		t.Errorf("half-width %g, want %g", got, want)
	}
	if HalfWidth([]float64{7}, 0.95) != 0 || HalfWidth([]float64{3, 3, 3}, 0.95) != 0 {
		t.Error("one value, or equal values, must give a half-width of 0")
	}
}

// One host, jobs of size 2 every second: the k-th job (from 0) waits k
// seconds, so leaving out the first 10 of 20 makes the mean wait that of
// jobs 10..19 (14.5 s) instead of 0..19 (9.5 s).
const fifo = `
warmup = 10
[pool]
dispatch = "queue"
cycle_delay = 0
[[machines]]
count = 1
[[workload]]
count = 20
size = 2
arrival = { process = "interval", every = 1 }
[[policy]]
strategy = "round-robin"
`

func TestWarmup(t *testing.T) {
	r := simulate(t, fifo, 0, 1)
	if r.All.Jobs != 10 || r.All.Done != 10 || r.Warmup != 10 {
		t.Fatalf("jobs %d, done %d, warm-up %d: want 10, 10, 10", r.All.Jobs, r.All.Done, r.Warmup)
	}
	if !near(r.All.WaitMean, 14.5, 1e-9) || !near(r.All.TotalMean, 16.5, 1e-9) {
		t.Errorf("wait mean %g, total mean %g: want 14.5 and 16.5 over the jobs after the warm-up", r.All.WaitMean, r.All.TotalMean)
	}
	all := simulate(t, strings.Replace(fifo, "warmup = 10", "", 1), 0, 1)
	if all.All.Jobs != 20 || !near(all.All.WaitMean, 9.5, 1e-9) {
		t.Errorf("without warm-up: %d jobs, wait mean %g; want 20 and 9.5", all.All.Jobs, all.All.WaitMean)
	}
	sc := parse(t, strings.Replace(fifo, "warmup = 10", "warmup = 20", 1))
	if _, err := Simulate(context.Background(), sc.Setups[0], sc.Setups[0].Policies[0], 1); err == nil ||
		!strings.Contains(err.Error(), "warmup = 20 would leave out every one of the 20 jobs") {
		t.Errorf("warm-up of every job: got %v", err)
	}
}

// A scenario with a confidence level gives each mean of the summary its
// interval over the seeds, and the table prints it.
func TestConfidenceIntervals(t *testing.T) {
	text := "confidence = 0.95\nseeds = [1, 2, 3, 4]\n" + strings.Replace(heavy, "count = 2000", "count = 300", 1)
	sc := parse(t, text)
	sc.Setups[0].Policies = sc.Setups[0].Policies[2:3]
	rep, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary[0]
	if s.CI == nil {
		t.Fatal("no intervals in the summary")
	}
	waits := make([]float64, len(rep.Runs))
	for i, r := range rep.Runs {
		waits[i] = r.All.WaitMean
	}
	if want := HalfWidth(waits, 0.95); s.CI.WaitMean != want || want <= 0 {
		t.Errorf("wait mean half-width %g, want %g (> 0) from the runs", s.CI.WaitMean, want)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "± the half-width of their 95% confidence interval") || !strings.Contains(b.String(), " ± ") {
		t.Errorf("table without intervals:\n%s", b.String())
	}
	sc.Confidence = 0
	if rep, err = Run(context.Background(), sc, Options{}); err != nil || rep.Summary[0].CI != nil {
		t.Errorf("without a level: intervals %v, err %v", rep.Summary[0].CI, err)
	}
}

// Harchol-Balter et al.'s sizes: p and the mean fixed, k found.
func TestParetoByMean(t *testing.T) {
	sc := parse(t, strings.Replace(heavy, "k = 10, p = 1e6", "mean = 3000, p = 1e10", 1))
	d := sc.Setups[0].Workload[0].Size
	if d.Kind != "pareto" || !near(d.Pareto.Mean(), 3000, 1e-9) || d.Pareto.P != 1e10 {
		t.Errorf("size %+v: want B(k, 1e10, 1.1) with mean 3000", d)
	}
	for _, bad := range []string{"k = 10, mean = 3000, p = 1e6", "mean = 2e6, p = 1e6"} {
		if _, err := Parse("t.toml", strings.Replace(heavy, "k = 10, p = 1e6", bad, 1)); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
	if _, err := Parse("t.toml", "confidence = 2\n"+heavy); err == nil || !strings.Contains(err.Error(), "confidence") {
		t.Errorf("confidence = 2: got %v", err)
	}
}
