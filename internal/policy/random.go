package policy

// Random gives each job a slot drawn uniformly, with the cycle's seeded
// randomness, from the free slots it matches: the "random" task assignment
// of the literature (Harchol-Balter et al. 1998; paper 003), under which
// every host expects the same number of jobs whatever their sizes.
// Requests are served oldest first; ranks are ignored. It takes no
// parameters.
type Random struct{}

func init() { Register("random", func() Strategy { return Random{} }) }

// Name implements Strategy.
func (Random) Name() string { return "random" }

// Distribute implements Strategy.
func (Random) Distribute(m Market) {
	var cands []int
	for _, j := range requestsByAge(m) {
		cands = m.Candidates(j, cands[:0])
		for m.Remaining(j) > 0 {
			if len(cands) == 0 {
				noSlot(m, j)
				break
			}
			k := m.Rand().IntN(len(cands))
			i := cands[k]
			if !m.Free(i) || !m.Matches(j, i) {
				cands = removeAt(cands, k)
				continue
			}
			if _, why := m.Assign(j, i); why != OK {
				m.Reject(j, why)
				break
			}
			if !m.Free(i) {
				cands = removeAt(cands, k)
			}
		}
	}
}

// removeAt removes element k, moving the last into its place.
func removeAt(s []int, k int) []int {
	s[k] = s[len(s)-1]
	return s[:len(s)-1]
}
