// Package collector is the pool's memory of ads: every daemon advertises
// itself (slots, schedds, submitters, negotiators, masters) to the
// collector, and tools and the negotiator query it.
//
//	startd ──┐  POST /v1/ads (batches)      ┌── kite status, negotiator
//	schedd ──┼─────────────▶ Store ◀────────┤   POST /v1/ads/query (streamed)
//	master ──┘  keyed by (MyType, Name)      └── kite members: GET /v1/members
//	                 │
//	  expiry: ClassAdLifetime or ad_lifetime; gossip: a dead member's ads
//	  are marked Absent, then dropped after dead_member_grace
//
// The store is soft state: after a restart it fills again as daemons send
// their periodic updates. An update older than the stored ad (by the
// advertiser's DaemonStartTime, then UpdateSequenceNumber) is ignored, so a
// late packet never rolls an ad back. The collector also starts the pool's
// gossip, which other daemons join through it (GET /v1/gossip).
package collector
