package policy

import (
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// lookupNumber reads a numeric attribute of ad alone: a literal at once,
// anything else evaluated. ok is false when ad is nil, the attribute is
// missing or it is not a number.
func lookupNumber(ad *classad.Ad, name string) (float64, bool) {
	if ad == nil {
		return 0, false
	}
	e, ok := ad.Lookup(name)
	if !ok {
		return 0, false
	}
	if l, isLit := e.(*ast.Literal); isLit {
		switch l.Kind {
		case ast.IntLit:
			return float64(l.Int), true
		case ast.RealLit:
			return l.Real, true
		}
		return 0, false
	}
	v, err := classad.EvalAttr(ad, name, nil)
	if err != nil {
		return 0, false
	}
	return v.NumberValue()
}

// lookupString reads a string attribute of ad alone, like lookupNumber.
func lookupString(ad *classad.Ad, name string) (string, bool) {
	if ad == nil {
		return "", false
	}
	e, ok := ad.Lookup(name)
	if !ok {
		return "", false
	}
	if l, isLit := e.(*ast.Literal); isLit {
		return l.Str, l.Kind == ast.StringLit
	}
	v, err := classad.EvalAttr(ad, name, nil)
	if err != nil {
		return "", false
	}
	return v.StringValue()
}

// numberOr reads a numeric attribute, def when it is not one.
func numberOr(ad *classad.Ad, name string, def float64) float64 {
	if v, ok := lookupNumber(ad, name); ok {
		return v
	}
	return def
}
