// Package ast is the syntax of ClassAds: a sealed tree of expressions
// (Literal, AttrRef, Select, Index, Unary, Binary, Cond, Paren, Call, List,
// Record) with the byte offset each was parsed from, and the printers that
// write trees back as text.
//
// The canonical printer (String, AppendExpr) writes what HTCondor's
// unparser writes: `a + b * c`, `{ 1,2 }`, `[ a = 1; b = "x" ]`, reals as
// %.15E, =?= as `is`. AppendPretty is the layout of HTCondor's PrettyPrint
// (what the unparse() function returns); AppendOldAttr writes the old
// one-attribute-per-line syntax; AppendJSON writes HTCondor's JSON form.
// Parsing a printed tree gives the same tree.
//
// Attribute and function names compare without ASCII case (EqualFold,
// FoldHash), as HTCondor's do.
package ast
