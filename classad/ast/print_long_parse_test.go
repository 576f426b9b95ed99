package ast_test

import (
	"testing"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/parser"
)

// An ad printed in long form parses back to the same ad: =?= and =!= are
// the same operators as is and isnt, and a real of at most 16 significant
// digits keeps its value.
func TestLongRoundTrip(t *testing.T) {
	srcs := []string{
		"Ratio = 0.25\nOnExitHold = ExitCode =!= 0\n",
		"A = a is undefined\nB = a isnt b\nC = 1E+20 * 3.0\nD = -7.5\n",
		"R = [ x = 1.5; y = { 0.1,2.0 } ]\nS = \"C:\\dir\\\"q\"\n",
		"Rank = (Memory * 0.9) + (TARGET.Mips / 1E-05)\n",
	}
	for _, src := range srcs {
		r, err := parser.ParseOld(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		var b []byte
		for _, a := range r.Attrs {
			b = ast.AppendLongAttr(b, a.Name, a.Value)
			b = append(b, '\n')
		}
		again, err := parser.ParseOld(string(b))
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", src, b, err)
		}
		if ast.String(again) != ast.String(r) {
			t.Errorf("%q: %s became %s through %q", src, ast.String(r), ast.String(again), b)
		}
	}
}
