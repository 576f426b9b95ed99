package config

import (
	"strings"
	"testing"
)

func TestNegotiatorDefaults(t *testing.T) {
	c, _ := loadStartd(t, "")
	n := c.Negotiator
	if n.Interval.Seconds() != 60 || n.HalfLife.Seconds() != 86400 || n.DefaultPrioFactor != 1000 ||
		n.Strategy != "condor" || n.ConsiderPreemption || n.PreemptionRequirements != "" {
		t.Errorf("defaults differ from HTCondor's: %+v", n)
	}
}

func TestNegotiatorErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"bad rank expression", "[negotiator]\npre_job_rank = \"Mips * \"\n",
			`:2:24: negotiator.pre_job_rank: bad expression: expected an expression, found end of input`},
		{"bad preemption requirements", "[negotiator]\npreemption_requirements = \"RemoteUserPrio >> > 1\"\n",
			`:2:46: negotiator.preemption_requirements: bad expression`},
		{"unknown strategy", "[negotiator]\nstrategy = \"fastest\"\n",
			`:2:1: negotiator.strategy: unknown strategy "fastest"`},
		{"negative limit", "[negotiator.limits]\nlicenses = -1\n",
			`:2:1: negotiator.limits.licenses: must not be negative`},
		{"no half-life", "[negotiator]\nhalf_life = \"0s\"\n",
			`:2:1: negotiator.half_life: must be a positive duration`},
		{"unknown strategy parameter", "[negotiator]\nstrategy = \"joschka-combined\"\n[negotiator.strategy_params]\nfair_level = 0.1\nfairness = 2\n",
			`:5:1: negotiator.strategy_params.fairness: strategy "joschka-combined": unknown parameter "fairness"`},
		{"strategy parameter out of range", "[negotiator]\nstrategy = \"joschka-combined\"\n[negotiator.strategy_params]\nfair_level = 1.5\n",
			`:4:1: negotiator.strategy_params.fair_level: strategy "joschka-combined": parameter "fair_level": 1.5 is outside [0, 1]`},
		{"parameters for a strategy that takes none", "[negotiator]\nstrategy = \"random\"\n[negotiator.strategy_params]\nx = 1\n",
			`:3:1: negotiator.strategy_params: strategy "random" takes no parameters (given x)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, file := loadStartd(t, tt.text)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), file+tt.want) {
				t.Errorf("got %v\nwant %s%s", err, file, tt.want)
			}
		})
	}
}

func TestNegotiatorStrategyParams(t *testing.T) {
	c, _ := loadStartd(t, "[negotiator]\nstrategy = \"joschka-combined\"\n[negotiator.strategy_params]\n"+
		"fair_level = 0.1\npower_index_prob = 0\nrunlength_scale = \"dynamic\"\nuse_uptimes = true\n")
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	p := c.Negotiator.StrategyParams
	if p["fair_level"] != 0.1 || p["power_index_prob"] != int64(0) || p["runlength_scale"] != "dynamic" || p["use_uptimes"] != true {
		t.Errorf("params %v", p)
	}
}
