package negotiator

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/matchmaker"
)

// The negotiator advertises its concurrency limits, so that tools can
// tell a job that asks for more of a limit than the pool has (it never
// matches) from one that waits for its turn: KiteConcurrencyLimits holds
// them as a job's ConcurrencyLimits does ("sw_a:1, sw_b:4", names in
// lower case), KiteDefaultConcurrencyLimit the maximum of the others (0
// or less: unlimited).
const (
	attrLimits       = "KiteConcurrencyLimits"
	attrDefaultLimit = "KiteDefaultConcurrencyLimit"
)

// advertiseLimits sets the limits in the negotiator's ad.
func advertiseLimits(ad *classad.Ad, byName map[string]float64, def float64) {
	var b strings.Builder
	for i, n := range slices.Sorted(maps.Keys(byName)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n + ":" + strconv.FormatFloat(byName[n], 'g', -1, 64))
	}
	ad.Set(attrLimits, ast.Str(b.String()))
	setNumber(ad, attrDefaultLimit, def)
}

// LimitShortfalls returns, for each concurrency limit a job asks for more
// of than the limit's maximum, why the job never matches ("concurrency
// limit sw_a: asks 2, the pool has 1"), given the negotiator's ad.
func LimitShortfalls(job, negotiatorAd *classad.Ad) []string {
	if negotiatorAd == nil || negotiatorAd.Index(attrLimits) < 0 {
		return nil
	}
	p := matchmaker.Policy{ConcurrencyLimits: map[string]float64{}}
	advertised, _ := classad.EvalString(negotiatorAd, attrLimits)
	for _, l := range matchmaker.ParseLimits(advertised) {
		p.ConcurrencyLimits[l.Name] = l.Amount
	}
	v, _ := classad.EvalAttr(negotiatorAd, attrDefaultLimit, nil)
	p.DefaultLimit, _ = v.NumberValue()
	var out []string
	for _, l := range matchmaker.JobLimits(job) {
		if max := p.LimitMax(l.Name); max > 0 && l.Amount > max {
			out = append(out, fmt.Sprintf("concurrency limit %s: asks %g, the pool has %g", l.Name, l.Amount, max))
		}
	}
	return out
}

// setNumber sets a number attribute: an integer when whole, else a real.
func setNumber(ad *classad.Ad, name string, v float64) { ad.Set(name, ast.Number(v)) }
