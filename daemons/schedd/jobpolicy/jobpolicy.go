// Package jobpolicy decides what a job's own policy expressions say, as
// HTCondor's schedd reads them: the periodic ones (PeriodicHold,
// PeriodicRemove, PeriodicRelease, every PERIODIC_EXPR_INTERVAL) and the
// ones read at each exit (OnExitHold, then OnExitRemove). It only
// decides; the schedd applies a decision in its queue transaction.
//
// Hold wins over remove; release applies to jobs held for any reason but
// the user's own (codes 1 and 15). An expression that is UNDEFINED holds
// the job with code 5 and says so. A cluster whose periodic expressions
// are the literal false (the default) costs nothing per job (Quiet).
package jobpolicy

import (
	"fmt"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// Action is what a policy does to a job.
type Action uint8

const (
	None    Action = iota // nothing: the job stays as it is
	Hold                  // hold it with Reason, Code and Sub
	Remove                // remove it with Reason
	Release               // release it with Reason
	Requeue               // (on exit) it runs again
	Done                  // (on exit) it completes
)

// Decision is what a policy does to one job, and why.
type Decision struct {
	Action Action
	Reason string
	Code   int // a hold's HoldReasonCode
	Sub    int // a hold's HoldReasonSubCode
}

var periodicNames = []string{attr.PeriodicHold, attr.PeriodicRemove, attr.PeriodicRelease}

// Quiet reports whether a cluster ad's periodic expressions are all
// absent or the literal false.
func Quiet(cluster *classad.Ad) bool {
	for _, n := range periodicNames {
		if e, ok := cluster.Lookup(n); ok {
			if l, isLit := e.(*ast.Literal); !isLit || l.Kind != ast.BoolLit || l.Bool {
				return false
			}
		}
	}
	return true
}

// SetsPeriodic reports whether a proc's own ad sets a periodic expression.
func SetsPeriodic(own *classad.Ad) bool {
	for _, n := range periodicNames {
		if own.Index(n) >= 0 {
			return true
		}
	}
	return false
}

// Periodic evaluates a job's periodic expressions in its whole ad; status
// is its JobStatus and holdCode its HoldReasonCode.
func Periodic(ad *classad.Ad, status, holdCode int64) Decision {
	if status != attr.Held {
		if d, ok := holdIf(ad, attr.PeriodicHold); ok {
			return d
		}
	}
	if remove, undef := isTrue(ad, attr.PeriodicRemove); remove {
		reason, _ := reasonOf(ad, attr.PeriodicRemove, false)
		return Decision{Action: Remove, Reason: reason}
	} else if undef && status != attr.Held {
		reason, sub := reasonOf(ad, attr.PeriodicRemove, true)
		return Decision{Action: Hold, Reason: reason, Code: attr.HoldJobPolicyUndefined, Sub: sub}
	}
	if status == attr.Held && holdCode != attr.HoldUserRequest && holdCode != attr.HoldSubmittedOnHold {
		if release, _ := isTrue(ad, attr.PeriodicRelease); release {
			reason, _ := reasonOf(ad, attr.PeriodicRelease, false)
			return Decision{Action: Release, Reason: reason}
		}
	}
	return Decision{}
}

// OnExit decides, as HTCondor does, from OnExitHold, then OnExitRemove
// (true when absent), whether a job that exited is held, done, or runs
// again (max_retries writes an OnExitRemove).
func OnExit(ad *classad.Ad) Decision {
	if d, ok := holdIf(ad, attr.OnExitHold); ok {
		return d
	}
	remove, undefined := isTrue(ad, attr.OnExitRemove)
	if _, set := ad.Lookup(attr.OnExitRemove); !set {
		remove = true // HTCondor's default
	}
	switch {
	case undefined:
		reason, sub := reasonOf(ad, attr.OnExitRemove, true)
		return Decision{Action: Hold, Reason: reason, Code: attr.HoldJobPolicyUndefined, Sub: sub}
	case !remove:
		return Decision{Action: Requeue}
	}
	return Decision{Action: Done}
}

// OnExitOf is OnExit for a job whose OnExitHold and OnExitRemove are hold
// and remove (nil when absent); whole makes the job's whole ad, called only
// when they must be evaluated. A job whose two are absent or literal
// booleans, as condor_submit writes them, is decided without its ad.
func OnExitOf(hold, remove ast.Expr, whole func() *classad.Ad) Decision {
	if held, ok := literalBool(hold, false); ok && !held {
		if removed, ok := literalBool(remove, true); ok {
			if !removed {
				return Decision{Action: Requeue}
			}
			return Decision{Action: Done}
		}
	}
	return OnExit(whole())
}

// literalBool is the value of e, a policy expression, when it is absent
// (nil: def) or a boolean literal; ok is false otherwise.
func literalBool(e ast.Expr, def bool) (value, ok bool) {
	if e == nil {
		return def, true
	}
	if l, isLit := e.(*ast.Literal); isLit && l.Kind == ast.BoolLit {
		return l.Bool, true
	}
	return false, false
}

// holdIf is the hold a hold expression decides, when true or UNDEFINED.
func holdIf(ad *classad.Ad, name string) (Decision, bool) {
	hold, undefined := isTrue(ad, name)
	if !hold && !undefined {
		return Decision{}, false
	}
	d := Decision{Action: Hold, Code: attr.HoldJobPolicy}
	d.Reason, d.Sub = reasonOf(ad, name, undefined)
	if undefined {
		d.Code = attr.HoldJobPolicyUndefined
	}
	return d, true
}

// isTrue evaluates a policy expression of a job: whether it is true, and
// whether it is UNDEFINED (which HTCondor holds the job for, code 5). An
// absent expression is false.
func isTrue(ad *classad.Ad, name string) (truth, undefined bool) {
	if _, ok := ad.Lookup(name); !ok {
		return false, false
	}
	v, _ := classad.EvalAttr(ad, name, nil)
	if v.IsUndefined() {
		return false, true
	}
	return v.IsTrue(), false
}

// reasonOf is the hold reason of a policy expression, with its sub code:
// its Reason attribute when set, else HTCondor's sentence naming the
// expression.
func reasonOf(ad *classad.Ad, name string, undefined bool) (string, int) {
	sub := 0
	if v, _ := classad.EvalAttr(ad, name+"SubCode", nil); v.IsNumber() {
		f, _ := v.NumberValue()
		sub = int(f)
	}
	e, _ := ad.Lookup(name)
	if undefined {
		return fmt.Sprintf("The job attribute %s expression '%s' evaluated to UNDEFINED", name, ast.String(e)), sub
	}
	if str, ok := classad.EvalString(ad, name+"Reason"); ok && str != "" {
		return str, sub
	}
	return fmt.Sprintf("The job attribute %s expression '%s' evaluated to TRUE", name, ast.String(e)), sub
}
