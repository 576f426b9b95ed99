package dashboard

import (
	"strings"

	"github.com/kite-sched/kite/classad"
)

// str evaluates an attribute of an ad to a string ("" if it is not one).
func str(ad *classad.Ad, name string) string { return classad.EvalStringOr(ad, name, "") }

// num evaluates an attribute of an ad to a number (0 if it is not one).
func num(ad *classad.Ad, name string) float64 { return classad.EvalNumberOr(ad, name, 0) }

// numOK evaluates an attribute to a number and says whether it is one.
func numOK(ad *classad.Ad, name string) (float64, bool) { return classad.EvalNumber(ad, name) }

// boolean evaluates an attribute of an ad to a boolean (false if it is
// not one).
func boolean(ad *classad.Ad, name string) bool { return classad.EvalBoolOr(ad, name, false) }

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
