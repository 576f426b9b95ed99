package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/classad/parser"
	"github.com/kite-sched/kite/internal/wire"
)

// row is a job ad as the queue tables read it: most attributes the
// tables show are literals, read straight from the parsed record; only
// an expression makes the row build an ad and evaluate. Reading 100 000
// rows this way allocates a fraction of what 100 000 ads would.
type row struct {
	rec *ast.Record
	ad  *classad.Ad
}

// streamRows runs a streamed query and decodes each item as a row.
func streamRows(ctx context.Context, c *wire.Client, path string, q any, each func(*row) error) error {
	return c.Stream(ctx, "POST", path, q, func(item json.RawMessage) error {
		rec, err := parser.ParseJSON(item)
		if err != nil {
			return fmt.Errorf("the schedd sent a bad ad: %w", err)
		}
		return each(&row{rec: rec})
	})
}

// value returns an attribute's value.
func (r *row) value(name string) eval.Value {
	found := false
	for i := range r.rec.Attrs {
		a := &r.rec.Attrs[i]
		if !ast.EqualFold(a.Name, name) {
			continue
		}
		if l, ok := a.Value.(*ast.Literal); ok {
			return literal(l)
		}
		found = true
		break
	}
	if !found {
		return eval.Undefined()
	}
	if r.ad == nil {
		r.ad = eval.FromRecord(r.rec)
	}
	v, _ := classad.EvalAttr(r.ad, name, nil)
	return v
}

func literal(l *ast.Literal) eval.Value {
	switch l.Kind {
	case ast.BoolLit:
		return eval.Bool(l.Bool)
	case ast.IntLit:
		return eval.Int(l.Int)
	case ast.RealLit:
		return eval.Real(l.Real)
	case ast.StringLit:
		return eval.String(l.Str)
	case ast.ErrorLit:
		return eval.Error()
	}
	return eval.Undefined()
}

// str is an attribute for display: "" when undefined.
func (r *row) str(name string) string {
	v := r.value(name)
	if v.IsUndefined() {
		return ""
	}
	return formatValue(v, false)
}

// int is an integer attribute (0 when it is not a number).
func (r *row) int(name string) int64 {
	v := r.value(name)
	if i, ok := v.IntValue(); ok {
		return i
	}
	if f, ok := v.NumberValue(); ok {
		return int64(f)
	}
	return 0
}

// id returns "cluster.proc".
func (r *row) id() string { return fmt.Sprintf("%d.%d", r.int("ClusterId"), r.int("ProcId")) }

// plainNames returns -af's expressions as attribute names when each is
// one, for the fast path.
func plainNames(af *autoFormat) ([]string, bool) {
	names := make([]string, len(af.progs))
	for i, p := range af.progs {
		ref, ok := p.Expr().(*ast.AttrRef)
		if !ok || ref.Absolute {
			return nil, false
		}
		names[i] = ref.Name
	}
	return names, !af.raw
}

// printRow writes one -af line of plain attribute names.
func printRow(w io.Writer, af *autoFormat, names []string, r *row, buf []byte) []byte {
	var id string
	if af.jobID {
		id = r.id()
	}
	buf = af.appendLine(buf[:0], id, func(i int) string { return af.format(r.value(names[i])) })
	w.Write(buf)
	return buf
}

// adRows makes rows of ads already parsed.
func adRows(ads []*classad.Ad) []*row {
	rows := make([]*row, len(ads))
	for i, ad := range ads {
		rows[i] = &row{rec: ad.Record(), ad: ad}
	}
	return rows
}
