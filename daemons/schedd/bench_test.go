package schedd

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// clusterAd is a cluster ad as internal/submit makes one for a plain
// submit file.
const clusterAd = `[ Args = "60"; Cmd = "/bin/sleep"; DiskUsage = 20; Environment = ""; Err = "/dev/null";
	ExecutableSize = 20; FileSystemDomain = "example.org"; ImageSize = 20; In = "/dev/null"; Iwd = "/home/alice/sub";
	JobNotification = 0; JobPrio = 0; JobStatus = 1; JobUniverse = 5; LeaveJobInQueue = false; OnExitHold = false;
	OnExitRemove = true; Owner = "alice"; PeriodicHold = false; PeriodicRelease = false; PeriodicRemove = false;
	PeriodicVacate = false; Rank = 0.0; RequestCpus = 2; RequestDisk = MAX({ 1024,(TransferInputSizeMB + 1) * 1.25 }) * 1024;
	RequestMemory = 1024; Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && ((TARGET.FileSystemDomain == MY.FileSystemDomain) || (TARGET.HasFileTransfer));
	ShouldTransferFiles = "IF_NEEDED"; TransferErr = false; TransferIn = false; TransferInputSizeMB = 0; TransferOut = false;
	WhenToTransferOutput = "ON_EXIT"; UserLog = "/home/alice/sub/job.log"; Project = "bench"; QDate = 1790000000;
	User = "alice@example.org"; MyType = "Job"; TargetType = "Machine"; EnteredCurrentStatus = 1790000000 ]`

// fillQueue writes clusters of per jobs each into a new queue at path.
func fillQueue(b *testing.B, path string, clusters, per int) {
	b.Helper()
	q, err := queue.Open(path, queue.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	for range clusters {
		id, err := q.NewCluster("alice")
		if err != nil {
			b.Fatal(err)
		}
		ad, _ := classad.Parse(clusterAd)
		ad.Set("ClusterId", mustParse(fmt.Sprintf("[x=%d]", id)).Expr(0))
		procs := make([]*classad.Ad, per)
		raws := make([][]byte, per)
		for p := range per {
			procs[p] = mustParse(fmt.Sprintf(`[ ProcId = %d; Args = "60 %d"; Out = "out.%d"; Err = "err.%d" ]`, p, p, p, p))
			raws[p] = classad.AppendJSON(nil, procs[p], false)
		}
		if err := q.Update(func(tx *queue.Tx) error { _, err := tx.Submit(id, "alice", ad, procs, raws); return err }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestart1M is a schedd restart with 1 000 000 jobs in its
// queue: from New to serving, the queue read back and the running jobs
// recovered.
func BenchmarkRestart1M(b *testing.B) {
	cfg := testConfig(b)
	fillQueue(b, QueuePath(cfg.Spool), 10, 100_000)
	runtime.GC() // the filling's garbage is not the restart's
	p := pooltest.New(b)
	b.ReportAllocs()
	for b.Loop() {
		s, err := New(p.Env("schedd"), cfg)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		t0 := time.Now()
		go func() { done <- s.Run(ctx) }()
		select {
		case <-s.Ready():
		case err := <-done:
			b.Fatal(err)
		}
		b.StopTimer()
		b.Logf("restart: %v", time.Since(t0))
		var n int
		s.q.Read(func(r *queue.Reader) { _, all := r.Counts(); n = all.Total() })
		if n != 1_000_000 {
			b.Fatalf("%d jobs after the restart", n)
		}
		cancel()
		<-done
		s = nil
		runtime.GC()
		b.StartTimer()
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/restart")
}

// BenchmarkTurnover runs jobs on 8 claimed slots of a fake startd that
// ends each job as soon as it starts: the schedd's side of a job's life
// (claim reuse, the running, started and exited commits, the event log),
// durably, as jobs per second.
func BenchmarkTurnover(b *testing.B) {
	turnover(b, func(daemon *wire.Client, claim, job string) {
		ctx := context.Background()
		daemon.Call(ctx, "POST", wire.PathJobUpdate, wire.JobUpdate{ClaimID: claim, Job: job, Event: wire.EventStarted}, nil)
		daemon.Call(ctx, "POST", wire.PathJobUpdate, wire.JobUpdate{ClaimID: claim, Job: job, Event: wire.EventExited, WallSeconds: 1}, nil)
	})
}

// BenchmarkTurnoverHandOff is BenchmarkTurnover as the startd reports a
// short job: one report per job, its start folded into its exit
// (JobUpdate.StartedAt), and the claim's next job taken from the answer
// (JobUpdate.TakesNext, handoff.go): one commit and one round trip per job.
func BenchmarkTurnoverHandOff(b *testing.B) {
	turnover(b, func(daemon *wire.Client, claim, job string) {
		for job != "" {
			u := wire.JobUpdate{ClaimID: claim, Job: job, Event: wire.EventExited, WallSeconds: 1,
				StartedAt: time.Now().Unix(), TakesNext: true}
			var res wire.JobUpdateResult
			if err := daemon.Call(context.Background(), "POST", wire.PathJobUpdate, u, &res); err != nil {
				b.Error(err)
				return
			}
			if job = jobIDOf(res.Next); job != "" {
				claim = res.Next.ClaimID
			}
		}
	})
}

// BenchmarkTurnoverBatched is BenchmarkTurnoverHandOff as a startd with
// many slots reports: the ends that come while an exchange is in flight go
// together in the next (wire.PathJobUpdates), and one commit takes them.
func BenchmarkTurnoverBatched(b *testing.B) {
	type end struct {
		u   wire.JobUpdate
		out chan wire.JobUpdateOutcome
	}
	ends := make(chan end, 8)
	b.Cleanup(func() { close(ends) })
	var sent, batches atomic.Int64
	go func() {
		for e := range ends {
			batch := []end{e}
			for more := true; more; {
				select {
				case e, ok := <-ends:
					if !ok {
						return
					}
					batch = append(batch, e)
				default:
					more = false
				}
			}
			req := wire.JobUpdates{}
			for _, e := range batch {
				req.Updates = append(req.Updates, e.u)
			}
			var res wire.JobUpdatesResult
			if err := batchClient.Load().Call(context.Background(), "POST", wire.PathJobUpdates, req, &res); err != nil || len(res.Results) != len(batch) {
				b.Errorf("batch of %d: %d outcomes, %v", len(batch), len(res.Results), err)
				res.Results = make([]wire.JobUpdateOutcome, len(batch))
			}
			sent.Add(int64(len(batch)))
			batches.Add(1)
			for i, e := range batch {
				e.out <- res.Results[i]
			}
		}
	}()
	turnover(b, func(daemon *wire.Client, claim, job string) {
		batchClient.Store(daemon)
		out := make(chan wire.JobUpdateOutcome, 1)
		for job != "" {
			ends <- end{u: wire.JobUpdate{ClaimID: claim, Job: job, Event: wire.EventExited, WallSeconds: 1,
				StartedAt: time.Now().Unix(), TakesNext: true}, out: out}
			o := <-out
			if err := o.Err(); err != nil {
				b.Error(err)
				return
			}
			if job = jobIDOf(o.Next); job != "" {
				claim = o.Next.ClaimID
			}
		}
	})
	b.ReportMetric(float64(sent.Load())/float64(max(batches.Load(), 1)), "ends/request")
}

// batchClient is BenchmarkTurnoverBatched's client of the schedd, once
// the first activation brings it.
var batchClient atomic.Pointer[wire.Client]

// turnover runs batches of 2000 jobs on 8 claims of a fake startd whose
// activations call run.
func turnover(b *testing.B, run func(daemon *wire.Client, claim, job string)) {
	const slots, jobs = 8, 2000
	p := pooltest.New(b)
	startd := newFakeStartd(b, p)
	h := startSchedd(b, p, testConfig(b))
	daemon := h.client("startd@node", auth.Daemon)
	startd.run = func(claim, job string) { run(daemon, claim, job) }
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		h.mustSubmit("alice", dir, fmt.Sprintf("executable = /bin/true\nlog = job.log\nqueue %d\n", jobs))
		var reqs wire.ResourceRequests
		if err := h.daemonCall(wire.PathResourceRequests, wire.RequestsQuery{Submitter: "alice@test.org"}, &reqs); err != nil {
			b.Fatal(err)
		}
		var ms []wire.Match
		for range slots {
			ms = append(ms, wire.Match{Request: reqs.Requests[0].ID, Slot: startd.slot})
		}
		if err := h.daemonCall(wire.PathMatches, wire.Matches{Submitter: "alice@test.org", Matches: ms}, nil); err != nil {
			b.Fatal(err)
		}
		for {
			var n int
			h.s.q.Read(func(r *queue.Reader) { _, all := r.Counts(); n = all.Total() })
			if n == 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	txs, changes := h.s.q.Stats()
	b.ReportMetric(float64(changes)/float64(txs), "changes/commit")
	b.ReportMetric(float64(jobs*b.N)/b.Elapsed().Seconds(), "jobs/s")
}
