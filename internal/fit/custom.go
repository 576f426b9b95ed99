package fit

import (
	"fmt"
	"strings"

	"github.com/kite-sched/kite/classad"
)

// Counts are amounts of a machine's custom resources (GPUs, FPGAs, ...)
// by the resource's name as the slot ad spells it. HTCondor's rule for
// them differs from the one for cpus, memory and disk: a missing request
// is none (0), and a dynamic slot gets exactly what is asked, never
// rounded up (HTCondor manual, admin-manual/ep-policy-configuration.rst,
// "Custom and Fungible Resources": a job asks with request_<name>).
type Counts map[string]int64

// RequestAttr is the job attribute that asks for n units of a custom
// resource: Request<name>.
func RequestAttr(name string) string { return "Request" + name }

// RequestedCounts evaluates a job's Request<name> for each of names
// against the slot it asks of; anything but a positive number is 0, and
// a fraction is rounded up.
func RequestedCounts(job, slot *classad.Ad, names []string) Counts {
	var out Counts // nil, allocating nothing, while nothing is asked
	for _, n := range names {
		v, err := classad.EvalAttr(job, RequestAttr(n), slot)
		if f, ok := v.NumberValue(); err == nil && ok {
			if a := amount(f, 0); a > 0 {
				if out == nil {
					out = Counts{}
				}
				out[n] = a
			}
		}
	}
	return out
}

// Fits reports whether every amount of c is at most free's.
func (c Counts) Fits(free Counts) bool {
	for n, a := range c {
		if a > free[n] {
			return false
		}
	}
	return true
}

// WithinLimitsFor is WithinLimits extended to the custom resources
// names: each Request<name> (none when missing) is at most what the slot
// has of it.
func WithinLimitsFor(names []string) string {
	var b strings.Builder
	b.WriteString(WithinLimits)
	for _, n := range names {
		fmt.Fprintf(&b, " && (TARGET.%s ?: 0) <= MY.%s", RequestAttr(n), n)
	}
	return b.String()
}
