// Package batch runs the ClassAd line protocol: one command per line in,
// one answer per line out. It is how `kite classad batch` and the
// conformance tests put Kite's evaluator beside HTCondor's reference
// answers.
//
//	EXPR <expr>                       the value of expr in an empty ad
//	EVALIN <ad> ||| <expr>            the value with MY bound to ad
//	EVALMT <my> ||| <target> ||| <e>  the value with MY and TARGET bound
//	MATCH <ad1> ||| <ad2>             match, both Ranks, both Requirements (TAB-separated)
//	UNPARSE <expr>                    expr printed canonically
//	UNPARSEAD <ad>                    ad printed canonically
//
// Special answers: PARSE_ERROR, EVAL_FAIL (a depth or step limit was
// exceeded) and BAD_COMMAND.
package batch

import (
	"bufio"
	"io"
	"strings"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/match"
	"github.com/kite-sched/kite/classad/parser"
)

// Special answers.
const (
	ParseError = "PARSE_ERROR"
	EvalFail   = "EVAL_FAIL"
	BadCommand = "BAD_COMMAND"
)

// Run answers each line of r on w.
func Run(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	bw := bufio.NewWriter(w)
	for sc.Scan() {
		bw.WriteString(Answer(sc.Text()))
		bw.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

// Answer returns the answer to one command line.
func Answer(line string) string {
	cmd, rest, _ := strings.Cut(strings.TrimLeft(line, " \t"), " ")
	switch cmd {
	case "EXPR":
		return exprCmd(rest)
	case "EVALIN":
		return evalCmd(rest, 2)
	case "EVALMT":
		return evalCmd(rest, 3)
	case "MATCH":
		return matchCmd(rest)
	case "UNPARSE":
		e, err := parser.ParseExpr(rest)
		if err != nil {
			return ParseError
		}
		return ast.String(e)
	case "UNPARSEAD":
		r, err := parser.ParseRecord(rest)
		if err != nil {
			return ParseError
		}
		return ast.String(r)
	}
	return BadCommand
}

func exprCmd(src string) string {
	e, err := parser.ParseExpr(src)
	if err != nil {
		return ParseError
	}
	return evaluate(e, eval.NewAd(), nil)
}

// evalCmd handles EVALIN (parts 2: ad, expr) and EVALMT (parts 3: my,
// target, expr).
func evalCmd(rest string, parts int) string {
	p := Split(rest)
	if len(p) != parts {
		return BadCommand
	}
	ads := make([]*eval.Ad, parts-1)
	for i := range ads {
		r, err := parser.ParseRecord(p[i])
		if err != nil {
			return ParseError
		}
		ads[i] = eval.FromRecord(r)
	}
	e, err := parser.ParseExpr(p[parts-1])
	if err != nil {
		return ParseError
	}
	var target *eval.Ad
	if parts == 3 {
		target = ads[1]
	}
	return evaluate(e, ads[0], target)
}

func evaluate(e ast.Expr, my, target *eval.Ad) string {
	v, err := eval.Evaluate(eval.Compile(e), my, target)
	if err != nil {
		return EvalFail
	}
	return v.String()
}

func matchCmd(rest string) string {
	p := Split(rest)
	if len(p) != 2 {
		return BadCommand
	}
	var ads [2]*eval.Ad
	for i := range ads {
		r, err := parser.ParseRecord(p[i])
		if err != nil {
			return ParseError
		}
		ads[i] = eval.FromRecord(r)
	}
	res := match.Evaluate(ads[0], ads[1])
	if res.Failed {
		return EvalFail
	}
	return strings.Join([]string{
		boolWord(res.Match),
		res.LeftRank.String(), res.RightRank.String(),
		res.LeftRequirements.String(), res.RightRequirements.String(),
	}, "\t")
}

func boolWord(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// Split splits a line at each ||| that is outside string literals and
// quoted names, trimming blanks around the parts.
func Split(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\'':
			i = ast.QuotedEnd(s, i) - 1
		case strings.HasPrefix(s[i:], "|||"):
			parts = append(parts, strings.TrimSpace(s[start:i]))
			i += 2
			start = i + 1
		}
	}
	return append(parts, strings.TrimSpace(s[start:]))
}
