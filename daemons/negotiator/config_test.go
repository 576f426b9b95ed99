package negotiator_test

import (
	"strings"
	"testing"

	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/config"
)

// negotiator.strategy_params reach the strategy: a bad one stops the
// negotiator from starting.
func TestStrategyParamsFromConfig(t *testing.T) {
	c, err := config.Parse("kite.toml", "[negotiator]\nstrategy = \"joschka-combined\"\n[negotiator.strategy_params]\nfair_level = 0.25\n")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := negotiator.ConfigFrom(c)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.StrategyParams["fair_level"] != 0.25 {
		t.Errorf("params %v", cfg.StrategyParams)
	}
	cfg.StrategyParams["fair_level"] = 3.0
	if _, err := negotiator.New(nil, cfg); err == nil || !strings.Contains(err.Error(), `"fair_level": 3 is outside [0, 1]`) {
		t.Errorf("New with a bad parameter: %v", err)
	}
}
