// Package parser reads ClassAd text into ast trees: single expressions
// (ParseExpr), ads in the new syntax `[ a = 1; b = a + 1 ]` (ParseRecord), in
// the old syntax of HTCondor's -long output, one `Name = Expr` per line with
// `#` comments (ParseOld), either of the two (ParseAd), and HTCondor's JSON
// form (ParseJSON, JSONDecoder).
//
// It is the only package that uses participle. participle drives the
// document grammar of the old syntax and supplies the lexer interface;
// expressions are parsed by precedence climbing in a function registered
// with participle.ParseTypeWith (a struct per precedence level would make
// trees deep and parsing slow). Single expressions and new-syntax ads are
// read from the scanner one token ahead rather than through participle's
// token buffer, which measured at over half the time of parsing an ad.
//
// Parsing is on every ad's way in, so the hot path is kept lean: the
// scanner is hand-written over byte-class tables (participle's generated
// lexers match regular expressions, slower than this and unable to say
// HTCondor's rules for numbers and `? :`), a token is a 40-byte value with
// an operator code rather than participle's 64-byte Token with its text
// compared, and the common nodes (literals, names, binary operations,
// selections, parentheses) come from slabs, so the benchmark machine ad
// is 16 allocations rather than one a node. Records gather their
// attributes in pooled scratch space and are allocated once at their
// size; a JSON ad's names and strings are slices of one copy of its text.
//
// Errors are *Error values naming file:line:col, with the source line and
// a caret. Nesting is bounded (MaxDepth) so hostile input cannot exhaust the
// stack; nothing panics, whatever the input (see the fuzz tests).
package parser
