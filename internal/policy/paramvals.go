package policy

import (
	"fmt"
	"math"
	"slices"
)

// Float returns the numeric parameter name (an integer or a float), or
// def when it is not set; it must lie in [lo, hi].
func (p Params) Float(name string, def, lo, hi float64) (float64, error) {
	v, ok := p[name]
	if !ok {
		return def, nil
	}
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case int:
		f = float64(x)
	case float64:
		f = x
	default:
		return 0, fmt.Errorf("parameter %q: want a number, got %v", name, v)
	}
	if math.IsNaN(f) || f < lo || f > hi {
		return 0, fmt.Errorf("parameter %q: %v is outside [%v, %v]", name, f, lo, hi)
	}
	return f, nil
}

// Bool returns the boolean parameter name, or def when it is not set.
func (p Params) Bool(name string, def bool) (bool, error) {
	v, ok := p[name]
	if !ok {
		return def, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("parameter %q: want true or false, got %v", name, v)
	}
	return b, nil
}

// OneOf returns the string parameter name, which must be one of allowed
// (the first is the default).
func (p Params) OneOf(name string, allowed ...string) (string, error) {
	s, err := p.String(name, allowed[0])
	if err != nil {
		return "", err
	}
	if !slices.Contains(allowed, s) {
		return "", fmt.Errorf("parameter %q: %q is not one of %v", name, s, allowed)
	}
	return s, nil
}
