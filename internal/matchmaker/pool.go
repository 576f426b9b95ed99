package matchmaker

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/policy"
)

// What a cycle's callers read of the pool before the cycle: the slot
// weight and limits that running jobs hold, the job attributes that
// autoclusters must tell apart, and whether any slot could take a job.

// InUse sums the slot weight each user's running jobs hold, and the
// concurrency limits they hold, from the claimed slots.
func InUse(slots []*classad.Ad) (inUse, limits map[string]float64) {
	inUse, limits = map[string]float64{}, map[string]float64{}
	for _, ad := range slots {
		if !strings.EqualFold(stringAttr(ad, attr.State), "Claimed") {
			continue
		}
		if user := stringAttr(ad, attr.RemoteUser); user != "" {
			inUse[user] += slotWeight(ad)
		}
		for _, l := range JobLimits(ad) {
			limits[l.Name] += l.Amount
		}
	}
	return inUse, limits
}

// Significant lists the job attributes the pool's slots and the policy
// read: the schedds group idle jobs into autoclusters by them (the
// negotiator sends the list with its request for autoclusters; the
// simulator's schedds use it directly).
func Significant(slots []*classad.Ad, pol *Policy) []string {
	set := map[string]string{}
	for _, a := range []string{attr.RequestCpus, attr.RequestMemory, attr.RequestDisk, attr.ConcurrencyLimit} {
		set[ast.Lower(a)] = a
	}
	follow := []string{attr.Requirements, attr.Rank, attr.Start}
	var needs policy.Needs
	if pol.Strategy != nil {
		needs = policy.NeedsOf(pol.Strategy)
		follow = append(follow, needs.SlotAttributes...)
	}
	r := ast.NewRefs()
	for _, ad := range slots {
		r.Reset()
		r.Follow(ad, follow...)
		for k, n := range r.Other {
			set[k] = n
		}
	}
	for _, n := range needs.Significant {
		set[ast.Lower(n)] = n
	}
	for k, n := range pol.refs().Other {
		set[k] = n
	}
	out := make([]string, 0, len(set))
	for _, n := range set {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(ast.Lower(a), ast.Lower(b)) })
	return out
}

// refs is what the policy's expressions read. They are evaluated with MY
// the slot and TARGET the job but belong to neither ad: every name they
// read, scoped or not, is in Other.
func (p *Policy) refs() *ast.Refs {
	r := ast.NewRefs()
	for _, e := range []*classad.Program{p.PreJobRank, p.PostJobRank, p.PreemptionRank, p.PreemptionRequirements} {
		if e != nil {
			r.Expr(nil, e.Expr())
		}
	}
	return r
}

// Available reports whether a slot could take a job in a cycle: it is
// unclaimed, or claimed and busy where the policy considers preemption.
func Available(ad *classad.Ad, considerPreemption bool) bool {
	return newSlot(ad, 0, considerPreemption) != nil
}

// SlotWeight is HTCondor's SLOT_WEIGHT: the SlotWeight attribute, else Cpus.
func SlotWeight(ad *classad.Ad) float64 { return slotWeight(ad) }
