package schedd

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/transfer"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/userlog"
	"github.com/kite-sched/kite/internal/wire"
)

// The scheduler and local universes (manual: "Choosing an HTCondor
// Universe"): jobs the schedd runs on its own host, at once, with no
// match. They never go to the negotiator. A job may start when the
// schedd's START expression of its universe (StartLocalUniverse,
// StartSchedulerUniverse: by default fewer than 200 local and 500
// scheduler universe jobs running, HTCondor's defaults) and the job's
// Requirements both hold, each evaluated against the schedd's ad with
// the host's Arch, OpSys, Memory, Disk and Cpus in it, as HTCondor's
// schedd does. The job runs as its owner (localproc.go), never as root,
// in its Iwd, with no sandbox and no file transfer: its files are on this
// host already. Hold and remove kill its processes; a schedd that stops
// kills them too, and at its next start the job goes back to idle (an
// evicted event) and runs again, as HTCondor's schedd starts its local
// and scheduler universe jobs again after a restart.

// Defaults of the START expressions (HTCondor's START_LOCAL_UNIVERSE and
// START_SCHEDULER_UNIVERSE).
const (
	DefaultStartLocalUniverse     = "TotalLocalJobsRunning < 200"
	DefaultStartSchedulerUniverse = "TotalSchedulerJobsRunning < 500"
)

// localJobs are the running jobs of the schedd's own universes.
type localJobs struct {
	startLocal, startScheduler *classad.Program
	wake                       chan struct{}

	mu    sync.Mutex
	procs map[queue.JobID]*localProc
	// maybe is false once a walk of the queue found no job of these
	// universes and none was submitted since (gen counts submits): a poke
	// then costs nothing in a queue without them, and the periodic walk
	// still looks.
	maybe bool
	gen   uint64
}

// newLocalJobs compiles the START expressions ("" takes the defaults).
func newLocalJobs(local, scheduler string) (*localJobs, error) {
	l := &localJobs{wake: make(chan struct{}, 1), procs: map[queue.JobID]*localProc{}, maybe: true}
	var err error
	if l.startLocal, err = classad.Compile(cmp.Or(local, DefaultStartLocalUniverse)); err != nil {
		return nil, fmt.Errorf("start_local_universe: %w", err)
	}
	if l.startScheduler, err = classad.Compile(cmp.Or(scheduler, DefaultStartSchedulerUniverse)); err != nil {
		return nil, fmt.Errorf("start_scheduler_universe: %w", err)
	}
	return l, nil
}

// runsOnSchedd reports whether a universe is one the schedd runs itself.
func runsOnSchedd(universe int64) bool {
	return universe == attr.UniverseLocal || universe == attr.UniverseScheduler
}

// clusterOnSchedd reports whether a cluster's jobs are ones the schedd
// runs itself: they are never offered to the negotiator nor put on a
// claim. The universe is the cluster's (condor_submit sets it in the
// cluster ad; the schedd refuses a proc's own).
func clusterOnSchedd(c *queue.Cluster) bool {
	return runsOnSchedd(clusterUniverse(c))
}

// onSchedd reports whether a queued job is one the schedd runs itself, by
// its cluster's universe.
func onSchedd(v *queue.View) bool {
	return runsOnSchedd(classad.EvalIntOr(v.Cluster, attr.JobUniverse, attr.UniverseVanilla))
}

// clusterUniverse is a cluster's JobUniverse.
func clusterUniverse(c *queue.Cluster) int64 {
	return classad.EvalIntOr(c.Ad(), attr.JobUniverse, attr.UniverseVanilla)
}

// submitted notes that a cluster of these universes is being submitted.
func (l *localJobs) submitted() {
	l.mu.Lock()
	l.gen++
	l.maybe = true
	l.mu.Unlock()
}

// walkFrom returns whether a walk is worth its cost (always when periodic)
// and the submit generation it starts from.
func (l *localJobs) walkFrom(periodic bool) (bool, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return periodic || l.maybe || len(l.procs) > 0, l.gen
}

// found records a walk's outcome: none found and nothing submitted since
// it began lets pokes skip the walk.
func (l *localJobs) found(any bool, gen uint64) {
	l.mu.Lock()
	if !any && l.gen == gen {
		l.maybe = false
	}
	l.mu.Unlock()
}

// poke asks the loop to look for jobs to start soon.
func (l *localJobs) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// running reports whether the schedd runs a job's process.
func (l *localJobs) running(id queue.JobID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.procs[id] != nil
}

// counts returns how many jobs of each universe run.
func (l *localJobs) counts() (local, scheduler int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.procs {
		if p.universe == attr.UniverseLocal {
			local++
		} else {
			scheduler++
		}
	}
	return local, scheduler
}

// localLoop starts the idle jobs of the schedd's universes as their START
// expressions allow: when poked (a submit, a release, a job's end) and
// every few seconds (an expression may read the time). When ctx ends, it
// kills the jobs' processes.
func (s *Server) localLoop(ctx context.Context) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	defer s.local.killAll()
	periodic := true
	for {
		s.startLocalJobs(ctx, periodic)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			periodic = true
		case <-s.local.wake:
			periodic = false
		}
	}
}

// idleLocal is an idle job of the schedd's universes with its ad.
type idleLocal struct {
	id       queue.JobID
	universe int64
	ad       *classad.Ad
	account  string // the owner's account, as for the job's files
}

// startLocalJobs starts each idle job of the schedd's universes that may
// start now, oldest cluster first. A poke (not periodic) skips the walk
// while the queue is known to hold none.
func (s *Server) startLocalJobs(ctx context.Context, periodic bool) {
	walk, gen := s.local.walkFrom(periodic)
	if !walk {
		return
	}
	var idle []idleLocal
	any := false
	s.q.Read(func(r *queue.Reader) {
		for c := range r.Clusters {
			u := clusterUniverse(c)
			if !runsOnSchedd(u) {
				continue
			}
			any = true
			for j := range c.Jobs {
				if j.Status() != attr.Idle {
					continue
				}
				if !s.local.running(j.ID) {
					v := j.View()
					idle = append(idle, idleLocal{id: j.ID, universe: u, ad: v.Ad(), account: transfer.Account(&v)})
				}
			}
		}
	})
	s.local.found(any, gen)
	if len(idle) == 0 {
		return
	}
	host := s.localHostAd()
	for _, job := range idle {
		if ctx.Err() != nil {
			return
		}
		if !s.mayStartLocal(host, job) {
			continue
		}
		s.startLocal(ctx, job)
	}
}

// mayStartLocal evaluates the universe's START expression and the job's
// Requirements against the schedd's ad with the current counts.
func (s *Server) mayStartLocal(host *classad.Ad, job idleLocal) bool {
	local, scheduler := s.local.counts()
	host.Set(attr.TotalLocalJobsRunning, ast.Int(int64(local)))
	host.Set(attr.TotalSchedulerJobsRunning, ast.Int(int64(scheduler)))
	start := s.local.startLocal
	if job.universe == attr.UniverseScheduler {
		start = s.local.startScheduler
	}
	if v, err := classad.Eval(start, host, job.ad); err != nil || !isTrue(v) {
		return false
	}
	if _, ok := job.ad.Lookup(attr.Requirements); !ok {
		return true
	}
	v, err := classad.EvalAttr(job.ad, attr.Requirements, host)
	return err == nil && isTrue(v)
}

func isTrue(v classad.Value) bool {
	b, ok := v.BoolValue()
	return ok && b
}

// localHostAd is the schedd's ad as its own universes' jobs see it: the
// schedd's attributes, the START expressions, the idle and running counts
// of both universes, and this host's Arch, OpSys, Memory (MiB), Disk
// (KiB free in the spool's file system) and Cpus.
func (s *Server) localHostAd() *classad.Ad {
	var all queue.Counts
	var idleLocal, idleScheduler int64
	s.q.Read(func(r *queue.Reader) {
		_, all = r.Counts()
		for c := range r.Clusters {
			u := clusterUniverse(c)
			if !runsOnSchedd(u) {
				continue
			}
			for j := range c.Jobs {
				switch {
				case j.Status() != attr.Idle:
				case u == attr.UniverseLocal:
					idleLocal++
				default:
					idleScheduler++
				}
			}
		}
	})
	ad := s.scheddAd(0, all)
	h := hostFacts(s.cfg.Spool)
	ad.Set(attr.Arch, ast.Str(h.arch))
	ad.Set(attr.OpSys, ast.Str(h.opsys))
	ad.Set(attr.Memory, ast.Int(h.memoryMB))
	ad.Set(attr.Disk, ast.Int(h.diskKB))
	ad.Set(attr.Cpus, ast.Int(h.cpus))
	local, scheduler := s.local.counts()
	ad.Set(attr.TotalLocalJobsRunning, ast.Int(int64(local)))
	ad.Set(attr.TotalSchedulerJobsRunning, ast.Int(int64(scheduler)))
	ad.Set(attr.TotalLocalJobsIdle, ast.Int(idleLocal))
	ad.Set(attr.TotalSchedulerJobsIdle, ast.Int(idleScheduler))
	ad.Set(attr.StartLocalUniverse, s.local.startLocal.Expr())
	ad.Set(attr.StartSchedulerUniverse, s.local.startScheduler.Expr())
	return ad
}

// startLocal marks a job running (an execute event), then starts its
// process; a job whose process cannot start is held (code 6, as
// HTCondor's starter holds a job it cannot start).
func (s *Server) startLocal(ctx context.Context, job idleLocal) {
	p := &localProc{universe: job.universe}
	s.local.mu.Lock()
	s.local.procs[job.id] = p
	s.local.mu.Unlock()
	now := s.now()
	started := false
	err := s.q.Update(func(tx *queue.Tx) error {
		j := tx.Job(job.id)
		if j == nil || tx.Status(j) != attr.Idle {
			return nil
		}
		ev := s.newEvents()
		setStatus(tx, j, attr.Running, now)
		tx.SetInt(j, attr.JobCurrentStartDate, now.Unix())
		v := tx.View(j)
		if _, ok := v.Lookup(attr.JobStartDate); !ok {
			tx.SetInt(j, attr.JobStartDate, now.Unix())
		}
		tx.SetInt(j, attr.NumJobStarts, v.Int(attr.NumJobStarts, 0)+1)
		runStarted(tx, j, now)
		v = tx.View(j)
		ev.add(&v, userlog.Event{Code: userlog.Execute, Time: now, Host: "<" + s.Addr() + ">"})
		ev.after(tx)
		started = true
		return nil
	})
	if err != nil || !started {
		s.local.forget(job.id)
		if err != nil {
			s.log.Warn("a local universe job not started: the queue cannot be written", "job", job.id.String(), "err", err)
		}
		return
	}
	s.kickAds()
	if err := s.spawnLocal(ctx, job, p, now); err != nil {
		s.local.forget(job.id)
		s.holdLocal(job.id, err)
	}
}

// forget drops a job's process record.
func (l *localJobs) forget(id queue.JobID) {
	l.mu.Lock()
	delete(l.procs, id)
	l.mu.Unlock()
}

// holdLocal holds a running job of the schedd's universes whose process
// could not start.
func (s *Server) holdLocal(id queue.JobID, why error) {
	err := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
		s.hold(tx, j, "Error from the schedd: "+why.Error(), attr.HoldStartingJob, 0, ev)
	})
	if err != nil {
		s.log.Error("holding a local universe job that did not start", "job", id.String(), "err", err)
	}
	s.kickAds()
}

// localEnded records the end of a job's process: its exit and usage, then
// the job's on-exit policy, as for a job that ran at a startd. A job
// the schedd stopped itself (hold, remove, shutdown) is left as those
// left it.
func (s *Server) localEnded(id queue.JobID, u *wire.JobUpdate, at time.Time) {
	err := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, ev *eventBatch) {
		addUsage(tx, j, u)
		s.exited(tx, j, u, at, ev)
	})
	if err != nil {
		s.log.Error("recording the end of a local universe job", "job", id.String(), "err", err)
	}
	s.kickAds()
}

// stopLocal is called in a transaction that takes a job out of Running
// (hold, remove): once it commits, the job's processes are killed.
func (s *Server) stopLocal(tx *queue.Tx, j *queue.Job) {
	s.local.mu.Lock()
	p := s.local.procs[j.ID]
	s.local.mu.Unlock()
	if p == nil {
		return
	}
	tx.AfterCommit(p.stop)
}
