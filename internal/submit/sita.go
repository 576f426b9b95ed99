package submit

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/sita"
)

// SITA-E commands (Kite's own): `sita_fit = moments | mle` fits a bounded
// Pareto B(k, p, a) to the sizes of the cluster's jobs, once every proc
// is made, and writes k, p and a into every job ad as paper 003's
// Min_size_of_job, Max_size_of_job and Pareto_variability, which execute
// hosts configured with [startd.sita] source = "job" turn into size
// intervals. `sita_size_attr` names the size attribute (ImageSize).
const (
	sitaFitKey      = "sita_fit"
	sitaSizeAttrKey = "sita_size_attr"
)

func init() {
	knownCommands[sitaFitKey] = true
	knownCommands[sitaSizeAttrKey] = true
}

// sitaFit applies sita_fit to the finished cluster: the definition in
// force at the last queue statement counts, as for any command.
func (x *expander) sitaFit(c *Cluster) error {
	fitM, attrM := x.sitaDefs()
	if fitM == nil || len(c.Procs) == 0 {
		return nil
	}
	method, err := x.sitaValue(fitM)
	if err != nil || method == "" {
		return err
	}
	method = strings.ToLower(method)
	if method != sita.Moments && method != sita.MLE {
		return x.sitaError(fitM, "%s = %s is invalid: use %s or %s", fitM.name, method, sita.Moments, sita.MLE)
	}
	attr := sita.DefaultSizeAttr
	if attrM != nil {
		if attr, err = x.sitaValue(attrM); err != nil {
			return err
		}
		if err := sita.ValidAttrName(attr); err != nil {
			return x.sitaError(attrM, "%s: %v", attrM.name, err)
		}
	}
	for _, name := range []string{sita.JobMinSize, sita.JobMaxSize, sita.JobVariability} {
		if c.has(name) {
			return x.sitaError(fitM, "%s computes %s, which the submit file sets too: remove one of them", fitM.name, name)
		}
	}
	sizes, whole, err := c.sizes(attr)
	if err != nil {
		return x.sitaError(fitM, "%s: %v", fitM.name, err)
	}
	fit, err := sita.FitSizes(method, sizes)
	if err != nil {
		var se *sita.SizeError
		if errors.As(err, &se) {
			err = fmt.Errorf("job %s has %s = %g: sizes must be positive", c.jobID(se.Index), attr, se.Value)
		}
		return x.sitaError(fitM, "%s: %v", fitM.name, err)
	}
	if fit.Warning != "" {
		x.warn(fitM.sp.where(), fitM.name+": "+fit.Warning)
	}
	c.Ad.Set(sita.JobMinSize, sizeLiteral(fit.K, whole))
	c.Ad.Set(sita.JobMaxSize, sizeLiteral(fit.P, whole))
	c.Ad.Set(sita.JobVariability, ast.Real(fit.A))
	return nil
}

// sitaDefs returns the definitions of sita_fit and sita_size_attr in force
// at the last queue statement, and warns about a sita_fit after it.
func (x *expander) sitaDefs() (fit, attr *macro) {
	last := -1
	for i, st := range x.ran {
		if st.queue != nil {
			last = i
		}
	}
	for i, st := range x.ran {
		key := strings.ToLower(st.key)
		if st.queue != nil || (key != sitaFitKey && key != sitaSizeAttrKey) {
			continue
		}
		if i > last {
			x.warn(st.sp.where(), st.key+" after the last queue statement applies to no job")
			continue
		}
		m := &macro{name: st.key, value: st.value, sp: st.sp}
		if key == sitaFitKey {
			fit = m
		} else {
			attr = m
		}
	}
	return fit, attr
}

// sitaValue expands a command's value.
func (x *expander) sitaValue(m *macro) (string, error) {
	exp := expansion{sc: x.sc}
	v := trimSpace(exp.expand(m.value))
	if exp.err != nil {
		return "", x.sitaError(m, "%v", exp.err)
	}
	return v, nil
}

// sitaError is an error at the value of m.
func (x *expander) sitaError(m *macro, format string, args ...any) error {
	p := m.sp.at(0)
	return x.errorPos(p, format, args...)
}

// has reports whether any job of the cluster has the attribute.
func (c *Cluster) has(name string) bool {
	if _, ok := c.Ad.Lookup(name); ok {
		return true
	}
	for _, p := range c.Procs {
		if _, ok := p.Lookup(name); ok {
			return true
		}
	}
	return false
}

// sizes returns every job's size, and whether all are whole numbers. A
// literal is read as it is; any other expression is evaluated in the
// job's full ad.
func (c *Cluster) sizes(attr string) ([]float64, bool, error) {
	sizes := make([]float64, len(c.Procs))
	whole := true
	for i, p := range c.Procs {
		e, ok := p.Lookup(attr)
		if !ok {
			e, ok = c.Ad.Lookup(attr)
		}
		if !ok {
			return nil, false, fmt.Errorf("job %s has no %s to fit", c.jobID(i), attr)
		}
		s, isInt, ok := number(e)
		if !ok {
			v, _ := classad.EvalAttr(c.Job(i), attr, nil)
			_, isInt = v.IntValue()
			if s, ok = v.NumberValue(); !ok {
				return nil, false, fmt.Errorf("job %s has %s = %s, not a number", c.jobID(i), attr, classad.String(e))
			}
		}
		sizes[i] = s
		whole = whole && isInt
	}
	return sizes, whole, nil
}

// jobID names proc i as cluster.proc.
func (c *Cluster) jobID(i int) string {
	cl, _ := classad.EvalAttr(c.Ad, "ClusterId", nil)
	pr, _ := classad.EvalAttr(c.Procs[i], "ProcId", nil)
	return cl.String() + "." + pr.String()
}

// number reads a numeric literal.
func number(e ast.Expr) (float64, bool, bool) {
	l, ok := e.(*ast.Literal)
	switch {
	case !ok:
		return 0, false, false
	case l.Kind == ast.IntLit:
		return float64(l.Int), true, true
	case l.Kind == ast.RealLit:
		return l.Real, false, true
	}
	return 0, false, false
}

// sizeLiteral writes k or p as an integer when the sizes were integers.
func sizeLiteral(f float64, whole bool) ast.Expr {
	if whole && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return ast.Int(int64(f))
	}
	return ast.Real(f)
}
