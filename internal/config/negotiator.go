package config

// Negotiator configures the matchmaker.
type Negotiator struct {
	// Listen is the negotiator's host:port; port 0 picks a free one.
	Listen string `toml:"listen"`
	// Interval is the longest time between two cycles. HTCondor: 60s.
	Interval Duration `toml:"interval"`
	// CycleDelay is the shortest time between two cycles; a cycle also
	// starts this soon after new idle jobs appear. Typically 100ms.
	CycleDelay Duration `toml:"cycle_delay"`
}
