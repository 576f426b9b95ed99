package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// Params are a strategy's settings by name, as a scenario file or a
// configuration gives them (TOML values: string, int64, float64, bool).
type Params map[string]any

// Configurable is a strategy that takes parameters. Configure rejects a
// name it does not know or a value of the wrong kind, naming it.
type Configurable interface {
	Strategy
	Configure(Params) error
}

// NewWith returns a new instance of the named strategy with params set.
// Parameters given to a strategy that takes none are an error.
func NewWith(name string, params Params) (Strategy, error) {
	s, err := New(name)
	if err != nil || len(params) == 0 {
		return s, err
	}
	if err := simulatorKeys(params); err != nil {
		return nil, fmt.Errorf("strategy %q: %w", name, err)
	}
	c, ok := s.(Configurable)
	if !ok {
		return nil, fmt.Errorf("strategy %q takes no parameters (given %s)", name, strings.Join(params.names(), ", "))
	}
	if err := c.Configure(params); err != nil {
		return nil, fmt.Errorf("strategy %q: %w", name, err)
	}
	return c, nil
}

func (p Params) names() []string {
	out := make([]string, 0, len(p))
	for k := range p {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// simulatorOnly are the simulator's settings of a compared policy that
// are not a strategy's parameters, with why a live pool has none.
var simulatorOnly = map[string]string{
	"dispatch": `queue dispatch (jobs waiting in per-host FCFS queues) exists only in the simulator ` +
		`(kite sim: dispatch = "queue" on the [[policy]]); a live pool dispatches by pull: a job starts ` +
		`when a slot is free, and a partitionable slot is a host whose queue holds as many jobs as it has cores`,
	"batch": `offering every idle job each cycle is a setting of the simulator's queue dispatch ` +
		`(kite sim: batch = true on the [[policy]]); a live negotiator offers every idle job each cycle`,
}

// simulatorKeys refuses the simulator's policy settings given as
// parameters, saying where they work.
func simulatorKeys(p Params) error {
	for _, k := range p.names() {
		if why, ok := simulatorOnly[k]; ok {
			return fmt.Errorf("parameter %q is not a strategy parameter: %s", k, why)
		}
	}
	return nil
}

// only reports the first parameter not among known.
func (p Params) only(known ...string) error {
	for _, k := range p.names() {
		if !slices.Contains(known, k) {
			if len(known) == 0 {
				return fmt.Errorf("unknown parameter %q (it takes none)", k)
			}
			return fmt.Errorf("unknown parameter %q (known: %s)", k, strings.Join(known, ", "))
		}
	}
	return nil
}

// String returns the string parameter name, or def when it is not set.
func (p Params) String(name, def string) (string, error) {
	v, ok := p[name]
	if !ok {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("parameter %q: want a string, got %v", name, v)
	}
	return s, nil
}

// Expr returns the parameter name compiled as a ClassAd expression, or
// nil when it is not set.
func (p Params) Expr(name string) (*classad.Program, error) {
	src, err := p.String(name, "")
	if err != nil || src == "" {
		return nil, err
	}
	prog, err := classad.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("parameter %q: %w", name, err)
	}
	return prog, nil
}

// requestsByAge returns the market's requests oldest first: by the QDate
// of the job each request shows (its schedd's first), ties in the
// market's order. Strategies from the literature serve one stream of jobs
// first come, first served, whatever their submitter.
func requestsByAge(m Market) []int {
	reqs := m.Requests()
	out := make([]int, 0, len(reqs))
	dates := make([]float64, len(reqs))
	for j := range reqs {
		out = append(out, j)
		dates[j] = classad.EvalNumberOr(reqs[j].Ad, attr.QDate, 0)
	}
	slices.SortStableFunc(out, func(a, b int) int { return cmp.Compare(dates[a], dates[b]) })
	return out
}

// noSlot records why request j gets no slot now, as Best says.
func noSlot(m Market, j int) {
	if _, why := m.Best(j); why != OK {
		m.Reject(j, why)
		return
	}
	m.Reject(j, Busy)
}
