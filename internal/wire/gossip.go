package wire

// PathGossip is GET: the collector's gossip address, which daemons join
// when their configuration names no members (answer: GossipInfo; level
// READ).
const PathGossip = "/v1/gossip"

// GossipInfo is where a pool's gossip can be joined.
type GossipInfo struct {
	Addr string `json:"addr"` // host:port, "" when gossip is off
}
