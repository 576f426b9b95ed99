package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
)

// printLong writes ads in the old syntax, a blank line after each, as
// HTCondor's -long does.
func printLong(w io.Writer, ads []*classad.Ad) error {
	var buf []byte
	for _, ad := range ads {
		buf = classad.AppendOld(buf[:0], ad)
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// printJSON writes ads as a JSON array, as HTCondor's -json does.
func printJSON(w io.Writer, ads []*classad.Ad) error {
	buf := []byte("[\n")
	for i, ad := range ads {
		if i > 0 {
			buf = append(buf, ",\n"...)
		}
		buf = classad.AppendJSON(buf, ad, true)
	}
	buf = append(buf, "\n]\n"...)
	_, err := w.Write(buf)
	return err
}

// autoFormat is -af: the values of expressions, one ad per line.
type autoFormat struct {
	exprs    []string
	progs    []*classad.Program
	quoted   bool // V: strings in quotes
	raw      bool // r: unevaluated
	headings bool // h
	labels   bool // l
	sep      string
	end      string
}

// parseAutoFormat reads -af's options ("", "h", "lV,", ...) and expressions.
func parseAutoFormat(opts string, exprs []string) (*autoFormat, error) {
	af := &autoFormat{exprs: exprs, sep: " ", end: "\n"}
	for _, c := range opts {
		switch c {
		case 'V':
			af.quoted = true
		case 'r':
			af.raw = true
		case 'h':
			af.headings = true
		case 'l':
			af.labels = true
		case ',':
			af.sep = ","
		case 't':
			af.sep = "\t"
		case 'n':
			af.sep, af.end = "\n", "\n"
		case 'g':
			af.end = "\n\n"
		default:
			return nil, usageError{fmt.Errorf("-af: unknown option %q (options: l h V r , t n g)", c)}
		}
	}
	if len(exprs) == 0 {
		return nil, usageError{fmt.Errorf("-af needs at least one attribute or expression")}
	}
	for i, e := range exprs {
		p, err := classad.Compile(e)
		if err != nil {
			return nil, usageError{fmt.Errorf("-af expression %d: %w", i+1, err)}
		}
		af.progs = append(af.progs, p)
	}
	return af, nil
}

// references returns the attributes the expressions need from an ad, for
// the projection of a query.
func (af *autoFormat) references() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range af.progs {
		ast.Inspect(p.Expr(), func(e ast.Expr) bool {
			var name string
			switch x := e.(type) {
			case *ast.AttrRef:
				name = x.Name
			case *ast.Select:
				if base, ok := x.X.(*ast.AttrRef); ok && ast.EqualFold(base.Name, "my") {
					name = x.Name
				}
			}
			if name != "" && !seen[ast.Lower(name)] {
				seen[ast.Lower(name)] = true
				out = append(out, name)
			}
			return true
		})
	}
	return out
}

func (af *autoFormat) print(w io.Writer, ads []*classad.Ad) error {
	var b strings.Builder
	if af.headings {
		b.WriteString(strings.Join(af.exprs, af.sep))
		b.WriteString(af.end)
	}
	for _, ad := range ads {
		for i, p := range af.progs {
			if i > 0 {
				b.WriteString(af.sep)
			}
			if af.labels {
				b.WriteString(af.exprs[i] + " = ")
			}
			b.WriteString(af.value(p, ad))
		}
		b.WriteString(af.end)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// value formats one expression for an ad: strings without quotes unless
// V, undefined as "undefined", reals in short form.
func (af *autoFormat) value(p *classad.Program, ad *classad.Ad) string {
	if af.raw {
		if i := ad.Index(classad.String(p.Expr())); i >= 0 {
			return classad.String(ad.Expr(i))
		}
	}
	v, _ := classad.Eval(p, ad, nil)
	return formatValue(v, af.quoted)
}

// formatValue prints a value as the tools show it: strings bare (or in
// quotes), reals without trailing zeros.
func formatValue(v eval.Value, quoted bool) string {
	if s, ok := v.StringValue(); ok && !quoted {
		return s
	}
	if r, ok := v.RealValue(); ok {
		return fmt.Sprintf("%g", r)
	}
	return v.String()
}

// table prints rows in columns sized to fit, numbers right-aligned.
type table struct {
	headers []string
	right   []bool
	rows    [][]string
	// totals separates the last row (a total) with a blank line.
	totals bool
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) error {
	widths := make([]int, len(t.headers))
	for i, h := range t.headers {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteByte(' ')
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if t.right[i] {
				b.WriteString(pad + c)
			} else if i == len(cells)-1 {
				b.WriteString(c)
			} else {
				b.WriteString(c + pad)
			}
		}
		b.WriteByte('\n')
	}
	line(t.headers)
	b.WriteByte('\n')
	for i, r := range t.rows {
		if t.totals && i == len(t.rows)-1 {
			b.WriteByte('\n')
		}
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
