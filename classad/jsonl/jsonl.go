// Package jsonl is the ClassAd service of `kite classad json`: one JSON
// request per line in, one JSON answer per line out. It is how the Python
// package (python/kite/classad2) parses, prints and evaluates ClassAds
// with Kite's own parser and evaluator, so that Python gets HTCondor's
// answers (the conformance corpus judges the evaluator).
//
// Requests carry ads and expressions as ClassAd text; answers carry
// values tagged by type:
//
//	{"op":"parse_ads","text":T,"format":"new"|"old"|"auto"} → {"ads":[AD...]}
//	{"op":"parse_expr","text":T}                           → {"expr":V}
//	{"op":"eval","expr":T,"my":AD_TEXT,"target":AD_TEXT}   → {"value":V}
//	{"op":"eval_attr","attr":N,"my":AD_TEXT,"target":AD_TEXT} → {"value":V}
//	{"op":"match","left":AD_TEXT,"right":AD_TEXT}          → {"match":B,"left":B,"right":B}
//	{"op":"print","text":T,"style":"new"|"old"}            → {"text":T}
//	{"op":"quote","string":S}                              → {"text":T}
//	{"op":"unquote","text":T}                              → {"string":S}
//
// AD is an object of attribute name to V, in the ad's order as pairs
// [[name, V], ...]. V is {"t":"undefined"}, {"t":"error"},
// {"t":"bool"|"int"|"string","v":...}, {"t":"real","v":number or
// "nan"|"inf"|"-inf"}, {"t":"abstime","v":secs,"tz":offset},
// {"t":"reltime","v":secs}, {"t":"list","v":[V...]}, {"t":"ad","v":AD},
// or {"t":"expr","v":T} for an expression that is not a literal (its
// canonical text). A failure is {"error":"message"}.
package jsonl

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/match"
	"github.com/kite-sched/kite/classad/parser"
)

// Request is one line of input.
type Request struct {
	Op     string `json:"op"`
	Text   string `json:"text,omitempty"`
	Format string `json:"format,omitempty"`
	Expr   string `json:"expr,omitempty"`
	Attr   string `json:"attr,omitempty"`
	My     string `json:"my,omitempty"`
	Target string `json:"target,omitempty"`
	Left   string `json:"left,omitempty"`
	Right  string `json:"right,omitempty"`
	Style  string `json:"style,omitempty"`
	String string `json:"string,omitempty"`
}

// Run answers each line of r on w, flushing after each answer (the
// caller waits for it).
func Run(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	bw := bufio.NewWriter(w)
	for sc.Scan() {
		bw.Write(Answer(sc.Bytes()))
		bw.WriteByte('\n')
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Answer returns the answer to one request line, as JSON.
func Answer(line []byte) []byte {
	var req Request
	out, err := func() (any, error) {
		if err := json.Unmarshal(line, &req); err != nil {
			return nil, fmt.Errorf("bad request: %v", err)
		}
		return answer(req)
	}()
	if err != nil {
		out = map[string]string{"error": err.Error()}
	}
	b, err := json.Marshal(out)
	if err != nil { // a value encoding/json refuses: say so on the line
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return b
}

func answer(req Request) (any, error) {
	switch req.Op {
	case "parse_ads":
		return parseAds(req.Text, req.Format)
	case "parse_expr":
		e, err := parser.ParseExpr(req.Text)
		if err != nil {
			return nil, err
		}
		return map[string]any{"expr": exprValue(e)}, nil
	case "eval", "eval_attr":
		return evaluate(req)
	case "match":
		return matchAds(req.Left, req.Right)
	case "print":
		return printText(req.Text, req.Style)
	case "quote":
		return map[string]string{"text": string(ast.AppendQuoted(nil, req.String))}, nil
	case "unquote":
		e, err := parser.ParseExpr(req.Text)
		if err != nil {
			return nil, err
		}
		if l, ok := e.(*ast.Literal); ok && l.Kind == ast.StringLit {
			return map[string]string{"string": l.Str}, nil
		}
		return nil, fmt.Errorf("%s is not a string literal", req.Text)
	}
	return nil, fmt.Errorf("unknown op %q", req.Op)
}

// parseAds parses a sequence of ads: new ones, `[...]` each, or old ones
// separated by blank lines; "auto" looks at the first.
func parseAds(text, format string) (any, error) {
	if format == "auto" || format == "" {
		format = "old"
		if strings.HasPrefix(strings.TrimSpace(text), "[") {
			format = "new"
		}
	}
	var chunks []string
	switch format {
	case "new":
		chunks = classad.SplitRecords(text)
	case "old":
		chunks = splitOld(text)
	default:
		return nil, fmt.Errorf("format %q: want new, old or auto", format)
	}
	ads := make([]any, 0, len(chunks))
	for _, c := range chunks {
		var r *ast.Record
		var err error
		if format == "new" {
			r, err = parser.ParseRecord(c)
		} else {
			r, err = parser.ParseOld(c)
		}
		if err != nil {
			return nil, err
		}
		ads = append(ads, recordValue(r))
	}
	return map[string]any{"ads": ads}, nil
}

// splitOld splits old ads at blank lines.
func splitOld(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return out
}

// adOf parses an ad's text ("" is an empty ad; nil for no ad when
// optional).
func adOf(text string, optional bool) (*eval.Ad, error) {
	if text == "" {
		if optional {
			return nil, nil
		}
		return eval.NewAd(), nil
	}
	r, err := parser.ParseAd(text)
	if err != nil {
		return nil, err
	}
	return eval.FromRecord(r), nil
}

func evaluate(req Request) (any, error) {
	my, err := adOf(req.My, false)
	if err != nil {
		return nil, fmt.Errorf("my: %w", err)
	}
	target, err := adOf(req.Target, true)
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	src := req.Expr
	if req.Op == "eval_attr" {
		src = string(ast.AppendName(nil, req.Attr))
		if req.Attr == "" {
			return nil, errors.New("eval_attr: no attr")
		}
	}
	e, err := parser.ParseExpr(src)
	if err != nil {
		return nil, err
	}
	v, err := eval.Evaluate(eval.Compile(e), my, target)
	if err != nil {
		return nil, err
	}
	return map[string]any{"value": value(v)}, nil
}

func matchAds(left, right string) (any, error) {
	l, err := adOf(left, false)
	if err != nil {
		return nil, fmt.Errorf("left: %w", err)
	}
	r, err := adOf(right, false)
	if err != nil {
		return nil, fmt.Errorf("right: %w", err)
	}
	res := match.Evaluate(l, r)
	if res.Failed {
		return nil, errors.New("the match's evaluation exceeded a limit")
	}
	return map[string]any{"match": res.Match, "left": res.LeftRequirements.IsTrue(), "right": res.RightRequirements.IsTrue()}, nil
}

// printText prints an ad (or, for the new style, any expression)
// canonically: "new" is `[ a = 1; b = 2 ]`, "old" one `a = 1` a line as
// HTCondor's tools print long ads (reals as %.16G).
func printText(text, style string) (any, error) {
	if style == "old" {
		r, err := parser.ParseAd(text)
		if err != nil {
			return nil, err
		}
		var b []byte
		for _, a := range r.Attrs {
			b = ast.AppendLongAttr(b, a.Name, a.Value)
			b = append(b, '\n')
		}
		return map[string]string{"text": string(b)}, nil
	}
	e, err := parser.ParseExpr(text)
	if err != nil {
		return nil, err
	}
	return map[string]string{"text": ast.String(e)}, nil
}

// tagged is an encoded value.
type tagged struct {
	T  string `json:"t"`
	V  any    `json:"v"`
	TZ *int32 `json:"tz,omitempty"`
}

// exprValue encodes an expression: literals (lists and ads of them too)
// as values, anything else as its text.
func exprValue(e ast.Expr) tagged {
	switch x := e.(type) {
	case *ast.Literal:
		switch x.Kind {
		case ast.UndefinedLit:
			return tagged{T: "undefined"}
		case ast.ErrorLit:
			return tagged{T: "error"}
		case ast.BoolLit:
			return tagged{T: "bool", V: x.Bool}
		case ast.IntLit:
			return tagged{T: "int", V: x.Int}
		case ast.RealLit:
			return real(x.Real)
		case ast.StringLit:
			return tagged{T: "string", V: x.Str}
		}
	case *ast.Unary:
		// -n is a negative number, as the JSON form of ads has it.
		if l, ok := x.X.(*ast.Literal); ok && x.Op == ast.OpNeg && l.Kind == ast.IntLit {
			return tagged{T: "int", V: -l.Int}
		}
		if l, ok := x.X.(*ast.Literal); ok && x.Op == ast.OpNeg && l.Kind == ast.RealLit {
			return real(-l.Real)
		}
	case *ast.List:
		vs := make([]tagged, len(x.Elems))
		for i, el := range x.Elems {
			vs[i] = exprValue(el)
		}
		return tagged{T: "list", V: vs}
	case *ast.Record:
		return tagged{T: "ad", V: recordValue(x)}
	}
	return tagged{T: "expr", V: ast.String(e)}
}

// recordValue encodes an ad's attributes in order, as [name, value] pairs.
func recordValue(r *ast.Record) [][2]any {
	out := make([][2]any, len(r.Attrs))
	for i, a := range r.Attrs {
		out[i] = [2]any{a.Name, exprValue(a.Value)}
	}
	return out
}

func real(f float64) tagged {
	switch {
	case math.IsNaN(f):
		return tagged{T: "real", V: "nan"}
	case math.IsInf(f, 1):
		return tagged{T: "real", V: "inf"}
	case math.IsInf(f, -1):
		return tagged{T: "real", V: "-inf"}
	}
	return tagged{T: "real", V: f}
}

// value encodes the result of an evaluation.
func value(v eval.Value) tagged {
	switch v.Kind() {
	case eval.UndefinedKind:
		return tagged{T: "undefined"}
	case eval.ErrorKind:
		return tagged{T: "error"}
	case eval.BoolKind:
		b, _ := v.BoolValue()
		return tagged{T: "bool", V: b}
	case eval.IntKind:
		n, _ := v.IntValue()
		return tagged{T: "int", V: n}
	case eval.RealKind:
		f, _ := v.RealValue()
		return real(f)
	case eval.StringKind:
		s, _ := v.StringValue()
		return tagged{T: "string", V: s}
	case eval.AbsTimeKind:
		secs, tz, _ := v.AbsTimeValue()
		return tagged{T: "abstime", V: secs, TZ: &tz}
	case eval.RelTimeKind:
		secs, _ := v.RelTimeValue()
		return tagged{T: "reltime", V: secs}
	case eval.ListKind:
		// As HTCondor keeps (and prints) a list value: its elements'
		// expressions.
		l, _ := v.ListValue()
		return exprValue(l.Expr())
	case eval.RecordKind:
		s, _ := v.RecordValue()
		return tagged{T: "ad", V: recordValue(s.Ad().Record())}
	}
	return tagged{T: "expr", V: v.String()}
}
