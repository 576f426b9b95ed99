// Package sim is Kite's simulator: a deterministic discrete-event
// simulation of a pool in virtual time that drives the real negotiation
// cycle (matchmaker.Cycle), the real ClassAd matchmaking and the
// strategies of internal/policy against simulated startds and schedds, so
// that a policy judged here is the code the live negotiator runs. The
// papers behind Kite judge scheduling by simulation; their setups are
// scenario files in examples/sim.
//
// # The model
//
// Time is a float64 of seconds; events (job arrivals and ends, machine
// failures and repairs, on/off switches, speed changes, cycles) sit in a
// heap ordered by time, kind and scheduling order, and every random draw
// comes from a PCG stream seeded by the run's seed and its purpose (the
// workload, each machine's failures, each machine's load), so the same
// scenario and seed give the same numbers every time, and every policy of
// a scenario sees the same jobs and the same failures.
//
// Machines have a speed (work units per second), slots, an optional
// benchmark time (JoSchKa's rB, published as KiteBenchmark) and
// availability: random failures with a per-minute probability that can
// change at given times, a safe time and a ramp after each start
// (JoSchKa's zerofp and incfp), a repair time; on/off schedules; explicit
// down intervals; one-time crashes of a fraction of a group (paper 004);
// and paper 002's two-state steady/loaded speed model. A machine that goes
// down loses its running jobs — counted as aborted work — and they go back
// to idle, after the pool's requeue delay (a lease expiring).
//
// Workloads are generated (sizes from constant, uniform, normal,
// exponential, bounded Pareto (internal/sita) or empirical distributions;
// arrivals all at once, Poisson — by rate, or by the load on the pool —,
// at fixed intervals, or in batches as paper 002's jobs of tasks) or read
// from a file of job ads, such as a real pool's kite history -json
// (arrival from QDate, work from RemoteWallClockTime). Each job has a
// type (KiteJobType, its group, or its owner) for per-type metrics.
//
// Two dispatch models are offered. Pull is HTCondor's: a job waits in its
// schedd until a slot is free, and a slot runs one job at a time. Queue is
// the immediate dispatch of the task-assignment literature (random,
// round-robin, least-work-left, SITA-E with host queues): each host
// advertises one slot that stays matchable while its FCFS queue has room,
// publishing the work it holds (KiteWorkLeft, KiteQueueLength, KiteSpeed),
// and runs its queue in order on its cores. Jobs are dispatched one at a
// time: each cycle offers each submitter's oldest idle job only, and
// cycles follow each other at once while jobs wait, so every job is
// placed seeing the queues as the jobs before it left them — unless the
// policy says batch = true: then each cycle offers every idle job, for
// batch heuristics that plan the whole set and hand it out one job per
// host per cycle. (In pull mode a cycle offers every idle job; a slot
// matched in a cycle takes no second job in it.) A cycle per job over every host with room suits the
// literature's pools of tens to hundreds of hosts; pull mode is the one
// that scales to the 10 000 machines and 1 000 000 jobs of the benchmark.
//
// Either way, the simulated schedds group idle jobs into autoclusters as
// the live schedd does (internal/autocluster: the significant attributes
// are matchmaker.Significant of the slots and policy, the pool's extra
// names, the jobs' Requirements and Rank and what those read) and show
// each by its oldest job, and every match is made by matchmaker.Cycle
// with the run's strategy, timed as the live negotiator times its
// cycles: a cycle delay after new idle jobs, free slots or a cycle that
// made matches, and every interval while jobs wait for something a later
// cycle may lift (fair-share quota, limits). Cycles that could match
// nothing (no idle job, no free slot, or only jobs no slot matches and
// nothing changed) are skipped: they would change nothing. A cycle's
// snapshot holds only the free slots and the autoclusters with idle jobs,
// kept up to date as events happen. The accountant (fair share) is the
// negotiator's (internal/fairshare), in memory. The schedd's claim reuse
// is not simulated: every job is matched by a cycle.
//
// # Monitoring and replication
//
// With monitor = true, or a strategy that needs it (JoSchKa's), the pool
// keeps internal/reliability's record of every machine — its benchmark
// class B, the work times of its finished and lost jobs (avF, avS), its
// periods up (avU), its reliability index R — and of every job type's
// runtimes, as the live pool does, and publishes them in the slot ads
// (KiteReliability, KiteAvgFailedTime, ...) and in the ads of the
// requests (KiteTypeRunning, KiteTypeDone, KiteTypeJobs,
// KiteTypeRuntime). A run killed because another instance of its job won
// is neither a success nor a failure of its machine. The snapshot's Pool
// holds every slot's ad, so that strategies can normalise over the whole
// pool; for a strategy that reads busy slots (no-passing) a busy slot's
// ad shows its job (State "Claimed", JobId, KiteJobType, KiteBatch).
//
// With pool.replicas = n (pull dispatch), each autocluster with running
// jobs also offers a replica request (KiteReplica = true, a count of how
// many more instances its running jobs may have, up to n extra each) to
// strategies that replicate. A replica starts from the beginning on the
// slot it was matched to; the first instance to finish wins, the others
// are killed and their slots freed, their time counted as wasted work
// (and in avEff's worked time). When the original's machine fails, the
// oldest replica carries on as the job's run.
//
// # Metrics
//
// Per run, per job type and (with batches) per batch: makespan,
// utilization (busy slot time over up slot time from the first arrival),
// mean and variance of waiting, execution and total time, mean slowdown,
// job passing (paper 002), JoSchKa's avEff and avDONE, the load
// imbalance M over hosts (algorithms.md §1), and the replicas started and
// the work they wasted; Metrics documents each. With warmup = N the job
// metrics leave out the first N jobs to arrive (a steady-state estimate
// of an open system); with confidence = 0.95 the summary gives each mean
// over the seeds its confidence interval (Student's t over the seeds as
// independent replications, ci.go). The
// running jobs of each type over time and each host's load feed the
// plots.
//
// # Scenario files
//
// A scenario is strict TOML: an unknown key or a bad value is an error
// naming file:line:col, all errors at once. Times are seconds or strings
// with units ("90s", "16m", "1.5h", "2d"). A distribution is a number or
// a table (see Dist).
//
//	name = "..."                 # default: the file's name
//	description = "..."
//	seeds = [1, 2, 3]            # each policy runs with each; tables show means
//	unit = "s"                   # report times in s, min, h or d
//	duration = "2990m"           # stop there (default: when all jobs are done)
//	sample = "1m"                # running-jobs series step (default: automatic)
//	warmup = 20000               # job metrics leave out the first 20000 jobs
//	confidence = 0.95            # intervals of the means over the seeds
//
//	[pool]
//	dispatch = "pull"            # or "queue"
//	interval = "60s"             # longest time between cycles
//	cycle_delay = "1s"           # shortest; how soon a cycle follows a change
//	queue_limit = 0              # queue mode: jobs a host may hold (0: any)
//	requeue_delay = "0s"         # how long a lost job stays away
//	significant = ["KiteWork"]   # more job attributes autoclusters tell apart
//	half_life = "24h"            # accountant
//	prio_factor = 1000
//	pre_job_rank = "..."         # negotiator ranks (ClassAd, MY = slot)
//	post_job_rank = "..."
//	monitor = false              # publish node monitoring in slot ads and
//	                             # job-type statistics in requests
//	replicas = 0                 # extra instances of a running job (pull)
//
//	[[machines]]                 # a group of alike machines
//	name = "node"                # machines are node01, node02, ...
//	count = 10
//	slots = 1                    # pull: slots; queue: cores
//	speed = 1                    # work units per second (a distribution)
//	benchmark = 4000             # ms, published as KiteBenchmark
//	memory = 4096                # MB per slot
//	disk = 10000000              # KB per slot
//	start = "..."                # START expression
//	rank = "..."                 # the slot's Rank
//	attrs = { Arch = '"X86_64"' } # more slot attributes (ClassAd expressions)
//	affinity = 'TARGET.Vector ? 2 : 1'  # times faster at a job (ClassAd, TARGET =
//	                             # the job): slots show KitePower = KiteSpeed * it
//	sita_interval = 0            # pin the group's SITA-E interval
//	failure = { per_minute = 0.02, safe = "60m", ramp = "40m", repair = 0,
//	            changes = [{ at = "1000m", per_minute = 0.0 }] }
//	crash = { fraction = 0.3, at = { dist = "uniform", min = 0, max = "700h" }, repair = "never" }
//	schedule = { period = "24h", up = "8h", phase = "0h" }
//	down = [["10h", "12h"]]
//	load = { to_loaded = 0.001, to_steady = 0.01, step = "1s",
//	         steady = [0.95, 1.0], loaded = [0.0, 0.05] }
//
//	[[workload]]                 # a group of jobs
//	type = "short"               # per-type metrics (default: group1, ...)
//	owner = "alice"              # the submitter
//	count = 500
//	size = { dist = "pareto", k = 512, p = 1e7, a = 1.1 }   # work units
//	                             # (or mean = 3000 instead of k: k found)
//	arrival = { process = "once", at = "50m" }    # or poisson (rate or load),
//	                             # interval (every), batches (batch, every)
//	same_tasks = false           # batches repeat one draw of sizes (paper 002)
//	size_attr = "ImageSize"      # also write the size into this attribute
//	requirements = "..."         # default: cpus, memory and disk fit
//	rank = "..."
//	request_cpus = 1
//	request_memory = 128
//	request_disk = 1000
//	prio = 0                     # JobPrio
//	attrs = { ... }
//	file = "jobs.json"           # instead: job ads (kite q/history -json)
//	type_attr = "Owner"          # the files' type attribute
//
//	[[policy]]                   # a policy to compare
//	name = "lwl"                 # default: the strategy
//	strategy = "least-work-left" # condor, random, round-robin, least-work-left, ...
//	params = { rank = "KiteQueueLength" }   # the strategy's parameters
//	dispatch = "queue"           # override the pool's
//	sita = { intervals = 8, source = "config", fit = "moments",
//	         attribute = "KiteWork" }       # SITA-E host ads (internal/sita)
//	sita = { intervals = 4, fit = "workload",     # tuned as the sizes drift:
//	         tune = { every = "10m", window = 2000, threshold = 10, hold = "1h" } }
//	batch = false                # queue dispatch: offer every idle job each
//	                             # cycle (batch heuristics map them all)
//
//	[vary]                       # one setup per value of one key
//	key = "workload.size.a"      # workload[1].arrival.load names one group
//	values = [1.1, 1.5, 1.9]
package sim
