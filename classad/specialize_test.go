package classad_test

import (
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/batch"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/match"
	"github.com/kite-sched/kite/classad/parser"
)

// TestSpecializedSameAnswers checks that evaluating an attribute
// specialised to its ad (the matchmaker's path) gives what evaluating it as
// written gives, on every ad and expression of the conformance corpus: each
// EVALIN and EVALMT expression set as an attribute of its ad, and each
// MATCH pair's Requirements and Rank.
func TestSpecializedSameAnswers(t *testing.T) {
	const name = "KiteSpecialized"
	compared := 0
	for i, line := range readLines(t, "testdata/conformance/public.in") {
		cmd, rest, _ := strings.Cut(line, " ")
		p := batch.Split(rest)
		var my, target *eval.Ad
		var attrs []string
		switch {
		case (cmd == "EVALIN" && len(p) == 2) || (cmd == "EVALMT" && len(p) == 3):
			e, err := parser.ParseExpr(p[len(p)-1])
			my = parseAdOrNil(p[0])
			if err != nil || my == nil {
				continue
			}
			if cmd == "EVALMT" {
				target = parseAdOrNil(p[1])
			}
			my.Set(name, e)
			attrs = []string{name}
		case cmd == "MATCH" && len(p) == 2:
			my, target = parseAdOrNil(p[0]), parseAdOrNil(p[1])
			if my == nil || target == nil {
				continue
			}
			attrs = []string{match.Requirements, match.Rank}
		default:
			continue
		}
		for _, pair := range [][2]*eval.Ad{{my, target}, {target, my}} {
			if pair[0] == nil {
				continue
			}
			for _, a := range attrs {
				plain, fast := eval.NewState(pair[0], pair[1]), eval.NewState(pair[0], pair[1])
				want, got := plain.EvalAttr(a), fast.EvalMatchAttr(a)
				if got.String() != want.String() || plain.Failure() != fast.Failure() {
					t.Errorf("line %d: %s: %s of %s: got %s (%q), want %s (%q)", i+1, line, a, pair[0], got, fast.Failure(), want, plain.Failure())
				}
				compared++
			}
		}
	}
	t.Logf("%d evaluations compared", compared)
}

func parseAdOrNil(src string) *eval.Ad {
	r, err := parser.ParseRecord(src)
	if err != nil {
		return nil
	}
	return eval.FromRecord(r)
}
