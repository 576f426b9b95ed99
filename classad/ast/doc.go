// Package ast is the syntax of ClassAds: a sealed tree of expressions
// (Literal, AttrRef, Select, Index, Unary, Binary, Cond, Paren, Call, List,
// Record) with the byte offset each was parsed from, and the printers that
// write trees back as text.
//
// The canonical printer (String, AppendExpr) writes what HTCondor's
// unparser writes: `a + b * c`, `{ 1,2 }`, `[ a = 1; b = "x" ]`, reals as
// %.15E, =?= as `is`. AppendPretty is the layout of HTCondor's PrettyPrint
// (what the unparse() function returns); AppendOldAttr writes the old
// one-attribute-per-line syntax, and AppendLongAttr that syntax as
// HTCondor's tools print ads in long form (reals as %.16G, =?= and =!=);
// AppendJSON writes HTCondor's JSON form.
// Parsing a printed tree gives the same tree.
//
// Refs walks what an evaluation reads: the attributes of an ad followed
// through its own expressions, the names left to the other ad of a match,
// and whether eval() of a computed string could read anything. Autoclusters
// (internal/autocluster) and the matchmaker's slot classes are keyed by it.
//
// Attribute and function names compare without ASCII case (EqualFold,
// FoldHash), as HTCondor's do.
package ast
