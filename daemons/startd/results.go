package startd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kite-sched/kite/internal/wire"
)

// A job's last event (its exit, hold or failure) is kept in the startd's
// state directory from just before it is reported until its schedd has
// it. A startd killed meanwhile finds it when it starts again: it answers
// keep-alives of the job's claim naming the job, as the claim's startd
// would, so that the schedd (restarted or not) keeps the job running
// rather than run it again, and it reports the event until the schedd
// takes it. Without this a job that ended while its schedd was away ran a
// second time when its startd died too (the chaos test found it).
//
// The record is written, not synced: it outlives the startd's process,
// not its host. A host that crashes loses its jobs' results, as HTCondor's
// execute hosts do.

// resultsDir is where results are kept; "" keeps none.
func (s *Server) resultsDir() string {
	if s.cfg.StateDir == "" {
		return ""
	}
	return s.cfg.StateDir
}

// result is a job's last event on its way to its schedd.
type result struct {
	Schedd string `json:"schedd"`
	// Pool is the schedd's pool when another pool's (claim.pool).
	Pool   string         `json:"pool,omitempty"`
	Update wire.JobUpdate `json:"update"`
}

// orphanResult is a result found at start: its claim is gone with the
// startd that made it, and keep-alives of it are answered until the
// schedd has the event or stops asking.
type orphanResult struct {
	job     string
	expires time.Time
}

// resultLog is the startd's record of results on their way: one file of
// JSON lines, appended to (a result kept, a result forgotten), each line
// one write. A start reads it back (a line a kill cut short is ignored)
// and writes it anew with the results still pending; the file is written
// anew too once it has grown with lines of results long forgotten.
type resultLog struct {
	mu      sync.Mutex
	path    string
	f       *os.File
	size    int64
	pending map[resultKey]result
	buf     []byte // the line being written, kept for the next
}

// resultKey names a result: its claim and job.
type resultKey struct{ claim, job string }

// resultLine is one line of the log: a result kept, or forgotten.
type resultLine struct {
	Keep  *result `json:"keep,omitempty"`
	Claim string  `json:"forget_claim,omitempty"` // a result forgotten: its claim and job
	Job   string  `json:"forget_job,omitempty"`
}

// resultsFile is the log's name in the state directory.
const resultsFile = "results.log"

// compactAt is the size past which the log is written anew.
const compactAt = 1 << 20

// openResults reads the log a previous run left and opens it anew; it
// returns the results still pending. dir "" keeps no log.
func openResults(dir string) (*resultLog, []result, error) {
	if dir == "" {
		return nil, nil, nil
	}
	l := &resultLog{path: filepath.Join(dir, resultsFile), pending: map[resultKey]result{}}
	data, err := os.ReadFile(l.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("results left by the last run: %w", err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var rl resultLine
		if len(line) == 0 || json.Unmarshal(line, &rl) != nil {
			continue // a line a kill cut short
		}
		switch {
		case rl.Keep != nil && rl.Keep.Update.ClaimID != "" && rl.Keep.Update.Job != "":
			l.pending[resultKey{rl.Keep.Update.ClaimID, rl.Keep.Update.Job}] = *rl.Keep
		case rl.Claim != "":
			delete(l.pending, resultKey{rl.Claim, rl.Job})
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	if err := l.rewrite(); err != nil {
		return nil, nil, err
	}
	left := make([]result, 0, len(l.pending))
	for _, r := range l.pending {
		left = append(left, r)
	}
	return l, left, nil
}

// rewrite writes the pending results to a new file that replaces the log,
// and appends to it from then on (the lock is held, or not yet shared).
func (l *resultLog) rewrite() error {
	var buf []byte
	for _, r := range l.pending {
		var err error
		if buf, err = appendResultLine(buf, resultLine{Keep: &r}); err != nil {
			return err
		}
		buf = append(buf, '\n')
	}
	tmp := l.path + ".new"
	if err := os.WriteFile(tmp, buf, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, l.path); err != nil {
		return err
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if l.f != nil {
		l.f.Close()
	}
	l.f, l.size = f, int64(len(buf))
	return nil
}

// add appends one line (the lock is held).
func (l *resultLog) add(rl resultLine) error {
	line, err := appendResultLine(l.buf[:0], rl)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if cap(line) <= 64<<10 { // a huge line's buffer is left to the garbage collector
		l.buf = line
	}
	n, err := l.f.Write(line)
	l.size += int64(n)
	return err
}

// keep records a result on its way.
func (l *resultLog) keep(r result) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending[resultKey{r.Update.ClaimID, r.Update.Job}] = r
	return l.add(resultLine{Keep: &r})
}

// forget records that a result reached its schedd (or never will).
func (l *resultLog) forget(claim, job string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := resultKey{claim, job}
	if _, ok := l.pending[k]; !ok {
		return nil
	}
	delete(l.pending, k)
	if err := l.add(resultLine{Claim: claim, Job: job}); err != nil {
		return err
	}
	if l.size > compactAt {
		return l.rewrite()
	}
	return nil
}

// keepResult records a job's last event before it is reported.
func (s *Server) keepResult(schedd, pool string, u wire.JobUpdate) {
	if s.results == nil {
		return
	}
	if err := s.results.keep(result{Schedd: schedd, Pool: pool, Update: u}); err != nil {
		s.log.Warn("a job's result is not kept: a startd restarted before it is reported will not report it",
			"job", u.Job, "err", err)
	}
}

// keptResult keeps one job's last event: as soon as the starter knows it,
// and again before the report only if the report's differs (the job's
// start folded into it). The starter calls it from one goroutine.
type keptResult struct {
	s            *Server
	schedd, pool string
	last         *wire.JobUpdate
}

func (k *keptResult) keep(u wire.JobUpdate) {
	if k.last != nil && *k.last == u {
		return
	}
	k.s.keepResult(k.schedd, k.pool, u)
	k.last = &u
}

// forgetResult forgets a job's result once its schedd has it (or refused
// it, or could not be reached for the report's whole patience).
func (s *Server) forgetResult(u wire.JobUpdate) {
	if s.results == nil {
		return
	}
	if err := s.results.forget(u.ClaimID, u.Job); err != nil {
		s.log.Warn("a reported job's result is not forgotten", "job", u.Job, "err", err)
	}
}

// reportLeftResults reports, in the background, the results a killed
// startd left; meanwhile keep-alives of their claims name their jobs.
func (s *Server) reportLeftResults(ctx context.Context) error {
	var left []result
	var err error
	if s.results, left, err = openResults(s.resultsDir()); err != nil || len(left) == 0 {
		return err
	}
	s.mu.Lock()
	if s.orphans == nil {
		s.orphans = map[string]*orphanResult{}
	}
	for _, r := range left {
		s.orphans[r.Update.ClaimID] = &orphanResult{job: r.Update.Job, expires: s.now().Add(s.cfg.ClaimLease)}
	}
	s.mu.Unlock()
	s.log.Info("reporting the results of jobs that ended before the startd stopped", "jobs", len(left))
	for _, r := range left {
		go s.reportLeft(ctx, r) // ends with ctx at shutdown: the file stays for the next start
	}
	return nil
}

// reportLeft reports one left result until the schedd takes it, refuses
// it, or lets the claim's lease run out without a keep-alive.
func (s *Server) reportLeft(ctx context.Context, r result) {
	sc := &scheddClient{s: s, addr: r.Schedd, pool: r.Pool, claim: r.Update.ClaimID, job: r.Update.Job, hc: s.files}
	for {
		err := sc.report(ctx, r.Update, nil)
		var we *wire.Error
		if err == nil || errors.As(err, &we) && we.Status < 500 || ctx.Err() != nil || !s.orphanAlive(r.Update.ClaimID) {
			break
		}
	}
	s.mu.Lock()
	delete(s.orphans, r.Update.ClaimID)
	s.mu.Unlock()
	if ctx.Err() == nil && !s.crashed.Load() {
		s.forgetResult(r.Update)
	}
}

// orphanAlive reports whether an orphan result's claim is still kept
// alive by its schedd.
func (s *Server) orphanAlive(claim string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.orphans[claim]
	return o != nil && s.now().Before(o.expires)
}

// orphanKeepAlive answers a keep-alive of an orphan result's claim (the
// lock is held): the job it names is the one whose event is on its way.
func (s *Server) orphanKeepAlive(claim string) (wire.AliveResult, bool) {
	o := s.orphans[claim]
	if o == nil {
		return wire.AliveResult{}, false
	}
	o.expires = s.now().Add(s.cfg.ClaimLease)
	return wire.AliveResult{Lease: int(s.cfg.ClaimLease / time.Second), Job: o.job}, true
}

// pendingResults counts the results on their way to their schedds.
func (s *Server) pendingResults() int {
	if s.results == nil {
		return 0
	}
	s.results.mu.Lock()
	defer s.results.mu.Unlock()
	return len(s.results.pending)
}
