// Package negotiator is the negotiator daemon: every interval, and soon
// after a schedd asks, it runs a live cycle (live.go): it fetches the slot
// and submitter ads from the collector, brings the fair-share accountant
// (internal/fairshare, kept in a bbolt file) up to date, asks each
// submitter's schedds for their autoclusters, runs the pure cycle of
// internal/matchmaker, and sends each schedd its matches.
//
//	collector ──slots, submitters──▶ fetch ──▶ accountant.Update
//	schedds ◀──requests(significant)── requests
//	matchmaker.Cycle(snapshot, policy) ──matches──▶ deliver ──▶ schedds
//
// Between a match and the slot's next ad, pending.go remembers what was
// handed out so that the next cycle neither matches the slot again nor
// counts a limit twice. The Server also advertises the negotiator ad
// (ad.go, with its concurrency limits, limits.go), serves user priorities
// and cycle reports over the wire protocol (server.go) and exports
// Prometheus metrics per cycle phase (metrics.go).
package negotiator
