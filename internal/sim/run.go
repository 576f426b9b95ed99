package sim

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// RunResult is one run: a setup, a policy and a seed.
type RunResult struct {
	Setup    string `json:"setup,omitempty"` // the varied value, "" without [vary]
	Policy   string `json:"policy"`
	Strategy string `json:"strategy"`
	Dispatch string `json:"dispatch"`
	Seed     uint64 `json:"seed"`
	// End is the virtual time the run stopped. Complete: every job was
	// done; Limited: the duration (or the default limit) stopped it;
	// Stalled: idle jobs were left that nothing could ever match.
	End      float64 `json:"end"`
	Complete bool    `json:"complete"`
	Limited  bool    `json:"limited"`
	Stalled  bool    `json:"stalled"`
	Cycles   int     `json:"cycles"`
	Matches  int     `json:"matches"`
	Events   int     `json:"events"`
	// Warmup is how many of the first jobs the job metrics leave out.
	Warmup int `json:"warmup,omitempty"`
	// CI (summaries over two or more seeds of a scenario with a
	// confidence level) holds, for each mean metric of All, the
	// half-width of its confidence interval over the seeds.
	CI *Metrics `json:"ci,omitempty"`
	// Retunes are the moves of a tuned SITA-E plan (sita.tune), in order.
	Retunes []Retune `json:"retunes,omitempty"`

	All     Metrics       `json:"all"`
	Types   []TypeMetrics `json:"types"`
	Batches *BatchMetrics `json:"batches,omitempty"`
	Hosts   []HostLoad    `json:"hosts"`
	Series  Series        `json:"series"`
}

// Report is a scenario's runs and their means over seeds.
type Report struct {
	Scenario    string   `json:"scenario"`
	Description string   `json:"description,omitempty"`
	Vary        string   `json:"vary,omitempty"`
	Unit        string   `json:"unit"`
	Seeds       []uint64 `json:"seeds"`
	// Confidence is the level of the summary's intervals (0: none).
	Confidence float64      `json:"confidence,omitempty"`
	Runs       []*RunResult `json:"runs"`
	// Summary has one entry per setup and policy: the mean of its runs.
	Summary []*RunResult `json:"summary"`
}

// Options narrow or change a scenario's runs.
type Options struct {
	// Seeds replaces the scenario's seeds when not empty.
	Seeds []uint64
	// Policies runs only the named policies when not empty.
	Policies []string
	// Parallel bounds the runs at once (0: one per CPU).
	Parallel int
}

// Simulate runs one policy on one setup with one seed.
func Simulate(ctx context.Context, st *Setup, pol PolicySpec, seed uint64) (*RunResult, error) {
	e, err := newEngine(ctx, st, pol, seed)
	if err != nil {
		return nil, err
	}
	if err := e.run(); err != nil {
		return nil, err
	}
	if e.affErr != nil {
		return nil, e.affErr
	}
	if e.tune != nil && e.tune.err != nil {
		return nil, e.tune.err
	}
	return e.result(), nil
}

// Run runs every setup, policy and seed of a scenario, in parallel, and
// summarizes them. The results do not depend on the parallelism: each run
// is a function of its setup, policy and seed.
func Run(ctx context.Context, sc *Scenario, opt Options) (*Report, error) {
	seeds := sc.Seeds
	if len(opt.Seeds) > 0 {
		seeds = opt.Seeds
	}
	type task struct {
		st   *Setup
		pol  PolicySpec
		seed uint64
	}
	var tasks []task
	for _, st := range sc.Setups {
		for _, p := range st.Policies {
			if len(opt.Policies) > 0 && !slices.Contains(opt.Policies, p.Name) {
				continue
			}
			for _, seed := range seeds {
				tasks = append(tasks, task{st, p, seed})
			}
		}
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("no policy of %s is named %v", sc.File, opt.Policies)
	}
	runs := make([]*RunResult, len(tasks))
	errs := make([]error, len(tasks))
	workers := opt.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(tasks)) {
		wg.Go(func() {
			for i := range next {
				t := tasks[i]
				runs[i], errs[i] = Simulate(ctx, t.st, t.pol, t.seed)
				if errs[i] != nil {
					errs[i] = fmt.Errorf("%s: policy %s, seed %d: %w", label(t.st), t.pol.Name, t.seed, errs[i])
					cancel()
				}
			}
		})
	}
	for i := range tasks {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep := &Report{Scenario: sc.Name, Description: sc.Description, Vary: sc.Vary, Unit: sc.Unit, Seeds: seeds, Runs: runs,
		Confidence: sc.Confidence}
	for k := 0; k < len(runs); k += len(seeds) {
		sum := mean(runs[k : k+len(seeds)])
		sum.CI = intervals(runs[k:k+len(seeds)], sc.Confidence)
		rep.Summary = append(rep.Summary, sum)
	}
	return rep, nil
}

func label(st *Setup) string {
	if st.Label == "" {
		return "scenario"
	}
	return st.Label
}

// mean averages runs of one setup and policy over their seeds: the
// metrics are means; counts are means rounded down; the flags hold when
// they hold for every run; the series and hosts are the first run's.
func mean(runs []*RunResult) *RunResult {
	if len(runs) == 1 {
		return runs[0]
	}
	out := *runs[0]
	out.Seed = 0
	n := float64(len(runs))
	avg := func(get func(*RunResult) *Metrics) Metrics {
		var m Metrics
		m.Complete = true
		for _, r := range runs {
			x := get(r)
			m.Jobs += x.Jobs
			m.Done += x.Done
			m.Aborted += x.Aborted
			m.Complete = m.Complete && x.Complete
			m.Makespan += x.Makespan / n
			m.Utilization += x.Utilization / n
			m.WaitMean += x.WaitMean / n
			m.WaitVar += x.WaitVar / n
			m.ExecMean += x.ExecMean / n
			m.ExecVar += x.ExecVar / n
			m.TotalMean += x.TotalMean / n
			m.TotalVar += x.TotalVar / n
			m.Slowdown += x.Slowdown / n
			m.Passing += x.Passing / n
			m.AvEff += x.AvEff / n
			m.AvDone += x.AvDone / n
			m.Imbalance += x.Imbalance / n
			m.ImbalancePct += x.ImbalancePct / n
			m.Replicas += x.Replicas
			m.Wasted += x.Wasted / n
		}
		m.Jobs /= len(runs)
		m.Done /= len(runs)
		m.Aborted /= len(runs)
		m.Replicas /= len(runs)
		return m
	}
	out.All = avg(func(r *RunResult) *Metrics { return &r.All })
	out.Types = nil
	for k := range runs[0].Types {
		out.Types = append(out.Types, TypeMetrics{Type: runs[0].Types[k].Type,
			Metrics: avg(func(r *RunResult) *Metrics { return &r.Types[k].Metrics })})
	}
	out.Retunes = runs[0].Retunes // the first run's, as the series
	out.End, out.Cycles, out.Matches, out.Events = 0, 0, 0, 0
	for _, r := range runs {
		out.End += r.End / n
		out.Cycles += r.Cycles / len(runs)
		out.Matches += r.Matches / len(runs)
		out.Events += r.Events / len(runs)
		out.Complete = out.Complete && r.Complete
		out.Stalled = out.Stalled || r.Stalled
		out.Limited = out.Limited || r.Limited
	}
	if runs[0].Batches != nil {
		b := BatchMetrics{Batches: runs[0].Batches.Batches}
		for _, r := range runs {
			x := r.Batches
			b.Done += x.Done
			b.WaitMean += x.WaitMean / n
			b.WaitVar += x.WaitVar / n
			b.ExecMean += x.ExecMean / n
			b.ExecVar += x.ExecVar / n
			b.TotalMean += x.TotalMean / n
			b.TotalVar += x.TotalVar / n
			b.Slowdown += x.Slowdown / n
			b.Passing += x.Passing / n
		}
		b.Done /= len(runs)
		out.Batches = &b
	}
	return &out
}
