//go:build linux

package chaos

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Kinds are what a run kills: each daemon the master runs, the master
// alone, and the whole pool at once (the master, its daemons and their
// jobs, as a machine that loses power).
var Kinds = []string{"collector", "negotiator", "schedd", "startd", "master", "pool"}

// Config describes a run.
type Config struct {
	Kite       string           // the kite binary
	Dir        string           // the pool's directory (kite up --dir)
	Runs       string           // a directory every user may write: the jobs' records
	Seed       int64            // seeds every random choice
	Rounds     int              // each round kills every kind once, in random order
	Gap        [2]time.Duration // the pause before each kill: uniform in [Gap[0], Gap[1]]
	MinJobs    int              // the load goes on after the last round until this many jobs are acknowledged
	Submitters int              // concurrent submitters
	MaxProcs   int              // jobs per submit: 1 to MaxProcs
	Pause      [2]time.Duration // each submitter's pause between submits: uniform in [Pause[0], Pause[1]]
	JobTime    time.Duration    // each job's run time
	Slots      int              // static slots of the pool
	Drain      time.Duration    // how long the queue may take to empty after the last kill
	Logf       func(format string, args ...any)
}

// settings make the pool recover within seconds: the master restarts a
// daemon soon, daemons advertise often, and gossip notices a dead daemon
// within a second.
var settings = []string{
	"master.backoff_constant=200ms", "master.backoff_ceiling=2s",
	"negotiator.interval=1s", "startd.update_interval=2s", "schedd.update_interval=2s",
	"schedd.claim_lease=5s", "membership.probe_interval=200ms", "membership.probe_timeout=100ms",
}

// driver runs one chaos run.
type driver struct {
	cfg    Config
	rng    *rand.Rand
	report *Report
	reap   *reaper

	mu      sync.Mutex
	submits []Submit
	acked   int // jobs acknowledged
}

// Run starts the pool, runs the load and the kills, waits for the queue
// to drain and checks the result. It returns an error when the run itself
// could not be carried out (the pool never came up); the pool's
// violations are in the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	r, err := newReaper()
	if err != nil {
		return nil, err
	}
	defer r.stop()
	d := &driver{cfg: cfg, rng: rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6b697465)), reap: r,
		report: &Report{Seed: cfg.Seed, Kills: map[string]int{}}}
	for _, k := range Kinds {
		d.report.Kills[k] = 0
	}
	if err := os.WriteFile(filepath.Join(cfg.Runs, "job.sh"), []byte(jobScript), 0o755); err != nil {
		return nil, err
	}
	if err := d.up(ctx); err != nil {
		return nil, err
	}
	defer d.down()

	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range cfg.Submitters {
		wg.Go(func() { d.submitter(loadCtx, i) })
	}
	lastKill, err := d.kills(ctx)
	// The drain is timed from the last kill, or from the end of the load
	// when it went on after the kills to reach MinJobs.
	from := lastKill
	for err == nil && d.ackedJobs() < cfg.MinJobs && ctx.Err() == nil {
		time.Sleep(time.Second)
		from = time.Time{}
	}
	stopLoad()
	wg.Wait()
	if err != nil {
		return d.report, err
	}
	if from.IsZero() {
		from = time.Now()
		d.report.DrainFrom = "the last submit"
	}
	if err := d.drain(ctx, from); err != nil {
		return d.report, err
	}
	return d.report, d.check(ctx)
}

// problem records a violation; the submitters and the killer report
// concurrently.
func (d *driver) problem(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.report.problem(format, args...)
}

func (d *driver) ackedJobs() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.acked
}

// kite runs a kite command on the pool and returns its standard output,
// or an error with its standard error.
func (d *driver) kite(ctx context.Context, timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.cfg.Kite, args...)
	cmd.Env = append(os.Environ(), "KITE_HOME="+d.cfg.Dir)
	cmd.Dir = d.cfg.Runs
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := d.reap.run(cmd); err != nil {
		return out.String(), fmt.Errorf("kite %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// up runs kite up until the pool is ready, as a user would after a crash.
func (d *driver) up(ctx context.Context) error {
	args := []string{"up", "--dir", d.cfg.Dir, "--slots", strconv.Itoa(d.cfg.Slots), "--detach", "--timeout", "60s"}
	for _, s := range settings {
		args = append(args, "--set", s)
	}
	var err error
	for try := range 5 {
		if _, err = d.kite(ctx, 90*time.Second, args...); err == nil {
			return nil
		}
		d.report.UpFailures++
		d.problem("kite up failed (try %d): %v", try+1, err)
		d.cfg.Logf("kite up failed: %v", err)
		if pid, ok := d.masterPID(); ok {
			d.killPool(pid) // a master that never got ready: start afresh
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("the pool did not come up: %w", err)
}

// down stops the pool and whatever of it is left.
func (d *driver) down() {
	if _, err := d.kite(context.Background(), 3*time.Minute, "down", "--dir", d.cfg.Dir); err != nil {
		d.cfg.Logf("%v", err)
	}
	if pid, ok := d.masterPID(); ok {
		d.killPool(pid)
	}
}

// masterPID reads the master's pid file and reports a live master.
func (d *driver) masterPID() (int, bool) {
	b, err := os.ReadFile(filepath.Join(d.cfg.Dir, "master.pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	st, ok := procState(pid)
	return pid, ok && st != 'Z'
}

// kills runs the rounds of kills and returns the time of the last one.
func (d *driver) kills(ctx context.Context) (time.Time, error) {
	var last time.Time
	for round := range d.cfg.Rounds {
		order := slices.Clone(Kinds)
		d.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, kind := range order {
			gap := d.cfg.Gap[0] + time.Duration(d.rng.Int64N(int64(d.cfg.Gap[1]-d.cfg.Gap[0])+1))
			select {
			case <-ctx.Done():
				return last, ctx.Err()
			case <-time.After(gap):
			}
			at, err := d.kill(ctx, kind)
			if !at.IsZero() {
				last = at
				d.report.Kills[kind]++
				d.report.KillLog = append(d.report.KillLog, Kill{At: at, Kind: kind})
				d.cfg.Logf("%s round %d: killed the %s", at.UTC().Format(time.TimeOnly+".000"), round+1, kind)
			}
			if err != nil {
				return last, fmt.Errorf("round %d, killing the %s: %w", round+1, kind, err)
			}
		}
	}
	return last, nil
}

// kill SIGKILLs one kind and returns when; after the master or the whole
// pool it runs kite up again.
func (d *driver) kill(ctx context.Context, kind string) (time.Time, error) {
	master, ok := d.waitMaster(ctx)
	if !ok {
		return time.Time{}, errors.New("no master is running")
	}
	switch kind {
	case "master":
		at := time.Now()
		syscall.Kill(master, syscall.SIGKILL)
		d.reap.wait(master)
		return at, d.up(ctx)
	case "pool":
		at := time.Now()
		d.killPool(master)
		return at, d.up(ctx)
	}
	pid, err := d.waitDaemon(ctx, master, kind)
	if err != nil {
		return time.Time{}, err
	}
	return time.Now(), syscall.Kill(pid, syscall.SIGKILL)
}

func (d *driver) waitMaster(ctx context.Context) (int, bool) {
	for range 100 {
		if pid, ok := d.masterPID(); ok {
			return pid, true
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0, false
}

// waitDaemon finds the daemon the master runs, waiting while the master
// restarts it after an earlier kill. A daemon that does not come back in
// a minute is a violation.
func (d *driver) waitDaemon(ctx context.Context, master int, kind string) (int, error) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		for _, p := range children(master) {
			if args := cmdline(p); len(args) > 1 && args[1] == kind {
				if st, ok := procState(p); ok && st != 'Z' {
					return p, nil
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	d.problem("the master (pid %d) did not run the %s again within a minute", master, kind)
	return 0, fmt.Errorf("the %s did not come back", kind)
}

// killPool SIGKILLs the master and every process below it at once.
func (d *driver) killPool(master int) {
	pids := append([]int{master}, descendants(master)...)
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
	d.reap.wait(master)
}

// submitter submits small clusters until the context ends, recording
// each submit's outcome.
func (d *driver) submitter(ctx context.Context, n int) {
	rng := rand.New(rand.NewPCG(uint64(d.cfg.Seed), uint64(n+1)))
	file := filepath.Join(d.cfg.Runs, fmt.Sprintf("submit%d.sub", n))
	for k := 0; ctx.Err() == nil; k++ {
		s := Submit{Tag: fmt.Sprintf("s%d-%d", n, k), Procs: 1 + rng.IntN(d.cfg.MaxProcs)}
		text := fmt.Sprintf("executable = /bin/sh\ntransfer_executable = false\n"+
			"arguments = \"%s/job.sh %s $(Cluster).$(Process) %.3f\"\n+ChaosTag = \"%s\"\nqueue %d\n",
			d.cfg.Runs, d.cfg.Runs, d.cfg.JobTime.Seconds(), s.Tag, s.Procs)
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			d.cfg.Logf("%v", err)
			return
		}
		// The submit is not cancelled with the load: it ends by itself,
		// so that its outcome is known.
		out, err := d.kite(context.Background(), time.Minute, "submit", file)
		if err == nil {
			m := submitted.FindStringSubmatch(out)
			if m == nil {
				err = fmt.Errorf("kite submit printed no cluster: %q", out)
			} else {
				s.Acked = true
				s.Cluster, _ = strconv.ParseInt(m[2], 10, 64)
				if got, _ := strconv.Atoi(m[1]); got != s.Procs {
					d.problem("submit %s asked for %d job(s), kite submit says %d", s.Tag, s.Procs, got)
				}
			}
		}
		if err != nil {
			s.Err = err.Error()
		}
		d.mu.Lock()
		d.submits = append(d.submits, s)
		if s.Acked {
			d.acked += s.Procs
		}
		d.mu.Unlock()
		time.Sleep(d.cfg.Pause[0] + time.Duration(rng.Int64N(int64(d.cfg.Pause[1]-d.cfg.Pause[0])+1)))
	}
}

var submitted = regexp.MustCompile(`(\d+) job\(s\) submitted to cluster (\d+)\.`)

// drain waits until the queue is empty, timing it from the given moment.
func (d *driver) drain(ctx context.Context, lastKill time.Time) error {
	deadline := lastKill.Add(d.cfg.Drain)
	counted := false
	for {
		out, err := d.kite(ctx, 30*time.Second, "q", "-af", "ClusterId")
		if !counted && err == nil {
			d.report.Backlog, counted = len(strings.Fields(out)), true
		}
		if err == nil && strings.TrimSpace(out) == "" {
			d.report.Drained = true
			d.report.Drain = time.Since(lastKill)
			return nil
		}
		if time.Now().After(deadline) {
			d.report.Drain = time.Since(lastKill)
			n := len(strings.Fields(out))
			d.report.problem("the queue did not drain within %v of the last kill: %d job(s) left (%v)", d.cfg.Drain, n, err)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// check reads the queue, the history and the records and runs Check.
func (d *driver) check(ctx context.Context) error {
	q, err := d.kite(ctx, time.Minute, append([]string{"q", "-af"}, JobAttrs...)...)
	if err != nil {
		return err
	}
	h, err := d.kite(ctx, 2*time.Minute, append([]string{"history", "-af"}, JobAttrs...)...)
	if err != nil {
		return err
	}
	qjobs, err := ParseJobs(q, false)
	if err != nil {
		return fmt.Errorf("kite q: %w", err)
	}
	hjobs, err := ParseJobs(h, true)
	if err != nil {
		return fmt.Errorf("kite history: %w", err)
	}
	f, err := os.Open(filepath.Join(d.cfg.Runs, "records"))
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.Open(os.DevNull)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	d.scanLogs()
	return Check(d.report, d.submits, append(hjobs, qjobs...), f)
}

// crashMarks are what the Go runtime writes to a daemon's standard error,
// which the master sends to the daemon's log: a daemon never panics, and
// a race-detector build of the pool reports its races there.
var crashMarks = []string{"panic: ", "fatal error: ", "WARNING: DATA RACE"}

// scanLogs reports every daemon log that holds a crash mark.
func (d *driver) scanLogs() {
	logs, _ := filepath.Glob(filepath.Join(d.cfg.Dir, "state", "log", "*.log"))
	for _, name := range logs {
		b, err := os.ReadFile(name)
		if err != nil {
			d.problem("reading a daemon log: %v", err)
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if i := slices.IndexFunc(crashMarks, func(m string) bool { return strings.HasPrefix(line, m) }); i >= 0 {
				d.problem("%s: %s", name, line)
				break
			}
		}
	}
}

// jobScript is each job: it holds the job's own lock for the whole run (a
// second run of the same job at the same time cannot take it and records
// an overlap) and appends its start and end to the shared record file
// under that file's lock. Children it starts do not inherit the job's
// lock, so a run killed with its startd releases it at once.
const jobScript = `#!/bin/sh
# job.sh RUNS ID SECONDS: one run of a chaos job.
runs=$1 id=$2
rec() { ( flock 8 && echo "$1 $id $$ $(date +%s%N)" >&8 ) 8>>"$runs/records" 9>&-; }
exec 9>>"$runs/$id.lock"
flock -n 9 || rec overlap
rec start
sleep "$3" 9>&-
rec end
`

// procState returns a process's state letter from /proc (Z: a zombie).
func procState(pid int) (byte, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, false
	}
	return b[i+2], true
}

// parentOf returns a process's parent from /proc.
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

func cmdline(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// allPIDs lists the processes in /proc.
func allPIDs() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, p)
		}
	}
	return pids
}

func children(pid int) []int {
	var out []int
	for _, p := range allPIDs() {
		if parentOf(p) == pid {
			out = append(out, p)
		}
	}
	return out
}

// descendants lists every process below pid, parents before children.
func descendants(pid int) []int {
	parent := map[int]int{}
	for _, p := range allPIDs() {
		parent[p] = parentOf(p)
	}
	var out []int
	depth := map[int]int{}
	for p := range parent {
		d := 1
		for a := parent[p]; a > 1; a, d = parent[a], d+1 {
			if a == pid {
				out = append(out, p)
				depth[p] = d
				break
			}
		}
	}
	// Parents first: a machine that dies takes its processes at once, so
	// a startd must never outlive its jobs long enough to see them die by
	// the kill (it would report them exited by signal 9, as it must for a
	// job killed by anything else).
	slices.SortFunc(out, func(a, b int) int { return cmp.Compare(depth[a], depth[b]) })
	return out
}

// reaper makes this process the pool's subreaper: the master kite up
// leaves behind, and the daemons and jobs of a killed master, become its
// children, so a killed master is reaped at once (as an init would) and
// nothing of the pool outlives the run. It reaps only the processes it
// adopted, never those os/exec started and waits for.
type reaper struct {
	mu    sync.RWMutex // held for writing while reaping; for reading while starting a command
	ownMu sync.Mutex
	own   map[int]bool // pids os/exec waits for
	done  chan struct{}
}

const prSetChildSubreaper = 36

func newReaper() (*reaper, error) {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return nil, fmt.Errorf("becoming a subreaper: %v", e)
	}
	r := &reaper{own: map[int]bool{}, done: make(chan struct{})}
	go func() {
		for {
			select {
			case <-r.done:
				return
			case <-time.After(200 * time.Millisecond):
				r.reapAdopted()
			}
		}
	}()
	return r, nil
}

// run starts a command and waits for it; the reaper leaves it alone.
func (r *reaper) run(cmd *exec.Cmd) error {
	r.mu.RLock()
	err := cmd.Start()
	if err == nil {
		r.ownMu.Lock()
		r.own[cmd.Process.Pid] = true
		r.ownMu.Unlock()
	}
	r.mu.RUnlock()
	if err != nil {
		return err
	}
	err = cmd.Wait()
	r.ownMu.Lock()
	delete(r.own, cmd.Process.Pid)
	r.ownMu.Unlock()
	return err
}

// reapAdopted reaps the adopted children that have exited.
func (r *reaper) reapAdopted() {
	r.mu.Lock()
	defer r.mu.Unlock()
	self := os.Getpid()
	for _, p := range allPIDs() {
		if parentOf(p) != self {
			continue
		}
		r.ownMu.Lock()
		mine := r.own[p]
		r.ownMu.Unlock()
		if st, ok := procState(p); ok && st == 'Z' && !mine {
			var ws syscall.WaitStatus
			syscall.Wait4(p, &ws, syscall.WNOHANG, nil)
		}
	}
}

// wait waits until an adopted process is gone (reaped here or by its
// parent).
func (r *reaper) wait(pid int) {
	for range 200 {
		if st, ok := procState(pid); !ok {
			return
		} else if st == 'Z' {
			r.reapAdopted()
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// stop ends the reaper after killing and reaping what it adopted.
func (r *reaper) stop() {
	for _, p := range descendants(os.Getpid()) {
		r.ownMu.Lock()
		mine := r.own[p]
		r.ownMu.Unlock()
		if !mine {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	time.Sleep(100 * time.Millisecond)
	r.reapAdopted()
	close(r.done)
}
