package config

// The sections of the configuration file. Each field's comment gives its
// unit and typical value; configs/defaults.toml holds the defaults.

// Pool is what every host of a pool shares: where the collector is and how
// requests prove who sent them.
type Pool struct {
	// Name names the pool in tokens and ads. Typically "kite".
	Name string `toml:"name"`
	// Collector is the collector's host:port, e.g. "cm.example.org:9618".
	Collector string `toml:"collector"`
	// Collectors lists the host:port of each of the pool's collectors
	// (HTCondor's COLLECTOR_HOST list). When set, it replaces collector:
	// every daemon sends its ads to each of them, and tools and daemons
	// ask the first that answers. Empty: the one collector above.
	Collectors []string `toml:"collectors"`
	// SigningKey is the pool's Ed25519 private key file (PEM), present
	// only where tokens are issued (the central manager, a personal pool).
	SigningKey string `toml:"signing_key"`
	// PublicKey is the pool's public key file (PEM); every host needs it
	// to verify tokens.
	PublicKey string `toml:"public_key"`
	// TokenFile holds the token the tools present.
	TokenFile string `toml:"token_file"`
	// DaemonTokenFile holds the token this host's daemons present when
	// they have no signing key to make their own.
	DaemonTokenFile string `toml:"daemon_token_file"`
	// StateDir is where daemons keep durable state (queues, usage).
	StateDir string `toml:"state_dir"`
	// FlockFrom names the pools whose schedds may flock to this pool
	// (HTCondor's FLOCK_FROM), each a table of peers: this pool's
	// collector takes their submitter ads and its startds their claims,
	// on the flock tokens those pools issue for this one (FLOCK only),
	// checked with each one's public key. Empty: no other pool's daemon
	// is trusted here.
	FlockFrom []string `toml:"flock_from"`
	// Peers describes other pools by name, as flock_from and
	// schedd.flock_to name them ([pool.peers.NAME]): the name is the
	// other pool's pool.name, the issuer of its tokens.
	Peers map[string]Peer `toml:"peers"`
}

// TLS turns on TLS for every daemon's endpoint when Cert and Key are set.
type TLS struct {
	Cert string `toml:"cert"` // server certificate file (PEM)
	Key  string `toml:"key"`  // server key file (PEM)
	CA   string `toml:"ca"`   // CA bundle that verifies servers (PEM); empty: system roots
}

// Log configures daemon logs.
type Log struct {
	Level  string `toml:"level"`  // debug, info, warn or error
	Format string `toml:"format"` // text or json
}

// Membership configures gossip: who is alive and where.
type Membership struct {
	// Enabled turns gossip on. A daemon without it relies on ad expiry
	// and claim leases alone.
	Enabled bool `toml:"enabled"`
	// Bind is the host:port gossip listens on; port 0 picks a free one.
	Bind string `toml:"bind"`
	// Join lists host:port gossip addresses of members to join at start.
	Join []string `toml:"join"`
	// ProbeInterval is how often each member probes another; failure
	// detection takes a few intervals. Typically 1s.
	ProbeInterval Duration `toml:"probe_interval"`
	// ProbeTimeout is how long a probe waits for an answer. Typically 500ms.
	ProbeTimeout Duration `toml:"probe_timeout"`
	// SuspicionMult scales how long a suspected member has to refute
	// before it is declared dead. Typically 4.
	SuspicionMult int `toml:"suspicion_mult"`
}

// Master configures the supervisor of a host's daemons.
type Master struct {
	// Daemons lists the daemons to run: collector, negotiator, schedd, startd.
	Daemons []string `toml:"daemons"`
	// Listen is the master's host:port; port 0 picks a free one.
	Listen string `toml:"listen"`
	// Name names the host in the master's ad (master@Name) and its
	// Machine; empty means the host name (HTCondor's MASTER_NAME). Hosts
	// that share a host name, such as containers, need one each.
	Name string `toml:"name"`
	// BackoffConstant, BackoffFactor and BackoffCeiling set the wait
	// before restarting a crashed daemon: constant + factor^restarts,
	// at most the ceiling (HTCondor: 9s, 2, 1h).
	BackoffConstant Duration `toml:"backoff_constant"`
	BackoffFactor   float64  `toml:"backoff_factor"`
	BackoffCeiling  Duration `toml:"backoff_ceiling"`
	// RecoverAfter is how long a daemon must run before its restart count
	// is forgotten. Typically 5m.
	RecoverAfter Duration `toml:"recover_after"`
	// UpdateInterval is how often the master advertises its ad. Typically 5m.
	UpdateInterval Duration `toml:"update_interval"`
}

// Collector configures the collector.
type Collector struct {
	// Listen is the host:port the collector serves; the pool's collector
	// address points here.
	Listen string `toml:"listen"`
	// AdLifetime is how long an ad lives without an update, unless the ad
	// sets ClassAdLifetime (seconds). HTCondor's default is 15m.
	AdLifetime Duration `toml:"ad_lifetime"`
	// DeadMemberGrace is how long ads of a member gossip reports dead are
	// kept (marked absent) before they are dropped. Typically 30s.
	DeadMemberGrace Duration `toml:"dead_member_grace"`
	// MaxBodyBytes bounds the size of one update of ads (a startd's
	// slots, a schedd's submitters). Queries, which carry an expression
	// or two, are bounded by max_expression_bytes. Typically 64 MiB.
	MaxBodyBytes int64 `toml:"max_body_bytes"`
	// MaxExpressionBytes bounds each expression a query carries: its
	// constraint. Typically 1 MiB.
	MaxExpressionBytes int `toml:"max_expression_bytes"`
	// MaxExpressionTokens bounds the tokens (names, literals, operators,
	// brackets) of each such expression, and so the size of the tree the
	// collector builds and evaluates for it. Typically 100000.
	MaxExpressionTokens int `toml:"max_expression_tokens"`
	// MaxExpressionDepth bounds the nesting of each such expression (at
	// most 500, HTCondor's MAX_PARSER_DEPTH). Typically 500.
	MaxExpressionDepth int `toml:"max_expression_depth"`
	// Dashboard serves the web dashboard at /dashboard/ (read-only,
	// behind a READ token). Typically true.
	Dashboard bool `toml:"dashboard"`
	// SampleInterval is how often the collector samples the pool's
	// statistics (slots, CPUs, jobs; each machine's state and load) for
	// the dashboard's plots. Typically 10s.
	SampleInterval Duration `toml:"sample_interval"`
	// SampleHistory is how many samples of the pool are kept, in memory:
	// 2160 samples of 10s are 6 hours.
	SampleHistory int `toml:"sample_history"`
	// MachineHistory is how many samples of each machine are kept: 360
	// samples of 10s are an hour. A machine not seen for as long is
	// forgotten.
	MachineHistory int `toml:"machine_history"`
}
