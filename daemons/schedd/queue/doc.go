// Package queue is the schedd's job queue: every job in memory, for
// queries and scheduling, and in a bbolt file, so that nothing
// acknowledged is lost.
//
//	Update(fn) ──▶ fn stages changes in a Tx (nothing changes if fn fails)
//	           ──▶ memory changes, writes queued in change order
//	           ──▶ committer: all queued writes in one record of the
//	               write-ahead log, one sync (group commit)
//	           ──▶ AfterCommit hooks ──▶ Update returns
//	           ··▶ later, a checkpoint: a whole file of the log in one
//	               bbolt transaction (committer.go)
//	Read(fn)   ──▶ read lock; Views stay valid after it (copy on write)
//
// The log (internal/wal, files path-wal0 and path-wal1 beside the store)
// makes a change durable with one sync of space it wrote ahead, where a
// bbolt transaction syncs twice and writes a dozen pages; a checkpoint
// puts thousands of changes into bbolt at once, while the next go to the
// log's other file. Open puts the changes the log holds beyond the last
// checkpoint into bbolt before it reads the queue, and Close checkpoints
// everything, so that a queue closed cleanly is whole in its bbolt file.
// History and Aux, which read bbolt, checkpoint first.
//
// Whoever holds the lock (a Read's or an Update's function, a rollback)
// waits for nothing that may need it: not for commits (History, Aux, an
// Update's wait) nor for the lock again (Read, Update), which would hang
// the schedd under some interleaving only. Race builds check it and
// panic at the misuse (lockcheck_race.go).
//
// A job is its cluster's ad (the attributes every proc of one submit
// shares, as internal/submit expands them) with the job's own ad over it:
// ProcId, what differs between procs, and what changed since the submit.
// A cluster of 100 000 jobs is one ad and 100 000 small ones, in memory and
// on disk. Own ads are replaced, never changed in place, so a View taken
// under the lock can be read after it is released.
//
// Writers that wait for the lock at once are staged in one turn of it,
// in the order they came, each function in its own transaction (stage.go:
// one lock handoff for many, which at thousands of job updates a second
// on a busy machine is most of what a writer waited for).
//
// Changes are visible in memory as soon as Update's function returns and
// durable when Update returns; callers acknowledge (answer a tool, start a
// job) only after that. If a commit fails (a full disk) its changes, and
// those of every commit queued behind it, are undone in memory, newest
// first, and each Update returns the write's error: memory again shows
// what the file holds, readers go on, and the next change tries the disk
// again, so the queue recovers by itself once there is room.
//
// Storage (bbolt buckets; integers big-endian, so keys sort by number):
//
//	meta      next_cluster → the next cluster id to hand out; history_first,
//	          history_next → the history's sequence numbers; version;
//	          log_applied → the last record of the log the store holds
//	clusters  cluster (8 bytes) → the cluster ad, JSON (Owner included)
//	procs     cluster (8) + proc (8) → the job's own ad, JSON
//	history   sequence (8) → a finished job's whole ad, JSON
//	aux       name → a record the schedd keeps beside the jobs (job type
//	          statistics, job factories), written with the changes it
//	          follows (PutAux)
//
// Cluster ids come from NewCluster, durably, before a submit: the tool
// needs the id to expand $(Cluster), and an id is never handed out twice,
// even across a crash. A job leaving the queue (completed or removed) is
// written to the history in the same transaction that deletes it, and the
// history keeps the newest HistoryRetain jobs.
//
// A job factory (late materialization) grows a cluster already in the
// queue (Grow), from a hook that runs at the end of every transaction's
// function (SetHook), so procs it adds commit with the change that made
// room for them; KeepOpen keeps its cluster in the queue while it has no
// jobs (grow.go).
package queue
