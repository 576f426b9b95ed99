package classad

import (
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
)

// The typed getters evaluate one attribute of an ad alone (no TARGET) and
// say whether it has the type asked for: a missing attribute, UNDEFINED,
// ERROR, a value of another type and a nil ad all answer ok = false. An
// attribute that is a literal, as most are, is read without evaluation.
// The ...Or forms answer def instead of ok = false.

// EvalString evaluates the attribute name of ad alone to a string.
func EvalString(ad *Ad, name string) (s string, ok bool) {
	if l, found := literal(ad, name); found {
		return l.Str, l.Kind == ast.StringLit
	}
	return evalAlone(ad, name).StringValue()
}

// EvalBool evaluates the attribute name of ad alone to a boolean.
func EvalBool(ad *Ad, name string) (b, ok bool) {
	if l, found := literal(ad, name); found {
		return l.Kind == ast.BoolLit && l.Bool, l.Kind == ast.BoolLit
	}
	return evalAlone(ad, name).BoolValue()
}

// EvalNumber evaluates the attribute name of ad alone to a number: an
// integer or a real, or a boolean as 0 or 1, as arithmetic takes it.
func EvalNumber(ad *Ad, name string) (f float64, ok bool) {
	if l, found := literal(ad, name); found {
		return literalNumber(l)
	}
	return evalAlone(ad, name).NumberValue()
}

// EvalInt evaluates the attribute name of ad alone to an integer: an
// integer as it is, a real truncated toward zero, a boolean as 0 or 1.
func EvalInt(ad *Ad, name string) (i int64, ok bool) {
	if l, found := literal(ad, name); found {
		if l.Kind == ast.IntLit {
			return l.Int, true
		}
		f, ok := literalNumber(l)
		return int64(f), ok
	}
	v := evalAlone(ad, name)
	if i, ok := v.IntValue(); ok {
		return i, true
	}
	f, ok := v.NumberValue()
	return int64(f), ok
}

// EvalStringOr is EvalString's string, or def.
func EvalStringOr(ad *Ad, name, def string) string { return or(def)(EvalString(ad, name)) }

// EvalBoolOr is EvalBool's boolean, or def.
func EvalBoolOr(ad *Ad, name string, def bool) bool { return or(def)(EvalBool(ad, name)) }

// EvalNumberOr is EvalNumber's number, or def.
func EvalNumberOr(ad *Ad, name string, def float64) float64 { return or(def)(EvalNumber(ad, name)) }

// EvalIntOr is EvalInt's integer, or def.
func EvalIntOr(ad *Ad, name string, def int64) int64 { return or(def)(EvalInt(ad, name)) }

// or returns a function that picks a getter's value when ok, else def.
func or[T any](def T) func(v T, ok bool) T {
	return func(v T, ok bool) T {
		if ok {
			return v
		}
		return def
	}
}

// literal returns the attribute's expression when it is a literal;
// found is false when ad is nil, lacks the attribute or the attribute
// needs evaluating.
func literal(ad *Ad, name string) (l *ast.Literal, found bool) {
	if ad == nil {
		return nil, false
	}
	e, ok := ad.Lookup(name)
	if !ok {
		return nil, false
	}
	l, found = e.(*ast.Literal)
	return l, found
}

// literalNumber is a literal's value as EvalNumber takes it.
func literalNumber(l *ast.Literal) (float64, bool) {
	switch l.Kind {
	case ast.IntLit:
		return float64(l.Int), true
	case ast.RealLit:
		return l.Real, true
	case ast.BoolLit:
		if l.Bool {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// evalAlone evaluates an attribute with no TARGET; UNDEFINED for a nil ad
// or an evaluation past a limit.
func evalAlone(ad *Ad, name string) Value {
	if ad == nil {
		return eval.Undefined()
	}
	v, err := eval.EvaluateAttr(ad, name, nil)
	if err != nil {
		return eval.Undefined()
	}
	return v
}

// LiteralString returns e's text when e is a string literal. The
// Literal... getters read values written as literals (the durable
// attributes a daemon sets itself) without evaluating anything.
func LiteralString(e Expr) (string, bool) {
	l, ok := e.(*ast.Literal)
	if !ok || l.Kind != ast.StringLit {
		return "", false
	}
	return l.Str, true
}

// LiteralInt returns e's value when e is an integer literal, or a real
// literal truncated toward zero.
func LiteralInt(e Expr) (int64, bool) {
	l, ok := e.(*ast.Literal)
	switch {
	case !ok:
		return 0, false
	case l.Kind == ast.IntLit:
		return l.Int, true
	case l.Kind == ast.RealLit:
		return int64(l.Real), true
	}
	return 0, false
}

// LiteralNumber returns e's value when e is an integer or a real literal.
func LiteralNumber(e Expr) (float64, bool) {
	l, ok := e.(*ast.Literal)
	switch {
	case !ok:
		return 0, false
	case l.Kind == ast.IntLit:
		return float64(l.Int), true
	case l.Kind == ast.RealLit:
		return l.Real, true
	}
	return 0, false
}
