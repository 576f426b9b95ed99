package negotiator

import (
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
