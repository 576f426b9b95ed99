// Package startd is the pool's worker: it describes its machine
// truthfully, divides it into slots, lets schedds claim them and runs
// their jobs safely.
//
//	resources ──▶ machine ad ──┐                       ┌──▶ collector: one ad per slot
//	[startd] config ───────────┼──▶ slots (state  ─────┤    (on change, debounced, and
//	sensors: load, idle ───────┘     machine)          │     every update interval)
//	                                   ▲   ▲           └──▶ invalidated on shutdown
//	schedd: claim, activate, alive ────┘   │ policy tick: IS_OWNER, START, SUSPEND,
//	        release, vacate                │ CONTINUE, PREEMPT, KILL, leases, drain
//	                                       ▼
//	                         starter (one per job) ──▶ schedd: job updates, files
//
// Slots follow HTCondor's states and activities (package slots); the
// policy expressions come from configuration and are evaluated with the
// slot ad as MY and the job as TARGET. A claim id is a fresh 32-byte random
// secret per slot, published only in the slot ad (which the collector shows
// to daemons alone); claiming re-checks the slot's Requirements against the
// job, and a partitionable slot is carved into a dynamic slot sized by the
// job's requests by the rule of internal/fit, which the negotiator's
// matchmaker follows too. A claim lives as long as its schedd renews its lease.
//
// Clocks and sensors are injectable (Config.Now, Config.Sensors), so tests
// drive the policy deterministically.
package startd
