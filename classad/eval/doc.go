// Package eval evaluates ClassAd expressions with the semantics of
// HTCondor's daemons: UNDEFINED and ERROR propagate through strict
// operators (ERROR first), && || ?: =?= =!= are not strict, integers and
// reals promote, == on strings ignores case, an unscoped name is looked up
// in the record it is in, the records around it, and then in the other ad
// of a match (TARGET), and a reference cycle is UNDEFINED.
//
// An Ad holds attributes in definition order with a hash index; each
// attribute's expression is compiled on first use into a tree of nodes with
// names hashed, functions resolved and constants folded, so evaluation
// walks nodes without allocating. A Value is 24 bytes. State carries one
// evaluation's depth and step budget (HTCondor's limits: 400 levels, 10
// million steps) and the attributes being evaluated; reuse a State (or a
// match.Matcher) to evaluate many times with no allocation. Daemons that
// build an ad of known size make it with room for its attributes
// (NewAdRoom, CloneRoom), and one rebuilt for every job is a scratch ad
// whose storage Reset keeps: either allocates once.
//
// For matchmaking, State.EvalMatchAttr evaluates an attribute specialised
// to its own ad, as HTCondor's matchmaker flattens the machine ad's
// Requirements: references to the ad's own attributes that depend on
// nothing else are replaced by their values and folded, other own
// attributes are inlined, references to the other ad (TARGET.X, and names
// the ad does not define) look straight into it, and eval(), time() and
// random() stay. EvalMatch takes the name hashed once (NewAttrName). The specialisation is made once per ad and attribute,
// dropped when the ad changes, and gives the values and failures plain
// evaluation does (see specialize.go).
//
// Builtin functions live in a registry (builtins*.go, one file per family)
// holding exactly the functions HTCondor 25 registers, with their
// argument rules.
package eval
