// Package matchexp is HTCondor's match-time substitution: a submit file may write $$(Attr),
// $$(Attr:default) or $$([expression]) in a value, to be replaced by the
// matched slot's attribute (or the expression evaluated with the job as
// MY and the slot as TARGET) when the job starts there. The schedd
// substitutes in the job ad it sends with the activation; the queue keeps
// the job as submitted, so a job that runs again elsewhere is substituted
// again.
package matchexp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// Expand substitutes $$() references in the job's string attributes
// from the slot. It fails, naming the attribute, when a reference has no
// value and no default.
func Expand(job, slot *classad.Ad) error {
	for i := 0; i < job.Len(); i++ {
		lit, ok := job.Expr(i).(*ast.Literal)
		if !ok || lit.Kind != ast.StringLit || !strings.Contains(lit.Str, "$$(") {
			continue
		}
		out, err := expandString(lit.Str, job, slot)
		if err != nil {
			return fmt.Errorf("%s: %w", job.Name(i), err)
		}
		job.Set(job.Name(i), ast.Str(out))
	}
	return nil
}

// expandString substitutes every $$() of s.
func expandString(s string, job, slot *classad.Ad) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "$$(")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		body, rest, ok := matchBody(s[i+3:])
		if !ok {
			return "", fmt.Errorf("unterminated $$( in %q", s)
		}
		v, err := matchValue(body, job, slot)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		s = rest
	}
}

// matchBody splits "body)rest" at the parenthesis closing $$(, skipping
// the brackets of a $$([expression]).
func matchBody(s string) (body, rest string, ok bool) {
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "])")
		if end < 0 {
			return "", "", false
		}
		return s[:end+1], s[end+2:], true
	}
	end := strings.IndexByte(s, ')')
	if end < 0 {
		return "", "", false
	}
	return s[:end], s[end+1:], true
}

// matchValue is the text one $$() stands for.
func matchValue(body string, job, slot *classad.Ad) (string, error) {
	src, def, hasDef := body, "", false
	if !strings.HasPrefix(body, "[") {
		if k := strings.IndexByte(body, ':'); k >= 0 {
			src, def, hasDef = body[:k], body[k+1:], true
		}
	} else {
		src = body[1 : len(body)-1]
	}
	prog, err := classad.Compile(src)
	if err != nil {
		return "", fmt.Errorf("$$(%s): %w", body, err)
	}
	// $$(Attr) is the slot's attribute; $$([expression]) is evaluated
	// with the job as MY and the slot as TARGET (condor_submit's manual:
	// $$([TARGET.Memory * 0.9])).
	my, target := slot, job
	if strings.HasPrefix(body, "[") {
		my, target = job, slot
	}
	v, _ := classad.Eval(prog, my, target)
	switch {
	case v.IsUndefined() || v.IsError():
		if hasDef {
			return def, nil
		}
		name, _ := classad.EvalString(slot, attr.Name)
		return "", fmt.Errorf("$$(%s) has no value on slot %s", body, name)
	}
	if s, ok := v.StringValue(); ok {
		return s, nil
	}
	if f, ok := v.RealValue(); ok {
		return formatReal(f), nil
	}
	return v.String(), nil
}

// formatReal writes a real as HTCondor substitutes it: 15 significant
// digits, 3686.4 rather than 3.686400000000000E+03, and a point kept in
// a whole number (2048.0).
func formatReal(f float64) string {
	s := strconv.FormatFloat(f, 'G', 15, 64)
	if !strings.ContainsAny(s, ".EIN") {
		s += ".0"
	}
	return s
}
