package matchmaker

import (
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// LimitUse is one concurrency limit a job holds while it runs.
type LimitUse struct {
	Name   string // lower case
	Amount float64
}

// ParseLimits reads a ConcurrencyLimits value as condor_submit writes it:
// names separated by commas or spaces, each with an optional ":amount"
// (default 1). Names are case-insensitive and returned in lower case.
func ParseLimits(s string) []LimitUse {
	var out []LimitUse
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		name, amount := f, 1.0
		if k := strings.LastIndexByte(f, ':'); k >= 0 {
			if v, err := strconv.ParseFloat(f[k+1:], 64); err == nil && v >= 0 {
				name, amount = f[:k], v
			}
		}
		if name != "" {
			out = append(out, LimitUse{Name: ast.Lower(name), Amount: amount})
		}
	}
	return out
}

// JobLimits returns the concurrency limits a job of this ad would hold.
func JobLimits(ad *classad.Ad) []LimitUse {
	if ad.Index(attr.ConcurrencyLimit) < 0 {
		return nil
	}
	return ParseLimits(stringAttr(ad, attr.ConcurrencyLimit))
}

// LimitMax is a limit's maximum: configured by name, else the default; 0
// or less means unlimited.
func (p *Policy) LimitMax(name string) float64 {
	if v, ok := p.ConcurrencyLimits[name]; ok {
		return v
	}
	return p.DefaultLimit
}

// limitsAllow reports whether one more job of r fits every limit it uses.
func (m *market) limitsAllow(r *reqState) bool {
	for _, l := range r.limits {
		if max := m.pol.LimitMax(l.Name); max > 0 && m.inUse[l.Name]+l.Amount > max {
			return false
		}
	}
	return true
}
