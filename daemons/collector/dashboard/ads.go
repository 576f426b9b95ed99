package dashboard

import (
	"strings"

	"github.com/kite-sched/kite/classad"
)

// str evaluates an attribute of an ad to a string ("" if it is not one).
func str(ad *classad.Ad, name string) string {
	v, err := classad.EvalAttr(ad, name, nil)
	if err != nil {
		return ""
	}
	s, _ := v.StringValue()
	return s
}

// num evaluates an attribute of an ad to a number (0 if it is not one).
func num(ad *classad.Ad, name string) float64 {
	v, err := classad.EvalAttr(ad, name, nil)
	if err != nil {
		return 0
	}
	x, _ := v.NumberValue()
	return x
}

// numOK evaluates an attribute to a number and says whether it is one.
func numOK(ad *classad.Ad, name string) (float64, bool) {
	v, err := classad.EvalAttr(ad, name, nil)
	if err != nil {
		return 0, false
	}
	return v.NumberValue()
}

// boolean evaluates an attribute of an ad to a boolean (false if it is
// not one).
func boolean(ad *classad.Ad, name string) bool {
	v, err := classad.EvalAttr(ad, name, nil)
	if err != nil {
		return false
	}
	b, ok := v.BoolValue()
	return ok && b
}

// MachineOf names the machine a slot ad belongs to: its Machine
// attribute, else what follows the @ of its name.
func MachineOf(ad *classad.Ad) string {
	if m := str(ad, "Machine"); m != "" {
		return m
	}
	name := str(ad, "Name")
	if _, host, ok := strings.Cut(name, "@"); ok {
		return host
	}
	return name
}
