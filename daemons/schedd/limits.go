package schedd

import (
	"errors"

	"github.com/kite-sched/kite/daemons/schedd/adarray"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/wire"
)

// exprLimits are the bounds on the expressions of users' requests.
func (s *Server) exprLimits() wire.ExprLimits {
	return wire.ExprLimits{Limits: s.cfg.Expr, Section: "schedd"}
}

// readSubmit reads a submit's body, a JSON array of the cluster ad and
// its jobs' ads, and cuts it into its ads. A body with more jobs than
// max_jobs_per_submission is refused as soon as the one too many starts.
func (s *Server) readSubmit(r *wire.Request) ([][]byte, error) {
	limit := s.cfg.MaxJobsPerSubmission
	buf, err := adarray.Read(r.HTTP.Body, r.HTTP.ContentLength, s.cfg.MaxBodyBytes, limit+1)
	switch {
	case errors.Is(err, adarray.ErrTooMany):
		return nil, tooManyJobs(limit)
	case err != nil:
		return nil, r.BodyError(err)
	}
	raws, err := adarray.Split(buf)
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
