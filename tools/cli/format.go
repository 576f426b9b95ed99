package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/eval"
)

// printfFormat is HTCondor's -format FMT ATTR, repeated: each ad prints
// each FMT with its one printf conversion filled from ATTR (an attribute
// or expression), and nothing else, newlines included, as condor_q(1)
// describes it. The conversions: %s %d %i %u %x %o %c %f %e %g %v %V %r,
// and HTCondor's %T (elapsed seconds) and %Y (a Unix time).
type printfFormat struct {
	items []formatItem
}

type formatItem struct {
	before, spec, after string // the text around the conversion, and it ("%-5d")
	verb                byte
	expr                string
	prog                *classad.Program // nil: the expression does not parse, and prints nothing
}

// formatSep joins a format and its attribute in one flag value: the
// HTCondor option takes two words, htcondorArgs makes them one.
const formatSep = "\x00"

func (f *printfFormat) String() string { return "" }
func (f *printfFormat) Type() string   { return "FMT ATTR" }

// Set adds a FMT formatSep ATTR value.
func (f *printfFormat) Set(v string) error {
	format, expr, ok := strings.Cut(v, formatSep)
	if !ok {
		return errors.New("-format takes two arguments, a format and an attribute: -format '%d\\n' ClusterId")
	}
	it, err := parseFormatItem(format, expr)
	if err != nil {
		return err
	}
	f.items = append(f.items, it)
	return nil
}

func (f *printfFormat) set() bool { return len(f.items) > 0 }

// parseFormatItem splits a format at its one conversion.
func parseFormatItem(format, expr string) (formatItem, error) {
	format = strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(format)
	it := formatItem{expr: expr}
	it.prog, _ = classad.Compile(expr)
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		if i+1 < len(format) && format[i+1] == '%' {
			i++
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.lhqjzt", format[j]) >= 0 {
			j++
		}
		if j == len(format) || strings.IndexByte("sdiuxXocfeEgGvVrTY", format[j]) < 0 {
			return it, fmt.Errorf("-format %q: a conversion is %%s, %%d, %%f, %%v, %%V, %%r, %%T or %%Y", format)
		}
		flags := strings.TrimRight(format[i+1:j], "lhqjzt")
		it.before, it.spec, it.verb, it.after = format[:i], "%"+flags, format[j], format[j+1:]
		if strings.Contains(strings.ReplaceAll(it.after, "%%", ""), "%") {
			return it, fmt.Errorf("-format %q: one conversion per -format", format)
		}
		return it, nil
	}
	it.before = format
	return it, nil
}

// references returns the attributes the formats need.
func (f *printfFormat) references() []string {
	var progs []*classad.Program
	for _, it := range f.items {
		if it.prog != nil {
			progs = append(progs, it.prog)
		}
	}
	return exprReferences(progs)
}

// print writes each ad's formats.
func (f *printfFormat) print(w io.Writer, ads []*classad.Ad) error {
	var b strings.Builder
	for _, ad := range ads {
		for _, it := range f.items {
			it.append(&b, ad)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// append writes one format for an ad; nothing when its expression does
// not parse or its value does not suit the conversion.
func (it formatItem) append(b *strings.Builder, ad *classad.Ad) {
	if it.prog == nil {
		return
	}
	if it.verb == 0 {
		b.WriteString(unpercent(it.before))
		return
	}
	v, _ := classad.Eval(it.prog, ad, nil)
	s, ok := it.convert(v, ad)
	if !ok {
		return
	}
	b.WriteString(unpercent(it.before))
	b.WriteString(s)
	b.WriteString(unpercent(it.after))
}

// convert fills the conversion with a value.
func (it formatItem) convert(v eval.Value, ad *classad.Ad) (string, bool) {
	n, isNum := v.NumberValue()
	if bv, ok := v.BoolValue(); ok {
		n, isNum = 0, true
		if bv {
			n = 1
		}
	}
	switch it.verb {
	case 'd', 'i', 'u', 'x', 'X', 'o', 'c':
		verb := it.verb
		if verb == 'i' || verb == 'u' {
			verb = 'd'
		}
		return fmt.Sprintf(it.spec+string(verb), int64(n)), isNum
	case 'f', 'e', 'E', 'g', 'G':
		return fmt.Sprintf(it.spec+string(it.verb), n), isNum
	case 'T':
		return fmt.Sprintf(it.spec+"s", formatDuration(int64(n))), isNum
	case 'Y':
		return fmt.Sprintf(it.spec+"s", time.Unix(int64(n), 0).Format(timestampLayout)), isNum
	case 'V':
		return fmt.Sprintf(it.spec+"s", formatValue(v, true)), true
	case 'r':
		if i := ad.Index(it.expr); i >= 0 {
			return fmt.Sprintf(it.spec+"s", classad.String(ad.Expr(i))), true
		}
		return fmt.Sprintf(it.spec+"s", classad.String(it.prog.Expr())), true
	}
	return fmt.Sprintf(it.spec+"s", formatValue(v, false)), true // s, v
}

func unpercent(s string) string { return strings.ReplaceAll(s, "%%", "%") }
