package schedd

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// tailTimeout bounds the schedd's read at the startd for a tool.
const tailTimeout = 10 * time.Second

// handleTail reads a range of a running job's file for its owner or an
// administrator (condor_tail): the schedd checks who asks and that the
// job runs, then asks the startd that runs it with the job's claim, which
// only the schedd holds. A named file must be one the job sends back
// (its transfer_output_files), as HTCondor's condor_tail asks.
func (s *Server) handleTail(ctx context.Context, r *wire.Request) (any, error) {
	var req wire.TailRequest
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	id, err := queue.ParseJobID(req.Job)
	if err != nil {
		return nil, wire.BadRequest("tail: %v", err)
	}
	if err := req.Check(); err != nil {
		return nil, wire.BadRequest("tail %s: %v", id, err)
	}
	v, found := s.view(id)
	if !found {
		return nil, wire.NotFound("tail: job %s is not in the queue", id)
	}
	if !mayChange(r.Caller, v.Owner) {
		return nil, wire.Forbidden("tail: job %s is %s's: only its owner or an administrator may read its files", id, v.Owner)
	}
	if v.Status != attr.Running {
		return nil, wire.Conflict("tail: job %s is not running (its status is %s)", id, attr.StatusLetter(v.Status))
	}
	if req.Name != "" && !listedOutput(&v, req.Name) {
		return nil, wire.Forbidden("tail %s: file %q is not in the job's transfer_output_files", id, req.Name)
	}
	c, started := s.claims.First(id)
	if c == nil || !started {
		return nil, wire.Conflict("tail: job %s has not started its process yet", id)
	}
	tctx, cancel := context.WithTimeout(ctx, tailTimeout)
	defer cancel()
	var chunk wire.FileChunk
	err = s.startd(c).Call(tctx, "POST", wire.PathClaimFile, wire.ClaimFile{ClaimID: c.ID, FileRange: req.FileRange}, &chunk)
	var we *wire.Error
	switch {
	case err == nil:
		return chunk, nil
	case errors.As(err, &we) && we.Code != wire.CodeInternal:
		return nil, &wire.Error{Status: we.Status, Code: we.Code, Message: fmt.Sprintf("tail %s on %s: %s", id, c.SlotName, we.Message)}
	}
	return nil, wire.Unavailable("tail %s: %s, which runs it, did not answer: %v", id, c.SlotName, err)
}

// listedOutput reports whether the job names file among the files it
// sends back.
func listedOutput(v *queue.View, file string) bool {
	want := path.Clean(file)
	list := strings.FieldsFunc(v.String(attr.TransferOutput), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	return slices.ContainsFunc(list, func(n string) bool { return path.Clean(n) == want })
}
