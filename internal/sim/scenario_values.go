package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/tomlstrict"
)

// The values of scenario files that internal/tomlstrict's reader does not
// know: durations in seconds with units up to days, and ClassAd
// expressions placed at their mistakes.

// duration reads seconds at key k of t: a number, or a string with a unit ("90s",
// "16m", "1.5h", "2d", "1h30m").
func duration(t *table, k string, def float64) float64 {
	v, ok := t.Get(k)
	if !ok {
		return def
	}
	d, err := toDuration(v)
	if err != nil {
		t.Errorf(k, "%v", err)
		return def
	}
	return d
}

// nonNegDuration reads a duration that must not be negative.
func nonNegDuration(t *table, k string, def float64) float64 {
	d := duration(t, k, def)
	if d < 0 {
		t.Errorf(k, "must not be negative")
		return def
	}
	return d
}

func toDuration(v any) (float64, error) {
	if f, ok := tomlstrict.ToFloat(v); ok {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("%g is not a duration", f)
		}
		return f, nil
	}
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("want a duration (seconds, or a string such as \"90s\", \"16m\", \"2d\"), got %s", tomlstrict.Describe(v))
	}
	return parseDuration(s)
}

// parseDuration reads Go's duration syntax plus days ("2d", "1d12h").
func parseDuration(s string) (float64, error) {
	txt := strings.TrimSpace(s)
	days := 0.0
	if i := strings.IndexByte(txt, 'd'); i >= 0 {
		n, err := strconv.ParseFloat(txt[:i], 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		days, txt = n, txt[i+1:]
		if txt == "" {
			return days * 86400, nil
		}
	}
	d, err := time.ParseDuration(txt)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (use a number of seconds or a unit: \"90s\", \"16m\", \"1.5h\", \"2d\")", s)
	}
	return days*86400 + d.Seconds(), nil
}

// expr reads a ClassAd expression, with the error placed in the file.
func expr(t *table, k string) (string, *classad.Program) {
	src := t.Str(k, "")
	if src == "" {
		return "", nil
	}
	prog, err := classad.Compile(src)
	if err != nil {
		exprError(t, k, err)
		return "", nil
	}
	return src, prog
}

// exprError reports a ClassAd syntax error in the string at key k: at
// the mistake's place in the file when it can be found.
func exprError(t *table, k string, err error) {
	var pe *classad.ParseError
	if errors.As(err, &pe) {
		if pos, ok := t.Reader().Positions().InString(t.Key(k), pe.Offset); ok {
			t.Reader().Report(&tomlstrict.Error{Pos: pos, Key: t.Key(k), Msg: pe.Msg})
			return
		}
	}
	t.Errorf(k, "%v", err)
}

// attrs reads a table of attribute = "ClassAd expression".
func attrs(t *table, k string) []Attr {
	a := t.Sub(k)
	if a == nil {
		return nil
	}
	var out []Attr
	for _, name := range a.Keys() {
		if err := sita.ValidAttrName(name); err != nil {
			a.Errorf(name, "%v", err)
			a.MarkRead(name)
			continue
		}
		src := a.Str(name, "")
		e, err := classad.ParseExpr(src)
		if err != nil {
			exprError(a, name, err)
			continue
		}
		out = append(out, Attr{Name: name, Expr: e})
	}
	a.Done()
	return out
}

// fractionRange reads [lo, hi] with 0 <= lo <= hi <= 1.
func fractionRange(t *table, k string, def [2]float64) [2]float64 {
	if !t.Has(k) {
		return def
	}
	v := t.Numbers(k)
	if len(v) != 2 || !(v[0] >= 0 && v[0] <= v[1] && v[1] <= 1) {
		t.Errorf(k, "want [lo, hi], fractions of the peak speed with 0 <= lo <= hi <= 1")
		return def
	}
	return [2]float64{v[0], v[1]}
}
