// Package match decides whether two ads match, as HTCondor's matchmaker
// does: each ad's Requirements must be true with MY bound to that ad and
// TARGET to the other (so the match is symmetric), and each ad's Rank says
// how much it prefers the other. It also explains a failed match clause by
// clause (Explain), which analyze builds on.
package match

import (
	"github.com/kite-sched/kite/classad/eval"
)

// Attribute names the matchmaker reads.
const (
	Requirements = "Requirements"
	Rank         = "Rank"
)

// The names evaluated in every match, hashed once.
var requirementsName, rankName = eval.NewAttrName(Requirements), eval.NewAttrName(Rank)

// Result is the outcome of a symmetric match.
type Result struct {
	// Match is true when both Requirements hold (each a boolean true or a
	// non-zero number).
	Match bool
	// LeftRequirements and RightRequirements are each ad's Requirements
	// evaluated against the other.
	LeftRequirements, RightRequirements eval.Value
	// LeftRank and RightRank are each ad's Rank evaluated against the other.
	LeftRank, RightRank eval.Value
	// Failed is set when an evaluation exceeded a depth or step limit.
	Failed bool
}

// Evaluate matches left against right and evaluates both Ranks.
func Evaluate(left, right *eval.Ad) Result {
	var m Matcher
	return m.Evaluate(left, right)
}

// Matcher evaluates matches with reusable state, so that matching does not
// allocate. A Matcher is not safe for concurrent use; give each goroutine
// its own. The zero value is ready to use.
type Matcher struct {
	st eval.State
}

// Matches reports whether left and right match: both Requirements hold.
func (m *Matcher) Matches(left, right *eval.Ad) bool {
	return m.requirements(left, right).IsTrue() && m.requirements(right, left).IsTrue()
}

// MatchesOnce is Matches for an ad made for this one match (a job ad
// materialised to be checked against a claimed slot): fresh's Requirements
// are evaluated as written, the other's specialised as in Matches, since
// specialising an ad costs more than one evaluation saves.
func (m *Matcher) MatchesOnce(fresh, other *eval.Ad) bool {
	m.st.Reset(fresh, other)
	return m.st.EvalAttr(Requirements).IsTrue() && m.requirements(other, fresh).IsTrue()
}

// Requirements evaluates my's Requirements against target.
func (m *Matcher) requirements(my, target *eval.Ad) eval.Value {
	m.st.Reset(my, target)
	return m.st.EvalMatch(requirementsName)
}

// Rank evaluates my's Rank against target.
func (m *Matcher) Rank(my, target *eval.Ad) eval.Value {
	m.st.Reset(my, target)
	return m.st.EvalMatch(rankName)
}

// Evaluate matches left against right and evaluates both Ranks.
func (m *Matcher) Evaluate(left, right *eval.Ad) Result {
	var r Result
	failed := func() bool { return m.st.Failure() != "" }
	r.LeftRequirements = m.requirements(left, right)
	r.Failed = failed()
	r.RightRequirements = m.requirements(right, left)
	r.Failed = r.Failed || failed()
	r.LeftRank = m.Rank(left, right)
	r.Failed = r.Failed || failed()
	r.RightRank = m.Rank(right, left)
	r.Failed = r.Failed || failed()
	r.Match = r.LeftRequirements.IsTrue() && r.RightRequirements.IsTrue()
	return r
}
