package config

import (
	"net"
	"slices"
)

// A highly available central manager: several collectors (pool.collectors)
// and negotiators that elect one of them with Raft ([negotiator.raft]).

// NegotiatorRaft is the Raft group of the negotiators on several central
// managers: the elected leader runs the negotiation cycles, and the
// accountant's usage and priorities travel through the group's log, so
// that a follower takes over with the whole fair-share history. Raft
// traffic is TCP on its own port; each connection opens with the sender's
// DAEMON token (and TLS when [tls] is set), so only the pool's daemons
// join the group.
type NegotiatorRaft struct {
	// Bind is this negotiator's Raft host:port, which is also its id in
	// the group; the host must be one the other central managers reach.
	// Empty: no Raft, the negotiator runs cycles alone.
	Bind string `toml:"bind"`
	// Peers lists the Raft host:port of every negotiator of the group,
	// this one's included, the same list on every central manager.
	Peers []string `toml:"peers"`
	// Dir holds the Raft log, its stable store and the accountant's
	// snapshots. Empty: state_dir/negotiator/raft.
	Dir string `toml:"dir"`
}

// Enabled says whether the negotiator runs in a Raft group.
func (r NegotiatorRaft) Enabled() bool { return r.Bind != "" }

// CollectorAddrs returns the pool's collectors: pool.collectors, or
// pool.collector alone when that list is empty.
func (p Pool) CollectorAddrs() []string {
	if len(p.Collectors) > 0 {
		return p.Collectors
	}
	return []string{p.Collector}
}

// layerRank orders the layers a value may come from: defaults, the file,
// the environment, flags.
func layerRank(o Origin) int {
	return slices.Index([]string{"default", "file", "env", "flag"}, o.Source)
}

func init() { extraValidators = append(extraValidators, validateHA) }

// validateHA checks pool.collectors and [negotiator.raft], and settles
// pool.collector as the first of pool.collectors, for the tools that ask
// one collector.
func validateHA(c *Config) []error {
	var errs []error
	check := func(ok bool, key, format string, args ...any) {
		if !ok {
			errs = append(errs, c.errorAt(key, format, args...))
		}
	}
	addrs := func(key string, list []string) {
		for i, a := range list {
			_, port, err := net.SplitHostPort(a)
			check(err == nil && port != "", key, "%q is not an address host:port", a)
			check(!slices.Contains(list[:i], a), key, "%q is listed twice", a)
		}
	}
	addrs("pool.collectors", c.Pool.Collectors)
	switch {
	case len(c.Pool.Collectors) == 0:
	case layerRank(c.Origin("pool.collector")) > layerRank(c.Origin("pool.collectors")):
		// A later layer named one collector (-pool HOST, a flag): it wins.
		c.Pool.Collectors = nil
	default:
		c.Pool.Collector = c.Pool.Collectors[0]
	}
	r := c.Negotiator.Raft
	if !r.Enabled() {
		check(len(r.Peers) == 0, "negotiator.raft.peers", "needs negotiator.raft.bind, this negotiator's own Raft address")
		return errs
	}
	addrs("negotiator.raft.bind", []string{r.Bind})
	addrs("negotiator.raft.peers", r.Peers)
	if host, port, err := net.SplitHostPort(r.Bind); err == nil {
		check(port != "0", "negotiator.raft.bind", "needs a fixed port: the peers list it")
		ip := net.ParseIP(host)
		check(host != "" && (ip == nil || !ip.IsUnspecified()), "negotiator.raft.bind", "%q: name a host the other central managers reach, not every interface", r.Bind)
	}
	check(slices.Contains(r.Peers, r.Bind), "negotiator.raft.peers", "must list this negotiator's own negotiator.raft.bind %q", r.Bind)
	return errs
}
