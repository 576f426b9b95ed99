package classad

import (
	"io"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/parser"
)

// The types callers use, defined by the packages that own them.
type (
	// Ad is a ClassAd ready for evaluation.
	Ad = eval.Ad
	// Value is the result of an evaluation.
	Value = eval.Value
	// Expr is a parsed expression.
	Expr = ast.Expr
	// Program is an expression compiled for repeated evaluation.
	Program = eval.Program
	// ParseError is a syntax error with its line and column.
	ParseError = parser.Error
)

// ParseOption adjusts a parse (for example, the file name errors cite).
type ParseOption = parser.Option

// Filename names the source in parse errors.
func Filename(name string) ParseOption { return parser.Filename(name) }

// Limits bounds the size and nesting of an expression ParseExpr and
// Compile accept; over a bound, the ParseError's Limit names it.
type Limits = parser.Limits

// WithLimits bounds a parse of one expression (ParseExpr, Compile).
func WithLimits(l Limits) ParseOption { return parser.WithLimits(l) }

// Parse parses an ad in either syntax: new (`[ a = 1; b = 2 ]`) when the
// text starts with '[', old (one `Name = Expr` per line) otherwise.
func Parse(src string, opts ...ParseOption) (*Ad, error) {
	if !parser.IsNewSyntax(src) {
		return ParseOld(src, opts...)
	}
	return ParseNew(src, opts...)
}

// ParseNew parses an ad in the new syntax.
func ParseNew(src string, opts ...ParseOption) (*Ad, error) {
	var ad *Ad
	err := parser.ParseRecordAttrs(src, func(attrs []ast.Attr, hashes []uint32) {
		ad = eval.FromAttrs(attrs, hashes)
	}, opts...)
	if err != nil {
		return nil, err
	}
	return ad, nil
}

// ParseOld parses an ad in the old syntax.
func ParseOld(src string, opts ...ParseOption) (*Ad, error) {
	r, err := parser.ParseOld(src, opts...)
	if err != nil {
		return nil, err
	}
	return eval.FromRecord(r), nil
}

// ParseExpr parses one expression.
func ParseExpr(src string, opts ...ParseOption) (Expr, error) {
	return parser.ParseExpr(src, opts...)
}

// Compile parses and compiles an expression for repeated evaluation.
func Compile(src string, opts ...ParseOption) (*Program, error) {
	e, err := parser.ParseExpr(src, opts...)
	if err != nil {
		return nil, err
	}
	return eval.Compile(e), nil
}

// NewAd returns an empty ad.
func NewAd() *Ad { return eval.NewAd() }

// Eval evaluates p with MY bound to my and TARGET to target (either may
// be nil). The error is non-nil only if evaluation exceeded a limit.
func Eval(p *Program, my, target *Ad) (Value, error) { return eval.Evaluate(p, my, target) }

// EvalAttr evaluates the attribute name of my against target.
func EvalAttr(my *Ad, name string, target *Ad) (Value, error) {
	return eval.EvaluateAttr(my, name, target)
}

// String returns an expression printed canonically.
func String(e Expr) string { return ast.String(e) }

// Unparse returns an ad printed canonically in the new syntax.
func Unparse(ad *Ad) string { return ast.String(ad.Record()) }

// AppendJSON appends ad in HTCondor's JSON form; with indent, one
// attribute per line as condor_q -json prints it.
func AppendJSON(buf []byte, ad *Ad, indent bool) []byte {
	return ast.AppendJSONAttrs(buf, ad, indent)
}

// ParseJSON parses an ad in HTCondor's JSON form.
func ParseJSON(data []byte) (*Ad, error) {
	var ad *Ad
	err := parser.ParseJSONAttrs(data, func(attrs []ast.Attr, hashes []uint32) {
		ad = eval.FromAttrs(attrs, hashes)
	})
	if err != nil {
		return nil, err
	}
	return ad, nil
}

// ParseJSONArray parses a JSON array of ads and returns, with each ad, the
// bytes it was read from (aliasing data).
func ParseJSONArray(data []byte) ([]*Ad, [][]byte, error) {
	recs, raws, err := parser.ParseJSONArray(data)
	if err != nil {
		return nil, nil, err
	}
	ads := make([]*Ad, len(recs))
	for i, r := range recs {
		ads[i] = eval.FromRecord(r)
	}
	return ads, raws, nil
}

// AppendJSONArray appends ads as a JSON array on one line.
func AppendJSONArray(buf []byte, ads []*Ad) []byte {
	buf = append(buf, '[')
	for i, ad := range ads {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = ast.AppendJSONAttrs(buf, ad, false)
	}
	return append(buf, ']')
}

// JSONDecoder reads ads in JSON form from a stream: objects one after
// another, or an array of objects.
type JSONDecoder struct{ d *parser.JSONDecoder }

// NewJSONDecoder returns a decoder reading from r.
func NewJSONDecoder(r io.Reader) *JSONDecoder {
	return &JSONDecoder{d: parser.NewJSONDecoder(r)}
}

// Next returns the next ad, or io.EOF.
func (d *JSONDecoder) Next() (*Ad, error) {
	r, err := d.d.Next()
	if err != nil {
		return nil, err
	}
	return eval.FromRecord(r), nil
}

// AppendOld appends ad in the old syntax, one `Name = Expr` per line, as
// HTCondor's -long output prints ads.
func AppendOld(buf []byte, ad *Ad) []byte { return ad.AppendOld(buf) }
