package sim

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// unitSeconds is the length of a report time unit.
func unitSeconds(unit string) float64 {
	switch unit {
	case "min":
		return 60
	case "h":
		return 3600
	case "d":
		return 86400
	}
	return 1
}

// WriteTable prints the summary: for each setup, one column per policy
// and one row per metric; then each job type's main metrics, and the
// batches' when the workload has batches. Times are in the scenario's
// unit, variances in its square.
func WriteTable(w io.Writer, rep *Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	u := unitSeconds(rep.Unit)
	t := func(x float64) string { return num(x / u) }
	v := func(x float64) string { return num(x / u / u) }
	pct := func(x float64) string { return num(100*x) + "%" }
	fmt.Fprintf(tw, "scenario %s", rep.Scenario)
	if len(rep.Seeds) > 1 {
		fmt.Fprintf(tw, " (means over %d seeds", len(rep.Seeds))
		if rep.Confidence > 0 {
			fmt.Fprintf(tw, " ± the half-width of their %g%% confidence interval", math.Round(1000*rep.Confidence)/10)
		}
		fmt.Fprintf(tw, ")")
	}
	fmt.Fprintf(tw, "\n")
	if len(rep.Summary) > 0 && rep.Summary[0].Warmup > 0 {
		fmt.Fprintf(tw, "job metrics leave out the first %d jobs of each run (warm-up)\n", rep.Summary[0].Warmup)
	}
	// ci prints a mean with its interval's half-width, when it has one.
	ci := func(r *RunResult, field func(*Metrics) *float64, show func(float64) string) string {
		s := show(*field(&r.All))
		if r.CI != nil {
			s += " ± " + show(*field(r.CI))
		}
		return s
	}
	tm := func(f func(*Metrics) *float64) func(*RunResult) string {
		return func(r *RunResult) string { return ci(r, f, t) }
	}
	pm := func(f func(*Metrics) *float64) func(*RunResult) string {
		return func(r *RunResult) string { return ci(r, f, pct) }
	}
	for _, group := range bySetup(rep.Summary) {
		fmt.Fprintln(tw)
		head := "metric"
		if group[0].Setup != "" {
			head = group[0].Setup
		}
		row(tw, head, group, func(r *RunResult) string { return r.Policy })
		row(tw, "dispatch", group, func(r *RunResult) string { return r.Dispatch })
		row(tw, "jobs done", group, func(r *RunResult) string { return done(r.All.Done, r.All.Jobs, r) })
		row(tw, "makespan ("+rep.Unit+")", group, tm(func(m *Metrics) *float64 { return &m.Makespan }))
		row(tw, "utilization", group, pm(func(m *Metrics) *float64 { return &m.Utilization }))
		row(tw, "wait mean", group, tm(func(m *Metrics) *float64 { return &m.WaitMean }))
		row(tw, "wait variance", group, func(r *RunResult) string { return v(r.All.WaitVar) })
		row(tw, "exec mean", group, tm(func(m *Metrics) *float64 { return &m.ExecMean }))
		row(tw, "exec variance", group, func(r *RunResult) string { return v(r.All.ExecVar) })
		row(tw, "total mean", group, tm(func(m *Metrics) *float64 { return &m.TotalMean }))
		row(tw, "total variance", group, func(r *RunResult) string { return v(r.All.TotalVar) })
		row(tw, "mean slowdown", group, func(r *RunResult) string {
			return ci(r, func(m *Metrics) *float64 { return &m.Slowdown }, num)
		})
		row(tw, "job passing", group, pm(func(m *Metrics) *float64 { return &m.Passing }))
		row(tw, "avEff", group, pm(func(m *Metrics) *float64 { return &m.AvEff }))
		row(tw, "avDONE", group, pm(func(m *Metrics) *float64 { return &m.AvDone }))
		row(tw, "imbalance M", group, func(r *RunResult) string {
			s := num(r.All.Imbalance) + " (" + num(r.All.ImbalancePct) + "%"
			if r.CI != nil {
				s += " ± " + num(r.CI.ImbalancePct)
			}
			return s + ")"
		})
		row(tw, "lost runs", group, func(r *RunResult) string { return strconv.Itoa(r.All.Aborted) })
		if slices.ContainsFunc(group, func(r *RunResult) bool { return len(r.Retunes) > 0 }) {
			row(tw, "SITA-E plan moves (first seed)", group, func(r *RunResult) string { return strconv.Itoa(len(r.Retunes)) })
		}
		if slices.ContainsFunc(group, func(r *RunResult) bool { return r.All.Replicas > 0 }) {
			row(tw, "replicas", group, func(r *RunResult) string { return strconv.Itoa(r.All.Replicas) })
			row(tw, "wasted ("+rep.Unit+")", group, func(r *RunResult) string { return t(r.All.Wasted) })
		}
		if len(group[0].Types) > 1 {
			for k, typ := range group[0].Types {
				at := func(r *RunResult) *Metrics { return &r.Types[k].Metrics }
				row(tw, "type "+typ.Type, group, func(r *RunResult) string { return done(at(r).Done, at(r).Jobs, nil) })
				row(tw, "  wait mean", group, func(r *RunResult) string { return t(at(r).WaitMean) })
				row(tw, "  total mean", group, func(r *RunResult) string { return t(at(r).TotalMean) })
				row(tw, "  mean slowdown", group, func(r *RunResult) string { return num(at(r).Slowdown) })
				row(tw, "  avDONE", group, func(r *RunResult) string { return pct(at(r).AvDone) })
			}
		}
		if group[0].Batches != nil {
			b := func(r *RunResult) *BatchMetrics { return r.Batches }
			row(tw, "batches done", group, func(r *RunResult) string { return done(b(r).Done, b(r).Batches, nil) })
			row(tw, "  wait mean", group, func(r *RunResult) string { return t(b(r).WaitMean) })
			row(tw, "  wait variance", group, func(r *RunResult) string { return v(b(r).WaitVar) })
			row(tw, "  exec mean", group, func(r *RunResult) string { return t(b(r).ExecMean) })
			row(tw, "  exec variance", group, func(r *RunResult) string { return v(b(r).ExecVar) })
			row(tw, "  total mean", group, func(r *RunResult) string { return t(b(r).TotalMean) })
			row(tw, "  total variance", group, func(r *RunResult) string { return v(b(r).TotalVar) })
			row(tw, "  job passing", group, func(r *RunResult) string { return pct(b(r).Passing) })
		}
	}
	return tw.Flush()
}

func done(n, of int, r *RunResult) string {
	s := fmt.Sprintf("%d/%d", n, of)
	switch {
	case r == nil:
	case r.Stalled:
		s += " stalled"
	case r.Limited:
		s += " at limit"
	}
	return s
}

func row(w io.Writer, name string, runs []*RunResult, cell func(*RunResult) string) {
	cells := make([]string, 0, len(runs)+1)
	cells = append(cells, name)
	for _, r := range runs {
		cells = append(cells, cell(r))
	}
	fmt.Fprintln(w, strings.Join(cells, "\t")+"\t")
}

// bySetup groups results by setup, in order.
func bySetup(runs []*RunResult) [][]*RunResult {
	var out [][]*RunResult
	for _, r := range runs {
		if n := len(out); n > 0 && out[n-1][0].Setup == r.Setup {
			out[n-1] = append(out[n-1], r)
			continue
		}
		out = append(out, []*RunResult{r})
	}
	return out
}

// num prints about four significant digits, without exponents for the
// numbers a schedule usually produces.
func num(x float64) string {
	a := math.Abs(x)
	switch {
	case x == 0:
		return "0"
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Sprint(x)
	case a >= 1e7 || a < 1e-3:
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	digits := max(0, 3-int(math.Floor(math.Log10(a))))
	return strconv.FormatFloat(x, 'f', digits, 64)
}

// WriteJSON writes the whole report: every run with its per-type and
// batch metrics, host loads and series, and the summary.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// CSVHeader is the columns WriteCSV writes.
var CSVHeader = []string{"setup", "policy", "strategy", "dispatch", "seed", "type", "jobs", "done", "complete",
	"makespan", "utilization", "wait_mean", "wait_var", "exec_mean", "exec_var", "total_mean", "total_var",
	"slowdown", "passing", "aveff", "avdone", "imbalance", "imbalance_pct", "aborted_runs", "cycles"}

// WriteCSV writes one row per run and job type ("all" for every job,
// "batches" for batches as jobs), with times in seconds; the pool's own
// numbers (utilization, avEff, M, cycles) only on the "all" rows.
func WriteCSV(w io.Writer, rep *Report) error {
	cw := csv.NewWriter(w)
	cw.Write(CSVHeader)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, r := range rep.Runs {
		line := func(typ string, m *Metrics) {
			// Utilization, avEff, M and cycles belong to the pool: empty
			// on the rows of one type or the batches.
			pool := func(s string) string {
				if typ != "all" {
					return ""
				}
				return s
			}
			cw.Write([]string{r.Setup, r.Policy, r.Strategy, r.Dispatch, strconv.FormatUint(r.Seed, 10), typ,
				strconv.Itoa(m.Jobs), strconv.Itoa(m.Done), strconv.FormatBool(m.Complete),
				f(m.Makespan), pool(f(m.Utilization)), f(m.WaitMean), f(m.WaitVar), f(m.ExecMean), f(m.ExecVar),
				f(m.TotalMean), f(m.TotalVar), f(m.Slowdown), f(m.Passing), pool(f(m.AvEff)), f(m.AvDone),
				pool(f(m.Imbalance)), pool(f(m.ImbalancePct)), strconv.Itoa(m.Aborted), pool(strconv.Itoa(r.Cycles))})
		}
		line("all", &r.All)
		for k := range r.Types {
			line(r.Types[k].Type, &r.Types[k].Metrics)
		}
		if b := r.Batches; b != nil {
			line("batches", &Metrics{Jobs: b.Batches, Done: b.Done, Complete: b.Done == b.Batches,
				WaitMean: b.WaitMean, WaitVar: b.WaitVar, ExecMean: b.ExecMean, ExecVar: b.ExecVar,
				TotalMean: b.TotalMean, TotalVar: b.TotalVar, Slowdown: b.Slowdown, Passing: b.Passing})
		}
	}
	cw.Flush()
	return cw.Error()
}
