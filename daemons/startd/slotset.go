package startd

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/startd/sandbox"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/daemons/startd/starter"
	"github.com/kite-sched/kite/internal/sita"
)

// slotState is a slot with what the startd keeps about it: its claim id,
// its claim, and for a partitionable slot its dynamic slots.
type slotState struct {
	*slots.Slot
	name    string // the full name: slot1@host, slot1_2@host
	claimID string // the secret a schedd must show to claim the slot
	// preemptID is what a claimed slot's ad shows as its ClaimId: the
	// secret that lets another schedd preempt the claim, never the
	// claim's own id.
	preemptID string
	claim     *claim // nil when unclaimed
	dynamic   []*slotState
	user      *starter.User
	// sitaAttrs and sitaReq are what SITA-E adds to the slot's ad.
	sitaAttrs []sita.Attribute
	// requirements is the slot's Requirements while it takes matches.
	requirements ast.Expr
	// lits are the literals of the slot's ad (ads.go), under the lock.
	lits lits
	// activated is the slot's ad as of its last activation, scratch the
	// ad the next one is built in, and adLen how many attributes the
	// slot's last ad had (ads.go).
	activated, scratch *classad.Ad
	adLen              int
	// adText is its text as its last job's sandbox got it.
	adText starter.AdText
}

// claim is a schedd's hold on a slot.
type claim struct {
	id         string
	schedd     string // host:port for job updates and files
	pool       string // the schedd's pool when another pool's (from its token)
	scheddName string
	lease      time.Duration
	expires    time.Time
	job        *classad.Ad // the job claimed for, then the one running
	jobID      string
	run        *starter.Starter
	// reporting is the job whose last event is on its way to the
	// schedd: keep-alives still name it, so that a restarted schedd
	// reconnects to it and takes the event.
	reporting string
	activated time.Time
	// retireUntil is when a retiring job is vacated (zero: not retiring;
	// the far future: it may finish).
	retireUntil time.Time
	// ending says why the claim ends once its job is gone; "" keeps it.
	ending string
	// bySchedd: the schedd vacated the job or released the claim, for
	// its own reasons (node monitoring does not count the job aborted).
	bySchedd bool
	// gone is closed when the claim is over and its slot freed: a
	// preempting claim waits on it.
	gone chan struct{}
	// spare is the sandbox the claim's last job parked for its next
	// (starter.Config.Recycle); removed with the claim.
	spare *sandbox.Dir
}

// newClaimID returns a fresh claim id: 32 random bytes in hex.
func newClaimID() string {
	var b [32]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sameSecret compares claim ids in constant time.
func sameSecret(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// all returns every slot: each static or partitionable slot followed by
// its dynamic slots.
func (s *Server) all() []*slotState {
	var out []*slotState
	for _, st := range s.slots {
		out = append(out, st)
		out = append(out, st.dynamic...)
	}
	return out
}

// byName finds a static or partitionable slot by its full name.
func (s *Server) byName(name string) *slotState {
	for _, st := range s.slots {
		if st.name == name {
			return st
		}
	}
	return nil
}

// byClaim finds the slot a claim id holds.
func (s *Server) byClaim(id string) *slotState {
	for _, st := range s.all() {
		if st.claim != nil && sameSecret(st.claim.id, id) {
			return st
		}
	}
	return nil
}

// apply makes an event happen to a slot now and notes the change for
// the collector. A refused event is a bug in the startd's bookkeeping:
// it is logged, and nothing changes.
func (s *Server) apply(st *slotState, e slots.Event) bool {
	if err := st.Apply(e, s.now()); err != nil {
		s.log.Error("slot transition refused", "slot", st.name, "err", err)
		return false
	}
	s.log.Debug("slot", "slot", st.name, "event", e.String(), "now", st.Status().String())
	s.changed()
	return true
}

// changed wakes the advertiser.
func (s *Server) changed() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
