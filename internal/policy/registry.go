package policy

import (
	"fmt"
	"slices"
	"sync"
)

var (
	regMu    sync.Mutex
	registry = map[string]func() Strategy{
		"condor": func() Strategy { return Condor{} },
	}
)

// Register makes a strategy available by name to configuration
// (negotiator.strategy) and to the simulator. A strategy with state across
// cycles gets a new instance from make for each negotiator or run.
func Register(name string, make func() Strategy) {
	regMu.Lock()
	defer regMu.Unlock()
	registry[name] = make
}

// New returns a new instance of the named strategy.
func New(name string) (Strategy, error) {
	regMu.Lock()
	defer regMu.Unlock()
	make, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown strategy %q (known: %v)", name, namesLocked())
	}
	return make(), nil
}

// Names lists the registered strategies.
func Names() []string {
	regMu.Lock()
	defer regMu.Unlock()
	return namesLocked()
}

func namesLocked() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
