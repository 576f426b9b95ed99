// Package chaos runs a real personal pool — a process per daemon, started
// with kite up — under a submit load while it SIGKILLs random daemons, the
// master and the whole pool, then proves from the jobs' own run records
// and from kite q and kite history that the pool kept its promises:
//
//   - every acknowledged job ran to completion exactly once (a job may run
//     again only when the whole pool died after its exit and before the
//     schedd recorded it, as a job in HTCondor may when its machine dies);
//   - no job ran twice at the same time;
//   - no job started again after a run of it had completed;
//   - nothing appeared that no submit asked for.
//
// A submit is acknowledged when kite submit exited 0 and named its
// cluster. A submit whose command failed is ambiguous, as in HTCondor: the
// schedd may have committed the cluster before the failure reached the
// client (the schedd was killed between its commit and its reply). Such a
// cluster may appear, but only whole, and it is then held to the same
// rules as every other job (it runs to completion exactly once). Every
// submit carries a unique tag (the job attribute ChaosTag), so each job in
// the queue or the history is traced to the submit that made it; a job
// whose tag no submit used, or an acknowledged tag under another cluster
// than the one acknowledged, is a violation.
//
// Check is the checker, Run drives the pool (Linux only: it reads /proc
// and adopts the pool's processes as a subreaper).
package chaos

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Submit is one kite submit the load ran.
type Submit struct {
	Tag     string // the unique ChaosTag every job of the submit carries
	Procs   int    // jobs it asked for
	Acked   bool   // kite submit exited 0 and named the cluster
	Cluster int64  // the acknowledged cluster (0 when not acknowledged)
	Err     string // why the command failed, when it did
}

// Job is a job kite q or kite history showed after the run.
type Job struct {
	Cluster, Proc int64
	Status        int    // JobStatus: 4 completed
	Tag           string // ChaosTag ("undefined" when absent)
	Completion    int64  // CompletionDate, Unix seconds (0 when not completed)
	History       bool   // from kite history, not the queue
}

// ID is the job's "cluster.proc".
func (j Job) ID() string { return fmt.Sprintf("%d.%d", j.Cluster, j.Proc) }

// completed is HTCondor's JobStatus of a completed job.
const completed = 4

// Report holds the run's figures and every violation found.
type Report struct {
	Seed                 int64
	Kills                map[string]int // SIGKILLs delivered, by kind
	UpFailures           int            // kite up runs that failed (retried)
	Submits, Acked       int            // submits run, acknowledged
	Failed, FailedLanded int            // submits failed; of those, clusters that landed anyway
	JobsAcked            int            // jobs of acknowledged submits
	Completed            int            // acknowledged jobs completed (history and run record)
	Runs                 int            // job starts recorded (restarts after kills included)
	Lost                 int            // acknowledged jobs not completed
	Duplicated           int            // jobs started again after a run of them completed (but see RerunAfterCrash)
	RerunAfterCrash      int            // jobs started again after a completed run whose outcome a whole-pool kill lost
	RerunUnseenExit      int            // jobs started again after a run whose exit the startd died before seeing
	Concurrent           int            // jobs that ran twice at the same time
	AfterCompletion      int            // jobs started after the schedd recorded their completion
	Unacknowledged       int            // jobs or runs no submit accounts for
	Drain                time.Duration  // from the last kill (or DrainFrom) to an empty queue
	DrainFrom            string         // what the drain is timed from when not the last kill
	Backlog              int            // jobs in the queue when the drain began (its first answer)
	Drained              bool           // the queue emptied within the bound
	Problems             []string       // one line per violation
	KillLog              []Kill         // every kill, in order: violations name the ones around them
}

// Kill is one SIGKILL of the run.
type Kill struct {
	At   time.Time
	Kind string
}

// lostBy returns the first kill of the execute side (the startd, or the
// master or the whole pool, which take the startd with them) between a
// job's completed run and its next start: the kill that lost the run's
// outcome before the schedd recorded it.
//
// Only a whole-pool kill excuses a rerun. It is a machine that crashes,
// and HTCondor too runs a job again when the machine dies between the
// job's exit and the schedd's record of it. A startd or a master killed
// alone is not: HTCondor's starter keeps a finished job's outcome until
// the shadow takes it, and outlives both.
//
// A kill takes a moment to land (the startd dies after the master, its
// jobs after it, and a whole-pool kill first lists the processes): a job
// may end just after the kill began, so kills up to inFlight before the
// end count.
func (r *Report) lostBy(end, again int64) (Kill, bool) {
	const inFlight = int64(500 * time.Millisecond)
	for _, k := range r.KillLog {
		at := k.At.UnixNano()
		if at >= end-inFlight && at <= again && (k.Kind == "startd" || k.Kind == "master" || k.Kind == "pool") {
			return k, true
		}
	}
	return Kill{}, false
}

// unseenExit is how long after a job's own record of its end its startd
// may need to see the process exit and keep the outcome (reap it, read its
// usage, write the result): a startd killed within it (or whose kill was
// already landing, inFlight) may not have seen the exit, and no daemon can
// know the job completed. Any scheduler runs such a job again, HTCondor's
// too; a startd killed later, having seen the exit, must not lose the
// outcome.
const unseenExit = 200 * time.Millisecond

// killsAround lists the kills from a little before from until to: the
// ones that may explain a violation seen between the two.
func (r *Report) killsAround(from, to int64) string {
	const before = 5 * time.Second
	var names []string
	for _, k := range r.KillLog {
		if at := k.At.UnixNano(); at >= from-int64(before) && at <= to {
			names = append(names, k.Kind+" "+k.At.UTC().Format(time.TimeOnly+".000"))
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// OK reports a run with no violation.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

func (r *Report) problem(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// String prints the figures, one per line, then the violations.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed                 %d\n", r.Seed)
	total := 0
	for _, k := range slices.Sorted(maps.Keys(r.Kills)) {
		fmt.Fprintf(&b, "kills %-14s %d\n", k, r.Kills[k])
		total += r.Kills[k]
	}
	fmt.Fprintf(&b, "kills total          %d\n", total)
	fmt.Fprintf(&b, "kite up failures     %d\n", r.UpFailures)
	fmt.Fprintf(&b, "submits              %d (acknowledged %d, failed %d, failed but landed %d)\n", r.Submits, r.Acked, r.Failed, r.FailedLanded)
	fmt.Fprintf(&b, "jobs acknowledged    %d\n", r.JobsAcked)
	fmt.Fprintf(&b, "jobs completed       %d\n", r.Completed)
	fmt.Fprintf(&b, "job starts recorded  %d\n", r.Runs)
	fmt.Fprintf(&b, "lost                 %d\n", r.Lost)
	fmt.Fprintf(&b, "duplicated           %d\n", r.Duplicated)
	fmt.Fprintf(&b, "rerun after crash    %d (allowed: the whole pool died before the schedd recorded the completion)\n", r.RerunAfterCrash)
	fmt.Fprintf(&b, "rerun unseen exit    %d (allowed: the startd died within %v of the job's exit, before it could see it)\n", r.RerunUnseenExit, unseenExit)
	fmt.Fprintf(&b, "concurrent           %d\n", r.Concurrent)
	fmt.Fprintf(&b, "after completion     %d\n", r.AfterCompletion)
	fmt.Fprintf(&b, "unacknowledged       %d\n", r.Unacknowledged)
	from := r.DrainFrom
	if from == "" {
		from = "the last kill"
	}
	fmt.Fprintf(&b, "queue when the drain began %d job(s)\n", r.Backlog)
	if r.Drained {
		fmt.Fprintf(&b, "queue drained        %v after %s\n", r.Drain.Round(100*time.Millisecond), from)
	} else {
		fmt.Fprintf(&b, "queue drained        not within %v after %s\n", r.Drain.Round(time.Second), from)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "VIOLATION: %s\n", p)
	}
	return b.String()
}

// A record is one line a job's script appended to the shared record file
// under its lock: "start ID PID NANOS", "end ID PID NANOS" or
// "overlap ID PID NANOS" (the run could not take the job's own lock:
// another run of the same job still held it). NANOS is the Unix time in
// nanoseconds.
type record struct {
	what, id, pid string
	at            int64
	line          int
}

// parseRecords reads the record file.
func parseRecords(r io.Reader) ([]record, error) {
	var recs []record
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || (f[0] != "start" && f[0] != "end" && f[0] != "overlap") {
			return nil, fmt.Errorf("run records line %d: want \"start|end|overlap ID PID NANOS\", got %q", n, sc.Text())
		}
		at, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("run records line %d: the time %q is not a number", n, f[3])
		}
		recs = append(recs, record{what: f[0], id: f[1], pid: f[2], at: at, line: n})
	}
	return recs, sc.Err()
}

// runs is what the records say of one job.
type runs struct {
	starts, ends, overlaps int
	firstEnd               int   // line of the first end record, 0 if none
	startAfterEnd          int   // line of a start after the first end, 0 if none
	firstEndAt, againAt    int64 // times of those two
	lastStart              int64 // time of the last start
}

// Check proves the run from the submits the load ran, the jobs kite q and
// kite history showed after the drain, and the jobs' run records. It fills
// the job figures of r and appends every violation to r.Problems.
func Check(r *Report, submits []Submit, jobs []Job, records io.Reader) error {
	recs, err := parseRecords(records)
	if err != nil {
		return err
	}
	byJob := map[string]*runs{}
	for _, rec := range recs {
		ru := byJob[rec.id]
		if ru == nil {
			ru = &runs{}
			byJob[rec.id] = ru
		}
		switch rec.what {
		case "start":
			r.Runs++
			ru.starts++
			ru.lastStart = rec.at
			if ru.firstEnd != 0 && ru.startAfterEnd == 0 {
				ru.startAfterEnd, ru.againAt = rec.line, rec.at
			}
		case "end":
			ru.ends++
			if ru.firstEnd == 0 {
				ru.firstEnd, ru.firstEndAt = rec.line, rec.at
			}
		case "overlap":
			ru.overlaps++
		}
	}
	seen := indexJobs(r, jobs)
	checkOrigins(r, submits, seen)
	checkAcked(r, submits, seen, byJob)
	for _, id := range slices.Sorted(maps.Keys(byJob)) {
		ru := byJob[id]
		if _, ok := seen[id]; !ok {
			r.Unacknowledged++
			r.problem("job %s ran (%d start(s)) but is in neither the queue nor the history", id, ru.starts)
		}
		if ru.startAfterEnd != 0 {
			k, ok := r.lostBy(ru.firstEndAt, ru.againAt)
			switch {
			case ok && k.Kind == "pool":
				r.RerunAfterCrash++
			case ok && k.At.UnixNano()-ru.firstEndAt < int64(unseenExit):
				r.RerunUnseenExit++
			case ok:
				r.Duplicated++
				r.problem("job %s started again (run records line %d) after a run of it completed (line %d): the %s kill at %s lost the outcome; %d run(s) completed; kills around: %s",
					id, ru.startAfterEnd, ru.firstEnd, k.Kind, k.At.UTC().Format(time.TimeOnly+".000"), ru.ends, r.killsAround(ru.firstEndAt, ru.againAt))
			default:
				r.Duplicated++
				r.problem("job %s started again (run records line %d) after a run of it completed (line %d), with no kill of the startd in between; %d run(s) completed; kills around: %s",
					id, ru.startAfterEnd, ru.firstEnd, ru.ends, r.killsAround(ru.firstEndAt, ru.againAt))
			}
		}
		if ru.overlaps > 0 {
			r.Concurrent++
			r.problem("job %s ran twice at the same time (%d overlapping run(s))", id, ru.overlaps)
		}
		// CompletionDate has whole seconds: a start in a later second
		// came after the schedd recorded the completion.
		if j, ok := seen[id]; ok && j.History && j.Completion > 0 && ru.lastStart >= (j.Completion+1)*int64(time.Second) {
			r.AfterCompletion++
			r.problem("job %s started at %s, after the schedd recorded its completion at %s", id,
				time.Unix(0, ru.lastStart).UTC().Format(time.TimeOnly+".000"), time.Unix(j.Completion, 0).UTC().Format(time.TimeOnly))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(seen)) {
		j := seen[id]
		if !j.History || j.Status != completed {
			r.problem("job %s (tag %s) did not complete: JobStatus %d, in the %s", id, j.Tag, j.Status, where(j))
		} else if byJob[id] == nil || byJob[id].ends == 0 {
			r.problem("job %s (tag %s) is completed in the history but no run of it completed", id, j.Tag)
		}
	}
	return nil
}

func where(j Job) string {
	if j.History {
		return "history"
	}
	return "queue"
}

// indexJobs maps the jobs by ID; a job seen in both the queue and the
// history (it left the queue between the two reads) counts as history. A
// job twice in the history is a violation.
func indexJobs(r *Report, jobs []Job) map[string]Job {
	seen := map[string]Job{}
	for _, j := range jobs {
		old, ok := seen[j.ID()]
		switch {
		case ok && old.History && j.History:
			r.Duplicated++
			r.problem("job %s is in the history twice", j.ID())
			continue
		case ok && old.History:
			continue
		}
		seen[j.ID()] = j
	}
	return seen
}

// checkOrigins traces every job to the submit that made it: an
// acknowledged submit's cluster, or a failed submit that landed whole.
func checkOrigins(r *Report, submits []Submit, seen map[string]Job) {
	byTag := map[string]Submit{}
	for _, s := range submits {
		byTag[s.Tag] = s
	}
	landed := map[string]map[int64]int64{} // failed submit's tag → proc → cluster
	for _, id := range slices.Sorted(maps.Keys(seen)) {
		j := seen[id]
		s, ok := byTag[j.Tag]
		switch {
		case !ok:
			r.Unacknowledged++
			r.problem("job %s has tag %q, which no submit used", id, j.Tag)
		case s.Acked && s.Cluster != j.Cluster:
			r.Unacknowledged++
			r.problem("job %s has tag %q, acknowledged as cluster %d", id, j.Tag, s.Cluster)
		case !s.Acked:
			if landed[s.Tag] == nil {
				landed[s.Tag] = map[int64]int64{}
			}
			landed[s.Tag][j.Proc] = j.Cluster
		}
	}
	for _, tag := range slices.Sorted(maps.Keys(landed)) {
		procs, s := landed[tag], byTag[tag]
		r.FailedLanded++
		clusters := map[int64]bool{}
		for _, c := range procs {
			clusters[c] = true
		}
		whole := len(procs) == s.Procs && len(clusters) == 1
		for p := range int64(s.Procs) {
			_, ok := procs[p]
			whole = whole && ok
		}
		if !whole {
			r.Unacknowledged++
			r.problem("failed submit %s (%d job(s), %s) landed in part: %d job(s) in %d cluster(s)", tag, s.Procs, s.Err, len(procs), len(clusters))
		}
	}
}

// checkAcked counts the acknowledged jobs that completed exactly once and
// the ones lost.
func checkAcked(r *Report, submits []Submit, seen map[string]Job, byJob map[string]*runs) {
	for _, s := range submits {
		r.Submits++
		if !s.Acked {
			r.Failed++
			continue
		}
		r.Acked++
		for p := range int64(s.Procs) {
			r.JobsAcked++
			id := fmt.Sprintf("%d.%d", s.Cluster, p)
			j, ok := seen[id]
			ru := byJob[id]
			switch {
			case !ok:
				r.Lost++
				r.problem("acknowledged job %s (submit %s) is in neither the queue nor the history", id, s.Tag)
			case !j.History || j.Status != completed || ru == nil || ru.ends == 0:
				r.Lost++ // the violation is named by Check's pass over the jobs
			default:
				r.Completed++
			}
		}
	}
}

// JobAttrs are the attributes ParseJobs reads, in order: kite q and kite
// history print them with -af.
var JobAttrs = []string{"ClusterId", "ProcId", "JobStatus", "ChaosTag", "CompletionDate"}

// ParseJobs reads the output of kite q or kite history with -af JobAttrs.
func ParseJobs(out string, history bool) ([]Job, error) {
	var jobs []Job
	for n, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != len(JobAttrs) {
			return nil, fmt.Errorf("line %d: want %q, got %q", n+1, strings.Join(JobAttrs, " "), line)
		}
		c, err1 := strconv.ParseInt(f[0], 10, 64)
		p, err2 := strconv.ParseInt(f[1], 10, 64)
		st, err3 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("line %d: want numbers for ClusterId ProcId JobStatus, got %q", n+1, line)
		}
		done, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil && f[4] != "undefined" {
			return nil, fmt.Errorf("line %d: want a number or undefined for CompletionDate, got %q", n+1, f[4])
		}
		jobs = append(jobs, Job{Cluster: c, Proc: p, Status: st, Tag: f[3], Completion: done, History: history})
	}
	return jobs, nil
}
