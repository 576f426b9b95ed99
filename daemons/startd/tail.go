package startd

import (
	"context"
	"errors"
	"io/fs"

	"github.com/kite-sched/kite/daemons/startd/sandbox"
	"github.com/kite-sched/kite/daemons/startd/starter"
	"github.com/kite-sched/kite/internal/wire"
)

// handleClaimFile reads a range of a file of the job a claim runs, for
// its schedd (condor_tail): the schedd has checked who asks; the startd
// holds the claim's secret as the proof that the schedd runs the job here,
// and the starter reads the file as the job's user inside its sandbox.
func (s *Server) handleClaimFile(ctx context.Context, r *wire.Request) (any, error) {
	var req wire.ClaimFile
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	if err := req.Check(); err != nil {
		return nil, wire.BadRequest("read %s: %v", req.What(), err)
	}
	run, err := s.claimedRun(req.ClaimID, "read "+req.What())
	if err != nil {
		return nil, err
	}
	chunk, err := run.ReadFile(req.FileRange)
	if err != nil {
		return nil, fileError(req.FileRange, err)
	}
	return chunk, nil
}

// claimedRun returns the job a claim runs, for a request doing what.
func (s *Server) claimedRun(claimID, what string) (*starter.Starter, error) {
	s.mu.Lock()
	st, err := s.claimed(claimID)
	var run *starter.Starter
	if err == nil {
		run = st.claim.run
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if run == nil {
		return nil, wire.Conflict("%s: the claim runs no job now", what)
	}
	return run, nil
}

// fileError turns a failed read into the wire error the tool shows.
func fileError(r wire.FileRange, err error) error {
	var escape *sandbox.EscapeError
	switch {
	case errors.As(err, &escape):
		return wire.Forbidden("%v", err)
	case errors.Is(err, fs.ErrNotExist):
		return wire.NotFound("read %s: the job has no such file (yet)", r.What())
	case errors.Is(err, fs.ErrPermission):
		return wire.Forbidden("read %s: %v", r.What(), err)
	}
	return wire.Conflict("read %s: %v", r.What(), err)
}
