// Package fit is the one rule for fitting a job into a partitionable
// slot: what a job asks for when it leaves a request out, whether the
// request fits what the slot has left, and how big the dynamic slot
// carved for it is. The startd carves with it and the negotiator, which
// predicts the carving to match several jobs to one slot in a cycle,
// uses it too, so that a match the negotiator makes is one the startd
// accepts.
//
// The rule is HTCondor's with its default configuration. A missing
// request is one unit of each resource: 1 cpu (JOB_DEFAULT_REQUESTCPUS),
// 128 MiB (JOB_DEFAULT_REQUESTMEMORY) and 1024 KiB, the smallest disk a
// dynamic slot gets. The startd rounds a request up before it carves
// (MODIFY_REQUEST_EXPR_REQUESTCPUS = quantize(RequestCpus, {1}),
// ..._REQUESTMEMORY = quantize(RequestMemory, {128}),
// ..._REQUESTDISK = quantize(RequestDisk, {1024})), but only when the
// rounded request still fits (MUST_MODIFY_REQUEST_EXPRS = False).
package fit

import (
	"fmt"
	"math"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// Resources are amounts of what a slot offers or a job asks for.
type Resources struct {
	Cpus   int64 // cores
	Memory int64 // MiB
	Disk   int64 // KiB
}

// Default is what a job asks for when it leaves a request out, or asks
// for no more than nothing.
var Default = Resources{Cpus: 1, Memory: 128, Disk: 1024}

// Quantum is the unit each amount of a dynamic slot is rounded up to.
var Quantum = Resources{Cpus: 1, Memory: 128, Disk: 1024}

// WithinLimits is the source of a slot's WithinResourceLimits: the job's
// requests, missing ones taken as Default, are at most what the slot
// offers.
var WithinLimits = fmt.Sprintf(
	"(TARGET.%s ?: %d) <= MY.%s && (TARGET.%s ?: %d) <= MY.%s && (TARGET.%s ?: %d) <= MY.%s",
	attr.RequestCpus, Default.Cpus, attr.Cpus,
	attr.RequestMemory, Default.Memory, attr.Memory,
	attr.RequestDisk, Default.Disk, attr.Disk)

// Fits reports whether r is at most have in every resource.
func (r Resources) Fits(have Resources) bool {
	return r.Cpus <= have.Cpus && r.Memory <= have.Memory && r.Disk <= have.Disk
}

// Add returns r + o.
func (r Resources) Add(o Resources) Resources {
	return Resources{r.Cpus + o.Cpus, r.Memory + o.Memory, r.Disk + o.Disk}
}

// Sub returns r - o.
func (r Resources) Sub(o Resources) Resources {
	return Resources{r.Cpus - o.Cpus, r.Memory - o.Memory, r.Disk - o.Disk}
}

// String describes the amounts with their units.
func (r Resources) String() string {
	return fmt.Sprintf("%d cpus, %d MiB memory, %d KiB disk", r.Cpus, r.Memory, r.Disk)
}

// Request is what a job asks for, given the values of its RequestCpus,
// RequestMemory and RequestDisk: each rounded up to a whole unit, and
// one that is not a positive number taken from Default (pass 0 for a
// request that is missing, undefined or not a number).
func Request(cpus, memory, disk float64) Resources {
	return Resources{
		Cpus:   amount(cpus, Default.Cpus),
		Memory: amount(memory, Default.Memory),
		Disk:   amount(disk, Default.Disk),
	}
}

// maxAmount bounds an amount so that rounding it up cannot overflow.
const maxAmount = 1 << 53

// amount rounds a requested value up to a whole unit; def when it is not
// positive (or not a number at all).
func amount(v float64, def int64) int64 {
	if !(v > 0) {
		return def
	}
	return int64(math.Ceil(min(v, maxAmount)))
}

// Requested evaluates a job's requests against the slot it asks of.
func Requested(job, slot *classad.Ad) Resources {
	get := func(name string) float64 {
		v, err := classad.EvalAttr(job, name, slot)
		if f, ok := v.NumberValue(); err == nil && ok {
			return f
		}
		return 0
	}
	return Request(get(attr.RequestCpus), get(attr.RequestMemory), get(attr.RequestDisk))
}

// Carve returns the size of the dynamic slot a request gets out of what
// a partitionable slot has free: the request with every amount rounded up
// to its Quantum if that fits, else the request as it is. ok is false
// when the request does not fit at all.
func Carve(req, free Resources) (size Resources, ok bool) {
	if !req.Fits(free) {
		return Resources{}, false
	}
	rounded := Resources{
		Cpus:   quantize(req.Cpus, Quantum.Cpus),
		Memory: quantize(req.Memory, Quantum.Memory),
		Disk:   quantize(req.Disk, Quantum.Disk),
	}
	if rounded.Fits(free) {
		return rounded, true
	}
	return req, true
}

// quantize rounds n up to a multiple of q, as ClassAd's quantize(n, {q})
// does for a positive n.
func quantize(n, q int64) int64 {
	if q <= 0 || n%q == 0 {
		return n
	}
	if n < 0 {
		return n - n%q
	}
	return n + q - n%q
}
