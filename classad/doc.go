// Package classad is Kite's ClassAd language: the records (ads) and
// expressions HTCondor uses to describe jobs and machines and to match them.
//
// The language lives in four packages, one per phase:
//
//	ast     the syntax tree and its canonical printer
//	parser  text (new syntax `[ a = 1; b = a + 1 ]`, old one-per-line syntax,
//	        single expressions) to trees, with positioned errors
//	eval    values, ads ready for evaluation, compilation of expressions to a
//	        resolved form, the evaluator with HTCondor's semantics, builtins
//	match   symmetric matchmaking of two ads, ranks, and why a match fails
//
// This package is the facade most callers need: Parse an ad, Compile an
// expression, Eval it in an ad against a target, and print or encode ads
// (including HTCondor's JSON form).
//
// Semantics are those of HTCondor's daemons by default: old-ClassAd
// compatibility, where an unscoped name is looked up in MY and then in
// TARGET; strict operators give ERROR before UNDEFINED; == on strings
// ignores case and =?= does not; a reference cycle is UNDEFINED. Reference
// answers from HTCondor's own library (testdata/conformance) are the judge.
package classad
