package schedd

import (
	"errors"
	"io"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/wire"
)

// exprLimits are the bounds on the expressions of users' requests.
func (s *Server) exprLimits() wire.ExprLimits {
	return wire.ExprLimits{Limits: s.cfg.Expr, Section: "schedd"}
}

// readChunk is how much of a submit's body is read at a time: the jobs
// are counted as they come, so that a submit of too many is refused
// after reading a little more than the jobs allowed, not all of it.
const readChunk = 1 << 20

// readSubmit reads a submit's body, a JSON array of the cluster ad and
// its jobs' ads, and cuts it into its ads. A body with more jobs than
// max_jobs_per_submission is refused as soon as the one too many starts.
func (s *Server) readSubmit(r *wire.Request) ([][]byte, error) {
	limit := s.cfg.MaxJobsPerSubmission
	n := r.HTTP.ContentLength
	if n <= 0 || n > s.cfg.MaxBodyBytes {
		n = readChunk
	}
	buf := make([]byte, 0, n+1) // +1: the read that finds the end
	var count itemCounter
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		got, err := r.HTTP.Body.Read(buf[len(buf):min(cap(buf), len(buf)+readChunk)])
		count.scan(buf[len(buf) : len(buf)+got])
		buf = buf[:len(buf)+got]
		if count.items-1 > limit {
			return nil, tooManyJobs(limit)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, r.BodyError(err)
		}
	}
	raws, err := splitArray(buf)
	if err != nil {
		return nil, wire.BadRequest("submit: %v", err)
	}
	if len(raws)-1 > limit {
		return nil, tooManyJobs(limit)
	}
	return raws, nil
}

func tooManyJobs(limit int) error {
	return wire.BadRequest("submit: more than %d jobs in one submit (the limit is schedd.max_jobs_per_submission, HTCondor's MAX_JOBS_PER_SUBMISSION)", limit)
}

// itemCounter counts the objects that open at the top level of a JSON
// array, reading it a piece at a time. It knows only strings, escapes and
// nesting; splitArray and the parser check the rest.
type itemCounter struct {
	depth    int
	inString bool
	escaped  bool
	items    int
}

func (c *itemCounter) scan(b []byte) {
	for _, ch := range b {
		switch {
		case c.escaped:
			c.escaped = false
		case c.inString:
			c.escaped = ch == '\\'
			c.inString = ch != '"'
		case ch == '"':
			c.inString = true
		case ch == '[' || ch == '{':
			if c.depth++; c.depth == 2 && ch == '{' {
				c.items++
			}
		case ch == ']' || ch == '}':
			c.depth--
		}
	}
}

// checkOwnerJobs refuses a submit that would give its owner more jobs in
// the queue than max_jobs_per_owner.
func (s *Server) checkOwnerJobs(tx *queue.Tx, owner string, jobs int) error {
	per, _ := tx.Reader().Counts()
	have, limit := per[owner].Total(), s.cfg.MaxJobsPerOwner
	if have+jobs > limit {
		return wire.Forbidden("submit: %s has %d jobs in the queue; %d more would pass %d (the limit is schedd.max_jobs_per_owner, HTCondor's MAX_JOBS_PER_OWNER)",
			owner, have, jobs, limit)
	}
	return nil
}
