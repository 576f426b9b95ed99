// Package matchmaker is the negotiation cycle: a pure function of a
// Snapshot of the pool (slot ads, submitters with their autoclusters,
// priorities, limits in use) and a Policy (ranks, preemption, concurrency
// limits, seed, strategy) to a Result (matches and statistics). It does no
// I/O and reads no clock, so that the negotiator daemon, the simulator
// (internal/sim) and the policy tests run the same code and a cycle
// repeats exactly from its inputs.
//
// A cycle classifies the slots into classes that no job can tell apart
// (classes.go), groups those classes again by what each request's
// expressions can see (jobview.go), and offers them to a policy.Strategy
// through a market (market.go) that evaluates each request once per class
// and keeps its matching classes sorted by HTCondor's rank tuple.
// Strategies choose; the market checks every match against both
// Requirements, partitionable-slot resources and concurrency limits.
//
// Around the cycle, Significant lists the job attributes the pool reads
// (what schedds group autoclusters by), InUse sums what running jobs
// hold, and ParseLimits and JobLimits read concurrency limits.
package matchmaker
