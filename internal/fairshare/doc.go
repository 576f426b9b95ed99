// Package fairshare keeps the pool's user priorities, HTCondor's way: the
// Accountant follows each submitter's real user priority (RUP), which
// tracks the slot weight its jobs hold, decayed with a half-life, and
// gives the effective priority (RUP × factor, lower is better) by which
// a negotiation cycle divides the pool.
//
// The negotiator daemon keeps its Accountant in a bbolt file
// (OpenAccountant), committing the changes users ask for before it
// answers; the simulator keeps one in memory (NewAccountant). Both feed
// the priorities to internal/matchmaker's Cycle.
package fairshare
