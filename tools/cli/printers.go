package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/internal/attr"
)

// printLong writes ads as HTCondor's -long prints them: the old syntax,
// reals as %.16G and =?= and =!= as written (ast.AppendLongAttr), a blank
// line after each ad.
func printLong(w io.Writer, ads []*classad.Ad) error {
	var buf []byte
	for _, ad := range ads {
		buf = appendLong(buf[:0], ad)
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// appendLong appends one ad in long form, an attribute a line.
func appendLong(buf []byte, ad *classad.Ad) []byte {
	for name, e := range ad.All() {
		buf = ast.AppendLongAttr(buf, name, e)
		buf = append(buf, '\n')
	}
	return buf
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

// autoFormat is -af: the values of expressions, one ad per line, with
// the qualifiers of condor_q(1)'s -autoformat[:jlhVrTY,tng].
type autoFormat struct {
	exprs     []string
	progs     []*classad.Program
	jobID     bool // j: the job id first
	quoted    bool // V: strings in quotes
	raw       bool // r: unevaluated
	elapsed   bool // T: numbers as elapsed times, d+hh:mm:ss
	timestamp bool // Y: numbers as Unix times
	headings  bool // h
	labels    bool // l
	sep       string
	end       string
}

// parseAutoFormat reads -af's qualifiers ("", "h", "lV,", ...) and
// expressions.
func parseAutoFormat(opts string, exprs []string) (*autoFormat, error) {
	af := &autoFormat{exprs: exprs, sep: " ", end: "\n"}
	for _, c := range opts {
		switch c {
		case 'j':
			af.jobID = true
		case 'V':
			af.quoted = true
		case 'r':
			af.raw = true
		case 'T':
			af.elapsed = true
		case 'Y':
			af.timestamp = true
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
			return nil, usageError{fmt.Errorf("-af: unknown qualifier %q (qualifiers: j l h V r T Y , t n g)", c)}
		}
	}
	switch {
	case af.labels && af.headings:
		return nil, usageError{fmt.Errorf("-af: l and h may not be used together")}
	case strings.ContainsRune(opts, 'n') && strings.ContainsRune(opts, ','):
		return nil, usageError{fmt.Errorf("-af: n and , may not be used together")}
	case len(exprs) == 0:
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
	out := exprReferences(af.progs)
	if af.jobID {
		out = append(out, attr.ClusterID, attr.ProcID)
	}
	return out
}

// exprReferences returns the attributes expressions refer to, once each.
func exprReferences(progs []*classad.Program) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range progs {
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

// print writes the headings (with h) and a line per ad.
func (af *autoFormat) print(w io.Writer, ads []*classad.Ad) error {
	if af.headings {
		if _, err := w.Write(af.appendHeadings(nil)); err != nil {
			return err
		}
	}
	return af.printAds(w, ads)
}

// printAds writes a line per ad.
func (af *autoFormat) printAds(w io.Writer, ads []*classad.Ad) error {
	var buf []byte
	for _, ad := range ads {
		var id string
		if af.jobID {
			id = (&row{rec: ad.Record(), ad: ad}).id()
		}
		buf = af.appendLine(buf, id, func(i int) string { return af.value(af.progs[i], ad) })
	}
	_, err := w.Write(buf)
	return err
}

// appendHeadings appends -af:h's line of headings.
func (af *autoFormat) appendHeadings(buf []byte) []byte {
	if af.jobID {
		buf = append(buf, "ID"...)
		buf = append(buf, af.sep...)
	}
	buf = append(buf, strings.Join(af.exprs, af.sep)...)
	return append(buf, af.end...)
}

// appendLine appends one ad's line: the job id (with j), then each
// expression's formatted value.
func (af *autoFormat) appendLine(buf []byte, id string, value func(i int) string) []byte {
	if af.jobID {
		if af.labels {
			buf = append(buf, "ID = "...)
		}
		buf = append(buf, id...)
		buf = append(buf, af.sep...)
	}
	for i := range af.progs {
		if i > 0 {
			buf = append(buf, af.sep...)
		}
		if af.labels {
			buf = append(buf, af.exprs[i]...)
			buf = append(buf, " = "...)
		}
		buf = append(buf, value(i)...)
	}
	return append(buf, af.end...)
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
	return af.format(v)
}

// format prints a value as the qualifiers say: T and Y turn numbers into
// elapsed times and dates.
func (af *autoFormat) format(v eval.Value) string {
	if n, ok := v.NumberValue(); ok && (af.elapsed || af.timestamp) {
		if af.elapsed {
			return formatDuration(int64(n))
		}
		return time.Unix(int64(n), 0).Format(timestampLayout)
	}
	return formatValue(v, af.quoted)
}

// timestampLayout is how -af:Y and -format %Y print a Unix time.
const timestampLayout = "2006-01-02 15:04:05"

// formatValue prints a value as the tools show it: strings bare (or in
// quotes), reals as HTCondor's tools print them with the old-ClassAd
// unparser (condor_q -af: 0.25, 3.0, 1000000.0; ast.AppendLongReal).
func formatValue(v eval.Value, quoted bool) string {
	if s, ok := v.StringValue(); ok && !quoted {
		return s
	}
	if r, ok := v.RealValue(); ok {
		return string(ast.AppendLongReal(nil, r))
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
