package config

import (
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/policy"
)

// Negotiator configures the matchmaker and the accountant.
type Negotiator struct {
	// Listen is the negotiator's host:port; port 0 picks a free one.
	Listen string `toml:"listen"`
	// Interval is the longest time between two cycles. HTCondor: 60s.
	Interval Duration `toml:"interval"`
	// CycleDelay is the shortest time between two cycles; a cycle also
	// starts this soon after new idle jobs appear. Typically 100ms.
	CycleDelay Duration `toml:"cycle_delay"`
	// UpdateInterval is how often the negotiator advertises its ad
	// between cycles.
	UpdateInterval Duration `toml:"update_interval"`
	// Timeout bounds each call to a schedd (HTCondor's NEGOTIATOR_TIMEOUT).
	Timeout Duration `toml:"timeout"`
	// MaxRequests caps the resource requests asked of one submitter per
	// cycle (0: no cap).
	MaxRequests int `toml:"max_requests"`
	// Strategy names the distribution policy: "condor" (HTCondor's fair
	// share and rank order) or one of internal/policy's others.
	Strategy string `toml:"strategy"`
	// StrategyParams are the strategy's parameters, such as fair_level =
	// 0.1 for joschka-combined; docs/policies.md lists each strategy's.
	StrategyParams map[string]any `toml:"strategy_params"`
	// Seed seeds tie-breaks; 0 takes a new seed each cycle.
	Seed uint64 `toml:"seed"`

	// Ranks and preemption, as ClassAd expressions evaluated with MY as the
	// slot and TARGET as the job; empty means none.
	PreJobRank             string `toml:"pre_job_rank"`
	PostJobRank            string `toml:"post_job_rank"`
	PreemptionRank         string `toml:"preemption_rank"`
	PreemptionRequirements string `toml:"preemption_requirements"`
	// ConsiderPreemption lets busy slots be matched, for slot Rank and
	// priority preemption. HTCondor: true; Kite: false (faster, and
	// preemption_requirements is off by default anyway).
	ConsiderPreemption bool `toml:"consider_preemption"`

	// Limits are concurrency limits by name (case-insensitive);
	// DefaultLimit applies to names not listed (0: unlimited). Both apply
	// live on kite reconfig. A job that asks for more of a limit than its
	// maximum never matches, and kite analyze names the limit.
	Limits       map[string]float64 `toml:"limits"`
	DefaultLimit float64            `toml:"default_limit"`

	// Accountant: usage decays with HalfLife (HTCondor's
	// PRIORITY_HALFLIFE, 86400 s); a new user's priority factor is
	// DefaultPrioFactor (HTCondor: 1000).
	HalfLife          Duration `toml:"half_life"`
	DefaultPrioFactor float64  `toml:"default_prio_factor"`

	// Raft makes the negotiators of several central managers one group
	// that elects the one that runs cycles; the accountant's usage and
	// priorities travel through the group's log (docs/install.md, "Three
	// central managers"). Raft's port carries TCP between the central
	// managers only: each connection opens with the sender's DAEMON
	// token, and is TLS when [tls] is set.
	Raft NegotiatorRaft `toml:"raft"`
}

// NegotiatorExprs lists the negotiator's expression settings by key.
func (n *Negotiator) NegotiatorExprs() []struct{ Key, Src string } {
	return []struct{ Key, Src string }{
		{"negotiator.pre_job_rank", n.PreJobRank},
		{"negotiator.post_job_rank", n.PostJobRank},
		{"negotiator.preemption_rank", n.PreemptionRank},
		{"negotiator.preemption_requirements", n.PreemptionRequirements},
	}
}

func init() { extraValidators = append(extraValidators, validateNegotiator) }

func validateNegotiator(c *Config) []error {
	n := &c.Negotiator
	var errs []error
	check := func(ok bool, key, format string, args ...any) bool {
		if !ok {
			errs = append(errs, c.errorAt(key, format, args...))
		}
		return ok
	}
	check(n.UpdateInterval.Duration > 0, "negotiator.update_interval", "must be a positive duration")
	check(n.Timeout.Duration > 0, "negotiator.timeout", "must be a positive duration")
	check(n.MaxRequests >= 0, "negotiator.max_requests", "must not be negative")
	if check(slices.Contains(policy.Names(), n.Strategy), "negotiator.strategy", "unknown strategy %q (known: %v)", n.Strategy, policy.Names()) {
		if _, err := policy.NewWith(n.Strategy, n.StrategyParams); err != nil {
			errs = append(errs, c.errorAt(paramKey(n.StrategyParams, err), "%v", err))
		}
	}
	check(n.HalfLife.Duration > 0, "negotiator.half_life", "must be a positive duration")
	check(n.DefaultPrioFactor > 0, "negotiator.default_prio_factor", "must be positive")
	check(n.DefaultLimit >= 0, "negotiator.default_limit", "must not be negative")
	for name, v := range n.Limits {
		check(v >= 0, "negotiator.limits."+name, "must not be negative")
	}
	for _, e := range n.NegotiatorExprs() {
		if e.Src == "" {
			continue
		}
		if _, err := classad.ParseExpr(e.Src); err != nil {
			errs = append(errs, c.exprError(e.Key, err))
		}
	}
	return errs
}

// paramKey is the key of the strategy parameter an error names, or the
// table's when it names none.
func paramKey(params map[string]any, err error) string {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if strings.Contains(err.Error(), `"`+k+`"`) {
			return "negotiator.strategy_params." + k
		}
	}
	return "negotiator.strategy_params"
}
