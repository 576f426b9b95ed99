package startd

import (
	"os"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/starter"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/runas"
)

// Whom a job runs as (HTCondor's manual, "User Accounts in HTCondor on
// Unix Platforms"): a startd that is not root runs every job as itself.
// A root startd runs a job as its owner when run_as_owner allows it, the
// job does not ask otherwise (RunAsOwner = false), the job's UidDomain
// (which its schedd sets) is the slot's, and the job's account (OsUser)
// exists here and is not root; any other job runs as the slot's user.
// Never as root.

// jobUser returns the account a job runs as on a slot (nil: as the
// startd).
func (s *Server) jobUser(st *slotState, machine, job *classad.Ad) *starter.User {
	if u := s.ownerOf(st, machine, job); u != nil {
		return u
	}
	return st.user
}

// ownerOf returns the job's own account, if the job may run as it here.
func (s *Server) ownerOf(st *slotState, machine, job *classad.Ad) *starter.User {
	if !s.cfg.RunAsOwner || os.Geteuid() != 0 {
		return nil
	}
	if b, ok := classad.EvalBool(job, attr.RunAsOwner); ok && !b {
		return nil
	}
	domain, _ := classad.EvalString(job, attr.UIDDomain)
	mine, _ := classad.EvalString(machine, attr.UIDDomain)
	name, _ := classad.EvalString(job, attr.OsUser)
	if domain == "" || name == "" || !strings.EqualFold(domain, mine) {
		return nil
	}
	a, err := runas.Lookup(name)
	if err != nil || a.Root() {
		if err != nil {
			s.log.Info("job runs as the slot user", "slot", st.name, "owner", name, "reason", err)
		}
		return nil
	}
	return &starter.User{Name: a.Name, UID: int(a.UID), GID: int(a.GID), Groups: a.Groups, Owner: true}
}
