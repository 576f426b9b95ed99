package sita

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// Where a host finds k, p and a.
const (
	// SourceJob reads them from each job (JobMinSize, JobMaxSize,
	// JobVariability), as paper 003 does: the boundaries are computed
	// inside the host's expressions from the job's attributes, so each
	// job set brings its own fit.
	SourceJob = "job"
	// SourceConfig fixes them in the host's configuration: the
	// boundaries are literals.
	SourceConfig = "config"
)

// The job attributes that carry a job set's parameters (paper 003's
// names), and the default size attribute.
const (
	JobMinSize      = "Min_size_of_job"
	JobMaxSize      = "Max_size_of_job"
	JobVariability  = "Pareto_variability"
	DefaultSizeAttr = "ImageSize"
)

// The slot ad attributes HostAd makes.
const (
	AttrSource      = "SitaSource"      // "job" or "config"
	AttrSizeAttr    = "SitaSizeAttr"    // the name of the job's size attribute
	AttrIntervals   = "SitaIntervals"   // n
	AttrInterval    = "SitaInterval"    // this slot's i, 1..n
	AttrJobParams   = "SitaJobParams"   // (job source) the job carries k, p and a
	AttrMinSize     = "SitaMinSize"     // k: a literal, or the job's
	AttrMaxSize     = "SitaMaxSize"     // p
	AttrVariability = "SitaVariability" // a
	AttrLowerBound  = "SitaLowerBound"  // x(i-1): a literal, or computed from the job's k, p, a
	AttrUpperBound  = "SitaUpperBound"  // x(i)
)

// HostConfig is a host's SITA-E setting, as the [startd.sita] section of
// its configuration holds it (internal/config.Sita mirrors it).
type HostConfig struct {
	// Attribute is the job attribute holding a job's size; "" means
	// ImageSize.
	Attribute string
	// Intervals is the number of intervals n; 0 turns SITA-E off.
	Intervals int
	// Interval is this host's interval, 1..n, for hosts and slots the
	// Hosts table does not name (0: none).
	Interval int
	// Source is SourceJob ("" too) or SourceConfig.
	Source string
	// K, P and A are B(k, p, a): required with SourceConfig; with
	// SourceJob they are optional (all 0 when unset) and apply to jobs
	// that do not carry their own.
	K, P, A float64
	// Hosts maps slot names (slot1@host), host names and short host
	// names (up to the first dot) to intervals, so one configuration
	// can serve a whole pool. Names are compared without regard to case.
	Hosts map[string]int
}

// Validate reports every problem with the configuration.
func (c HostConfig) Validate() error {
	if c.Intervals == 0 {
		return nil
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Intervals < 1 || c.Intervals > MaxIntervals {
		bad("intervals = %d: must be between 0 (off) and %d", c.Intervals, MaxIntervals)
	}
	if c.Interval < 0 || c.Interval > c.Intervals {
		bad("interval = %d: must be between 1 and intervals = %d (or 0 with a hosts table)", c.Interval, c.Intervals)
	}
	for name, i := range c.Hosts {
		if i < 1 || i > c.Intervals {
			bad("hosts: %q = %d: the interval must be between 1 and intervals = %d", name, i, c.Intervals)
		}
	}
	if err := ValidAttrName(c.sizeAttr()); err != nil {
		bad("attribute: %v", err)
	}
	switch c.Source {
	case "", SourceJob:
		if c.K != 0 || c.P != 0 || c.A != 0 {
			if err := c.pareto().Validate(); err != nil {
				bad("source = job with fallback parameters: %v (leave k, p and a all unset, or set all three)", err)
			}
		}
	case SourceConfig:
		if err := c.pareto().Validate(); err != nil {
			bad("source = config: %v", err)
		}
	default:
		bad("source = %q: must be %q or %q", c.Source, SourceJob, SourceConfig)
	}
	return errors.Join(errs...)
}

func (c HostConfig) pareto() Pareto { return Pareto{K: c.K, P: c.P, A: c.A} }

func (c HostConfig) sizeAttr() string {
	if c.Attribute == "" {
		return DefaultSizeAttr
	}
	return c.Attribute
}

// hasFallback reports whether job-source parameters have config values.
func (c HostConfig) hasFallback() bool { return c.K != 0 || c.P != 0 || c.A != 0 }

var attrNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ValidAttrName checks that name can be written as a ClassAd attribute
// reference (TARGET.name) without quoting.
func ValidAttrName(name string) error {
	if !attrNameRE.MatchString(name) {
		return fmt.Errorf("%q is not a ClassAd attribute name", name)
	}
	if e, err := classad.ParseExpr(name); err != nil {
		return fmt.Errorf("%q is not a ClassAd attribute name", name)
	} else if _, ok := e.(*ast.AttrRef); !ok {
		return fmt.Errorf("%q is a ClassAd keyword, not an attribute name", name)
	}
	return nil
}

// IntervalFor returns the interval of a slot: the Hosts entry for the
// slot's name, the host's name or its short name, in that order, else
// Interval.
func (c HostConfig) IntervalFor(host, slot string) (int, error) {
	short, _, _ := strings.Cut(host, ".")
	for _, name := range []string{slot, host, short} {
		if name == "" {
			continue
		}
		for k, i := range c.Hosts {
			if strings.EqualFold(k, name) {
				return i, nil
			}
		}
	}
	if c.Interval >= 1 {
		return c.Interval, nil
	}
	return 0, fmt.Errorf("neither slot %q nor host %q is in the SITA-E hosts table, and no interval is set for this host", slot, host)
}

// Attribute is one attribute of a slot ad.
type Attribute struct {
	Name string
	Expr classad.Expr
}

// String prints the attribute as `Name = Expr`.
func (a Attribute) String() string { return a.Name + " = " + classad.String(a.Expr) }

// HostAd returns what a slot serving SITA-E adds to its ad: the
// attributes that describe its interval, and a clause the slot's
// Requirements must AND in (parenthesized). With SITA-E off
// (Intervals = 0) both are empty.
//
// The clause admits a job whose size s lies in the slot's interval i of
// n: x(i-1) <= s < x(i), with no lower test on the first interval and
// no upper test on the last, so that every size, on a boundary or outside
// [k, p], is admitted by exactly one interval. The boundaries are the
// attributes SitaLowerBound and SitaUpperBound: literals with
// SourceConfig; with SourceJob, expressions of the job's own k, p and a
// that are right for a < 1, a = 1 and a > 1 (paper 003's expression
// compares powers of the size, which reverses the order for a > 1).
// Every host writes boundary x(j) with the same expression text, so
// neighbouring hosts agree on it to the bit.
//
// A job without the size attribute, or (SourceJob without fallback
// parameters) without all three of k, p and a, is not sized: every slot
// admits it, as if SITA-E were off. A job whose parameters are invalid
// (k <= 0, p < k, a <= 0) is admitted by no slot.
func HostAd(cfg HostConfig, host, slot string) (attrs []Attribute, requirements string, err error) {
	if cfg.Intervals == 0 {
		return nil, "", nil
	}
	if err := cfg.Validate(); err != nil {
		return nil, "", err
	}
	i, err := cfg.IntervalFor(host, slot)
	if err != nil {
		return nil, "", err
	}
	g := generator{cfg: cfg, n: cfg.Intervals, i: i, size: "TARGET." + cfg.sizeAttr()}
	if cfg.Source == SourceConfig {
		err = g.configAttrs()
	} else {
		g.jobAttrs()
	}
	if err != nil {
		return nil, "", err
	}
	return g.parse()
}

// generator writes the attributes and clause as text.
type generator struct {
	cfg   HostConfig
	n, i  int
	size  string // TARGET.<size attribute>
	texts [][2]string
	// valid is the job-source test that the job's parameters are usable.
	valid string
	// gate admits jobs SITA-E does not size.
	gate string
}

func (g *generator) add(name, text string) { g.texts = append(g.texts, [2]string{name, text}) }

// common adds the attributes both sources share.
func (g *generator) common(source string) {
	g.add(AttrSource, quote(source))
	g.add(AttrSizeAttr, quote(g.cfg.sizeAttr()))
	g.add(AttrIntervals, fmt.Sprint(g.n))
	g.add(AttrInterval, fmt.Sprint(g.i))
}

// configAttrs writes literals for k, p, a and the two boundaries.
func (g *generator) configAttrs() error {
	iv, err := g.cfg.pareto().Boundaries(g.n)
	if err != nil {
		return err
	}
	g.common(SourceConfig)
	g.add(AttrMinSize, realText(g.cfg.K))
	g.add(AttrMaxSize, realText(g.cfg.P))
	g.add(AttrVariability, realText(g.cfg.A))
	g.add(AttrLowerBound, realText(iv.Lower(g.i)))
	g.add(AttrUpperBound, realText(iv.Upper(g.i)))
	g.gate = g.size + " is undefined"
	return nil
}

// jobAttrs writes k, p, a as the job's attributes (with the config's as
// fallback, if any) and the boundaries as expressions of them.
func (g *generator) jobAttrs() {
	g.common(SourceJob)
	params := fmt.Sprintf("TARGET.%s isnt undefined && TARGET.%s isnt undefined && TARGET.%s isnt undefined",
		JobMinSize, JobMaxSize, JobVariability)
	g.add(AttrJobParams, params)
	param := func(attr string, fallback float64) string {
		if g.cfg.hasFallback() {
			return fmt.Sprintf("ifThenElse(MY.%s, TARGET.%s, %s)", AttrJobParams, attr, exprReal(fallback))
		}
		return "TARGET." + attr
	}
	g.add(AttrMinSize, param(JobMinSize, g.cfg.K))
	g.add(AttrMaxSize, param(JobMaxSize, g.cfg.P))
	g.add(AttrVariability, param(JobVariability, g.cfg.A))
	g.add(AttrLowerBound, boundaryExpr(g.i-1, g.n))
	g.add(AttrUpperBound, boundaryExpr(g.i, g.n))
	g.gate = g.size + " is undefined"
	if !g.cfg.hasFallback() {
		g.gate += " || !MY." + AttrJobParams
	}
	g.valid = fmt.Sprintf("MY.%s > 0 && MY.%s >= MY.%s && MY.%s > 0", AttrMinSize, AttrMaxSize, AttrMinSize, AttrVariability)
}

// boundaryExpr is x(j) of n in terms of the slot's SitaMinSize (k),
// SitaMaxSize (p) and SitaVariability (a), with r = p/k and f = j/n:
//
//	a = 1:  k r^f
//	a != 1: k (1 + f (r^(1-a) - 1))^(1/(1-a))
//
// with the operations, in the order, of boundary (see Boundaries).
func boundaryExpr(j, n int) string {
	k, p, a := "MY."+AttrMinSize, "MY."+AttrMaxSize, "MY."+AttrVariability
	switch j {
	case 0:
		return k
	case n:
		return p
	}
	f := exprReal(fraction(j, n))
	r := fmt.Sprintf("real(%s) / %s", p, k)
	one := fmt.Sprintf("%s - 1 < %s && %s - 1 > -%s", a, exprReal(OneTolerance), a, exprReal(OneTolerance))
	return fmt.Sprintf("ifThenElse(%s, %s * pow(%s, %s), %s * pow(1 + %s * (pow(%s, 1 - %s) - 1), 1.0 / (1 - %s)))",
		one, k, r, f, k, f, r, a, a)
}

// clause is the Requirements clause.
func (g *generator) clause() string {
	if g.n == 1 {
		return "true"
	}
	var tests []string
	if g.valid != "" {
		tests = append(tests, g.valid)
	}
	if g.i > 1 {
		tests = append(tests, g.size+" >= MY."+AttrLowerBound)
	}
	if g.i < g.n {
		tests = append(tests, g.size+" < MY."+AttrUpperBound)
	}
	return "(" + g.gate + " || " + strings.Join(tests, " && ") + ")"
}

// parse parses the texts into attributes and checks the clause parses.
func (g *generator) parse() ([]Attribute, string, error) {
	attrs := make([]Attribute, len(g.texts))
	for j, t := range g.texts {
		e, err := classad.ParseExpr(t[1])
		if err != nil {
			return nil, "", fmt.Errorf("sita: generated %s does not parse: %v", t[0], err)
		}
		attrs[j] = Attribute{Name: t[0], Expr: e}
	}
	req := g.clause()
	if _, err := classad.ParseExpr(req); err != nil {
		return nil, "", fmt.Errorf("sita: generated Requirements clause does not parse: %v", err)
	}
	return attrs, req, nil
}

// exprReal writes a real inside an expression as the ClassAd printer
// does (16 digits): the wire carries expressions as printed text, so the
// value must be one that text reads back to.
func exprReal(f float64) string { return string(ast.AppendReal(nil, f)) }

func quote(s string) string { return string(ast.AppendQuoted(nil, s)) }

// realText writes a literal attribute's real so that it parses back to
// exactly f (the shortest such text): a slot's literal boundaries are the
// float64 values Boundaries computed, and the wire's JSON form carries
// literals exactly.

func realText(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
