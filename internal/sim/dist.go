package sim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/tomlstrict"
)

// Dist is a distribution of numbers: job sizes, machine speeds, times.
// A scenario writes it as a number (a constant) or a table:
//
//	{ dist = "constant", value = V }
//	{ dist = "uniform", min = A, max = B }
//	{ dist = "normal", mean = M, sd = S }          truncated: draws <= min (default 0) are drawn again
//	{ dist = "exponential", mean = M }
//	{ dist = "pareto", k = K, p = P, a = A }       bounded Pareto B(k, p, a) (internal/sita)
//	{ dist = "pareto", mean = M, p = P, a = A }    the same, k set so that the mean is M
//	{ values = [v1, v2, ...], weights = [...] }    drawn with the weights (default equal)
//	{ values = [v1, v2, ...], counts = [...] }     exactly counts[i] of values[i], in random order
//
// Numbers may be durations ("16m") where the value is a time.
type Dist struct {
	Kind            string // constant, uniform, normal, exponential, pareto, values
	Value, Lo, Hi   float64
	Mean, SD        float64
	Pareto          sita.Pareto
	Values, Weights []float64
	Counts          []int
	cumulative      []float64
}

// Const returns the constant distribution v.
func Const(v float64) Dist { return Dist{Kind: "constant", Value: v} }

// Exact reports whether the distribution fixes how many of each value
// there are (values with counts): a group drawing from it has exactly
// Total() members.
func (d *Dist) Exact() bool { return len(d.Counts) > 0 }

// Total is the number of values an exact distribution holds.
func (d *Dist) Total() int {
	n := 0
	for _, c := range d.Counts {
		n += c
	}
	return n
}

// Sample draws one value.
func (d *Dist) Sample(r *rand.Rand) float64 {
	switch d.Kind {
	case "constant":
		return d.Value
	case "uniform":
		return d.Lo + (d.Hi-d.Lo)*r.Float64()
	case "normal":
		for range 1000 {
			if x := d.Mean + d.SD*r.NormFloat64(); x > d.Lo {
				return x
			}
		}
		return math.Max(d.Mean, math.Nextafter(d.Lo, math.Inf(1)))
	case "exponential":
		return d.Mean * r.ExpFloat64()
	case "pareto":
		return d.Pareto.Sample(r)
	case "values":
		u := r.Float64() * d.cumulative[len(d.cumulative)-1]
		for i, c := range d.cumulative {
			if u < c {
				return d.Values[i]
			}
		}
		return d.Values[len(d.Values)-1]
	}
	return d.Value
}

// prepare builds the cumulative weights of a values distribution.
func (d *Dist) prepare() {
	d.cumulative = make([]float64, len(d.Values))
	sum := 0.0
	for i := range d.Values {
		w := 1.0
		if len(d.Weights) > 0 {
			w = d.Weights[i]
		}
		sum += w
		d.cumulative[i] = sum
	}
}

// Sequence returns n values: exactly the counts, shuffled, for an exact
// distribution; n draws otherwise.
func (d *Dist) Sequence(r *rand.Rand, n int) []float64 {
	out := make([]float64, 0, n)
	if d.Exact() {
		for i, c := range d.Counts {
			for range c {
				out = append(out, d.Values[i])
			}
		}
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	for range n {
		out = append(out, d.Sample(r))
	}
	return out
}

// MeanValue is the distribution's expected value (of the truncated
// normal, approximately the untruncated mean when truncation is rare).
func (d *Dist) MeanValue() float64 {
	switch d.Kind {
	case "constant":
		return d.Value
	case "uniform":
		return (d.Lo + d.Hi) / 2
	case "normal":
		// E[X | X > lo] for X ~ N(mean, sd).
		if d.SD == 0 {
			return d.Mean
		}
		a := (d.Lo - d.Mean) / d.SD
		tail := 0.5 * math.Erfc(a/math.Sqrt2)
		if tail <= 0 {
			return d.Mean
		}
		return d.Mean + d.SD*math.Exp(-a*a/2)/math.Sqrt(2*math.Pi)/tail
	case "exponential":
		return d.Mean
	case "pareto":
		return d.Pareto.Mean()
	case "values":
		sum, weight := 0.0, 0.0
		for i, v := range d.Values {
			w := 1.0
			switch {
			case len(d.Counts) > 0:
				w = float64(d.Counts[i])
			case len(d.Weights) > 0:
				w = d.Weights[i]
			}
			sum += v * w
			weight += w
		}
		return sum / weight
	}
	return d.Value
}

func (d Dist) String() string {
	switch d.Kind {
	case "constant":
		return fmt.Sprintf("%g", d.Value)
	case "uniform":
		return fmt.Sprintf("U(%g, %g)", d.Lo, d.Hi)
	case "normal":
		return fmt.Sprintf("N(%g, %g)", d.Mean, d.SD)
	case "exponential":
		return fmt.Sprintf("Exp(mean %g)", d.Mean)
	case "pareto":
		return d.Pareto.String()
	}
	return fmt.Sprintf("%d values", len(d.Values))
}

// readDist reads a distribution at key k of t; def applies when the key is absent.
// With positive, values must be above 0 (sizes, speeds); otherwise not
// below (times).
func readDist(t *table, k string, def Dist, positive bool) Dist {
	v, ok := t.Get(k)
	if !ok {
		return def
	}
	bad := func(format string, args ...any) Dist {
		t.Errorf(k, format, args...)
		return def
	}
	check := func(x float64, what string) bool {
		if math.IsNaN(x) { // missing or bad: already reported
			return false
		}
		if math.IsInf(x, 0) || x < 0 || positive && x == 0 {
			if positive {
				t.Errorf(k, "%s %g: must be positive", what, x)
			} else {
				t.Errorf(k, "%s %g: must not be negative", what, x)
			}
			return false
		}
		return true
	}
	if _, isTable := v.(map[string]any); !isTable {
		x, err := toDuration(v)
		if err != nil {
			return bad("want a number or a distribution table ({ dist = \"uniform\", min = 1, max = 2 }, ...), got %s", tomlstrict.Describe(v))
		}
		if !check(x, "value") {
			return def
		}
		return Const(x)
	}
	d := t.Sub(k)
	defer d.Done()
	num := func(name string) float64 {
		if !d.Has(name) {
			t.Errorf(k, "%s needs %s", distName(d), name)
			return math.NaN()
		}
		w, _ := d.Get(name)
		x, err := toDuration(w)
		if err != nil {
			d.Errorf(name, "%v", err)
			return math.NaN()
		}
		return x
	}
	if d.Has("values") {
		return valuesDist(d, def, check)
	}
	kind := d.OneOf("dist", "", "constant", "uniform", "normal", "exponential", "pareto")
	var out Dist
	switch kind {
	case "constant":
		out = Const(num("value"))
		if !check(out.Value, "value") {
			return def
		}
	case "uniform":
		out = Dist{Kind: kind, Lo: num("min"), Hi: num("max")}
		if !check(out.Lo, "min") || !check(out.Hi, "max") {
			return def
		}
		if !(out.Lo <= out.Hi) {
			return bad("uniform min %g is above max %g", out.Lo, out.Hi)
		}
	case "normal":
		out = Dist{Kind: kind, Mean: num("mean"), SD: num("sd")}
		if d.Has("min") {
			out.Lo = num("min")
		}
		if math.IsNaN(out.Mean) || math.IsNaN(out.SD) || math.IsNaN(out.Lo) {
			return def
		}
		if out.SD < 0 {
			return bad("normal sd %g: must not be negative", out.SD)
		}
		if out.Mean <= out.Lo && out.SD == 0 {
			return bad("normal mean %g with sd 0 is not above min %g", out.Mean, out.Lo)
		}
	case "exponential":
		out = Dist{Kind: kind, Mean: num("mean")}
		if !check(out.Mean, "mean") {
			return def
		}
	case "pareto":
		if d.Has("mean") {
			if d.Has("k") {
				return bad("give k or mean, not both")
			}
			mean, pmax, a := num("mean"), num("p"), num("a")
			if math.IsNaN(mean + pmax + a) {
				return def
			}
			p, err := sita.WithMean(mean, pmax, a)
			if err != nil {
				return bad("%v", err)
			}
			out = Dist{Kind: kind, Pareto: p}
			break
		}
		p := sita.Pareto{K: num("k"), P: num("p"), A: num("a")}
		if math.IsNaN(p.K + p.P + p.A) {
			return def
		}
		if err := p.Validate(); err != nil {
			return bad("%v", err)
		}
		out = Dist{Kind: kind, Pareto: p}
	default:
		if !d.Has("dist") {
			return bad("a distribution table needs dist = \"constant\", \"uniform\", \"normal\", \"exponential\" or \"pareto\", or values = [...]")
		}
		return def
	}
	return out
}

func distName(d *table) string {
	v, _ := d.Peek("dist")
	s, _ := v.(string)
	if s == "" {
		return "the distribution"
	}
	return s
}

// valuesDist reads { values = [...], weights = [...] | counts = [...] }.
func valuesDist(d *table, def Dist, check func(float64, string) bool) Dist {
	out := Dist{Kind: "values", Values: d.Numbers("values")}
	for _, v := range out.Values {
		if !check(v, "value") {
			return def
		}
	}
	if len(out.Values) == 0 {
		d.Errorf("values", "must hold at least one value")
		return def
	}
	if d.Has("weights") && d.Has("counts") {
		d.Errorf("", "give weights or counts, not both")
		return def
	}
	if d.Has("weights") {
		out.Weights = d.Numbers("weights")
		sum := 0.0
		for _, w := range out.Weights {
			if !(w >= 0) {
				d.Errorf("weights", "weights must not be negative")
				return def
			}
			sum += w
		}
		if len(out.Weights) != len(out.Values) || sum <= 0 {
			d.Errorf("weights", "want %d weights, not all zero, one per value", len(out.Values))
			return def
		}
	}
	if d.Has("counts") {
		for i, c := range d.Array("counts") {
			n, ok := c.(int64)
			if !ok || n < 0 {
				d.Errorf(tomlstrict.Index("counts", i), "want a count (an integer >= 0), got %s", tomlstrict.Describe(c))
				return def
			}
			out.Counts = append(out.Counts, int(n))
		}
		if len(out.Counts) != len(out.Values) || out.Total() == 0 {
			d.Errorf("counts", "want %d counts, not all zero, one per value", len(out.Values))
			return def
		}
	}
	if d.Has("dist") {
		d.Errorf("dist", "a values table takes no dist")
	}
	out.prepare()
	return out
}
