package wire

import "time"

// The collector's endpoints.
const (
	// PathAds is POST: store ads (a JSON array of ads → UpdateAdsResult;
	// DAEMON). An ad older than the stored one of its key (by
	// DaemonStartTime, then UpdateSequenceNumber) is ignored.
	PathAds = "/v1/ads"
	// PathInvalidate is POST: remove ads (Invalidate → InvalidateResult; DAEMON).
	PathInvalidate = "/v1/ads/invalidate"
	// PathQuery is POST: ads matching a query, streamed (Query → one
	// *classad.Ad per item; READ).
	PathQuery = "/v1/ads/query"
	// PathMembers is GET: the pool's members and their health
	// (→ Members; READ).
	PathMembers = "/v1/members"
)

// UpdateAdsResult says what became of an UpdateAds.
type UpdateAdsResult struct {
	Stored int `json:"stored"`
	Stale  int `json:"stale"` // ignored as older than what was stored
}

// Invalidate removes ads of one type: those named, and those matching
// the constraint when it is set.
type Invalidate struct {
	Type       string   `json:"type"`
	Names      []string `json:"names,omitempty"`
	Constraint string   `json:"constraint,omitempty"`
}

// InvalidateResult says how many ads were removed.
type InvalidateResult struct {
	Removed int `json:"removed"`
}

// Query asks for ads.
type Query struct {
	// Type is the MyType to return; "" returns every type.
	Type string `json:"type,omitempty"`
	// Constraint is a ClassAd expression an ad must make true.
	Constraint string `json:"constraint,omitempty"`
	// Projection lists the attributes to return; empty returns whole ads.
	Projection []string `json:"projection,omitempty"`
	// Limit caps the number of ads returned; 0 means no cap.
	Limit int `json:"limit,omitempty"`
	// Absent includes ads whose daemon gossip reports dead.
	Absent bool `json:"absent,omitempty"`
}

// Members is the pool's membership as the collector's gossip sees it.
type Members struct {
	Members []Member `json:"members"`
}

// Member is one daemon in the pool.
type Member struct {
	Name    string    `json:"name"`
	Kind    string    `json:"kind"`
	Addr    string    `json:"addr"`
	Gossip  string    `json:"gossip"`
	State   string    `json:"state"`
	Since   time.Time `json:"since"`
	Version string    `json:"version,omitempty"`
}
