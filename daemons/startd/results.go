package startd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
// not its host. A host that crashes loses its jobs'
// results, as HTCondor's execute hosts do.

// result is a job's last event on its way to its schedd.
type result struct {
	Schedd string         `json:"schedd"`
	Update wire.JobUpdate `json:"update"`
}

// orphanResult is a result found at start: its claim is gone with the
// startd that made it, and keep-alives of it are answered until the
// schedd has the event or stops asking.
type orphanResult struct {
	job     string
	expires time.Time
}

// resultsDir is where results are kept; "" keeps none.
func (s *Server) resultsDir() string {
	if s.cfg.StateDir == "" {
		return ""
	}
	return filepath.Join(s.cfg.StateDir, "results")
}

// resultPath names a job's result file after its claim and job.
func (s *Server) resultPath(u *wire.JobUpdate) string {
	sum := sha256.Sum256([]byte(u.ClaimID + "\x00" + u.Job))
	return filepath.Join(s.resultsDir(), hex.EncodeToString(sum[:12])+".json")
}

// keepResult writes a job's last event before it is reported.
func (s *Server) keepResult(schedd string, u wire.JobUpdate) {
	dir := s.resultsDir()
	if dir == "" {
		return
	}
	err := writeResult(dir, s.resultPath(&u), result{Schedd: schedd, Update: u})
	if err != nil {
		s.log.Warn("a job's result is not kept: a startd restarted before it is reported will not report it",
			"job", u.Job, "err", err)
	}
}

func writeResult(dir, path string, r result) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	// Written in place, not renamed: a write a kill cuts short leaves a
	// file that does not decode, which the next start drops, as if the
	// result had not been kept at all.
	err = os.WriteFile(path, data, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o700); err == nil {
			err = os.WriteFile(path, data, 0o600)
		}
	}
	return err
}

// keptResult keeps one job's last event: as soon as the starter knows it,
// and again before the report only if the report's differs (the job's
// start folded into it). The starter calls it from one goroutine.
type keptResult struct {
	s      *Server
	schedd string
	last   *wire.JobUpdate
}

func (k *keptResult) keep(u wire.JobUpdate) {
	if k.last != nil && *k.last == u {
		return
	}
	k.s.keepResult(k.schedd, u)
	k.last = &u
}

// forgetResult removes a job's result once its schedd has it (or refused
// it, or could not be reached for the report's whole patience).
func (s *Server) forgetResult(u wire.JobUpdate) {
	if s.resultsDir() == "" {
		return
	}
	if err := os.Remove(s.resultPath(&u)); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.log.Warn("a reported job's result is not removed", "job", u.Job, "err", err)
	}
}

// loadResults reads the results a killed startd left, to report them.
func (s *Server) loadResults() ([]result, error) {
	dir := s.resultsDir()
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("results left by the last run: %w", err)
	}
	var out []result
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		var r result
		data, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &r)
		}
		if err != nil || r.Update.ClaimID == "" || r.Update.Job == "" {
			s.log.Warn("an unreadable job result is dropped", "file", path, "err", err)
			os.Remove(path)
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// reportLeftResults reports, in the background, the results a killed
// startd left; meanwhile keep-alives of their claims name their jobs.
func (s *Server) reportLeftResults(ctx context.Context) error {
	left, err := s.loadResults()
	if err != nil || len(left) == 0 {
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
	sc := &scheddClient{s: s, addr: r.Schedd, claim: r.Update.ClaimID, job: r.Update.Job, hc: s.files}
	for {
		err := sc.report(ctx, r.Update)
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
