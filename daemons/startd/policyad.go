package startd

import (
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// verdictAttrs are the policy expressions a verdict evaluates.
var verdictAttrs = []string{attr.IsOwner, attr.Start, attr.Suspend, attr.Continue, attr.Preempt, attr.Kill,
	attr.MaxJobRetirementTime}

// policyOnlyAd returns an ad of the policy expressions alone when the
// ones a verdict evaluates read nothing but each other: no attribute of
// the slot, the machine or the job, and no eval() of a computed string.
// Such a verdict (the default policy's: START = true, IS_OWNER = START
// =?= false, SUSPEND = false, ...) is the same against this ad as
// against the whole slot ad, which the policy loop then need not build
// for every slot at every check. It returns nil when the policy reads
// more.
func policyOnlyAd(policy []namedExpr) *classad.Ad {
	ad := classad.NewAd()
	for _, p := range policy {
		ad.Set(p.name, p.expr)
	}
	r := ast.NewRefs()
	r.Follow(ad, verdictAttrs...)
	if r.Escape || len(r.Other) > 0 {
		return nil
	}
	return ad
}
