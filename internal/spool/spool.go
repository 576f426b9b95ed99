// Package spool holds the rules of spooled jobs (condor_submit -spool)
// that the tool and the schedd share: which of a job's files are the
// input the tool sends, and the base names the schedd keeps them under in
// the job's spool directory.
package spool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// Input is one input file of a spooled job.
type Input struct {
	Name string // as the job ad names it
	Base string // the name it is kept under in the spool directory
}

// Inputs lists the input files a job spools: its executable unless
// TransferExecutable is false, its standard input and its
// transfer_input_files, but URLs (a plugin fetches those where the job
// runs). Two inputs of one base name are refused: the sandbox would take
// one only. So are directories: spooling sends files.
func Inputs(ad *classad.Ad) ([]Input, error) {
	var names []string
	if e, ok := ad.Lookup(attr.TransferExecutable); !ok || !isFalse(e) {
		names = append(names, str(ad, attr.Cmd))
	}
	names = append(names, str(ad, attr.In))
	for _, f := range TransferList(str(ad, attr.TransferInput)) {
		if !strings.Contains(f, "://") {
			names = append(names, f)
		}
	}
	var out []Input
	bases := map[string]string{}
	for _, n := range names {
		if n == "" || n == os.DevNull {
			continue
		}
		if strings.HasSuffix(n, "/") {
			return nil, fmt.Errorf("input %q: spooling sends files, not directories", n)
		}
		base := filepath.Base(n)
		switch other, seen := bases[base]; {
		case seen && other == n:
			continue
		case seen:
			return nil, fmt.Errorf("inputs %q and %q share the base name %q", other, n, base)
		}
		bases[base] = n
		out = append(out, Input{Name: n, Base: base})
	}
	return out, nil
}

// TransferList splits a transfer_input_files list.
func TransferList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// str is a string attribute of an ad ("" when it is not a string).
func str(ad *classad.Ad, name string) string {
	v, _ := classad.EvalAttr(ad, name, nil)
	s, _ := v.StringValue()
	return s
}

// isFalse reports whether an expression is the literal false.
func isFalse(e ast.Expr) bool {
	l, ok := e.(*ast.Literal)
	return ok && l.Kind == ast.BoolLit && !l.Bool
}
