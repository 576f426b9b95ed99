package policy

import (
	"math"
	"slices"
	"strings"
)

// Condor is HTCondor's distribution: submitters in order of effective
// priority (lower first), each given its share of the pool's slot weight
// in proportion to 1/EUP less what it already uses; within a submitter,
// requests in the schedd's order, each job given the best slot by the rank
// tuple. Slots left over after a round ("pie spin") are shared again among
// the submitters that still want more, until a round makes no match.
type Condor struct{}

// Name implements Strategy.
func (Condor) Name() string { return "condor" }

// Distribute implements Strategy.
func (Condor) Distribute(m Market) {
	subs := m.Submitters()
	hungry := byPriority(subs)
	for spin := 0; len(hungry) > 0; spin++ {
		budget := m.PoolWeight()
		if spin > 0 {
			budget = m.FreeWeight()
		}
		if budget <= 0 {
			break
		}
		inv := 0.0
		for _, s := range hungry {
			inv += 1 / eup(subs[s].Priority)
		}
		var next []int
		made := 0
		for _, s := range hungry {
			limit := budget * (1 / eup(subs[s].Priority)) / inv
			if spin == 0 {
				limit -= subs[s].InUse
			}
			n, more := serve(m, subs[s], limit)
			made += n
			if more {
				next = append(next, s)
			}
		}
		if made == 0 {
			break
		}
		hungry = next
	}
}

// serve matches one submitter's jobs until its limit (slot weight) is
// used. It returns the matches made and whether the submitter stopped for
// its limit with jobs left that could still match.
func serve(m Market, sub Submitter, limit float64) (made int, more bool) {
	used := 0.0
	for k, j := range sub.Requests {
		for m.Remaining(j) > 0 {
			if used >= limit {
				// Out of share; but when nothing is free either, the jobs
				// wait for slots, not for priority.
				why := Quota
				if m.FreeWeight() <= 0 {
					why = Busy
				}
				for _, rest := range sub.Requests[k:] {
					if m.Remaining(rest) > 0 {
						m.Reject(rest, why)
					}
				}
				return made, why == Quota
			}
			i, why := m.Best(j)
			if i < 0 {
				m.Reject(j, why)
				break
			}
			w, why := m.Assign(j, i)
			if why != OK {
				m.Reject(j, why)
				break
			}
			used += w
			made++
		}
	}
	return made, false
}

// byPriority returns the indices of submitters with requests, best
// (lowest) effective priority first, ties by name.
func byPriority(subs []Submitter) []int {
	var out []int
	for s := range subs {
		if len(subs[s].Requests) > 0 {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		pa, pb := eup(subs[a].Priority), eup(subs[b].Priority)
		switch {
		case pa < pb:
			return -1
		case pa > pb:
			return 1
		}
		return strings.Compare(subs[a].Name, subs[b].Name)
	})
	return out
}

// eup guards the share computation against priorities that are zero,
// negative or not numbers (HTCondor's smallest EUP is 0.5).
func eup(p float64) float64 {
	if math.IsNaN(p) || p < 1e-9 {
		return 1e-9
	}
	return p
}
