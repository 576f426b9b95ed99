package negotiator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// limitUse is one concurrency limit a job holds while it runs.
type limitUse struct {
	name   string // lower case
	amount float64
}

// ParseLimits reads a ConcurrencyLimits value as condor_submit writes it:
// names separated by commas or spaces, each with an optional ":amount"
// (default 1). Names are case-insensitive and returned in lower case.
func ParseLimits(s string) []limitUse {
	var out []limitUse
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		name, amount := f, 1.0
		if k := strings.LastIndexByte(f, ':'); k >= 0 {
			if v, err := strconv.ParseFloat(f[k+1:], 64); err == nil && v >= 0 {
				name, amount = f[:k], v
			}
		}
		if name != "" {
			out = append(out, limitUse{name: ast.Lower(name), amount: amount})
		}
	}
	return out
}

// jobLimits returns the concurrency limits a job of this ad would hold.
func jobLimits(ad *classad.Ad) []limitUse {
	if ad.Index(attr.ConcurrencyLimit) < 0 {
		return nil
	}
	return ParseLimits(stringAttr(ad, attr.ConcurrencyLimit))
}

// limitMax is a limit's maximum: configured by name, else the default; 0
// or less means unlimited.
func (p *Policy) limitMax(name string) float64 {
	if v, ok := p.ConcurrencyLimits[name]; ok {
		return v
	}
	return p.DefaultLimit
}

// limitsAllow reports whether one more job of r fits every limit it uses.
func (m *market) limitsAllow(r *reqState) bool {
	for _, l := range r.limits {
		if max := m.pol.limitMax(l.name); max > 0 && m.inUse[l.name]+l.amount > max {
			return false
		}
	}
	return true
}

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
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, n := range names {
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
	p := Policy{ConcurrencyLimits: map[string]float64{}}
	for _, l := range ParseLimits(stringAttr(negotiatorAd, attrLimits)) {
		p.ConcurrencyLimits[l.name] = l.amount
	}
	v, _ := classad.EvalAttr(negotiatorAd, attrDefaultLimit, nil)
	p.DefaultLimit, _ = v.NumberValue()
	var out []string
	for _, l := range jobLimits(job) {
		if max := p.limitMax(l.name); max > 0 && l.amount > max {
			out = append(out, fmt.Sprintf("concurrency limit %s: asks %g, the pool has %g", l.name, l.amount, max))
		}
	}
	return out
}
