// Package replicated keeps the accountant (internal/fairshare) in a Raft
// group (hashicorp/raft): the negotiators of several central managers
// apply the same usage updates and administrators' edits in the same
// order, so that whichever of them the group elects next holds the
// whole fair-share history. The leader alone runs negotiation cycles; a
// change is acknowledged once a majority has it in its log on disk.
package replicated

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/kite-sched/kite/internal/fairshare"
)

// The operations of the log.
const (
	opUpdate   = "update"   // a cycle's usage: who holds what slot weight
	opFactor   = "factor"   // condor_userprio -setfactor
	opPriority = "priority" // condor_userprio -setprio
	opReset    = "reset"    // condor_userprio -resetusage
	opLeader   = "leader"   // a new leader's negotiator address
	opImport   = "import"   // the accounts of a negotiator's file, into an empty group
)

// command is one entry of the log.
type command struct {
	Op    string             `json:"op"`
	Now   time.Time          `json:"now,omitzero"`
	InUse map[string]float64 `json:"in_use,omitempty"`
	User  string             `json:"user,omitempty"`
	Value float64            `json:"value,omitempty"`
	ID    string             `json:"id,omitempty"`    // opLeader: the Raft id
	Addr  string             `json:"addr,omitempty"`  // opLeader: its negotiator
	Users []fairshare.Usage  `json:"users,omitempty"` // opImport
}

// result is what applying a command returns to the leader that proposed
// it.
type result struct {
	usage fairshare.Usage
	err   error
}

// fsm is the accountant as Raft's state machine.
type fsm struct {
	acct *fairshare.Accountant

	mu    sync.Mutex
	addrs map[string]string // Raft id → negotiator address, announced by each leader
}

// Apply applies one committed entry, on every member in the same order.
func (f *fsm) Apply(l *raft.Log) any {
	var c command
	if err := json.Unmarshal(l.Data, &c); err != nil {
		return result{err: fmt.Errorf("log entry %d: %w", l.Index, err)}
	}
	return f.apply(c)
}

func (f *fsm) apply(c command) result {
	var r result
	switch c.Op {
	case opUpdate:
		r.err = f.acct.Update(c.Now, c.InUse)
	case opFactor:
		r.usage, r.err = f.acct.SetFactor(c.User, c.Value)
	case opPriority:
		r.usage, r.err = f.acct.SetPriority(c.User, c.Value, c.Now)
	case opReset:
		r.usage, r.err = f.acct.ResetUsage(c.User, c.Now)
	case opLeader:
		f.mu.Lock()
		f.addrs[c.ID] = c.Addr
		f.mu.Unlock()
	case opImport:
		// Every member holds the same accounts at this entry, so each
		// decides alike: only an empty accountant takes the file's.
		if len(f.acct.State()) == 0 {
			r.err = f.acct.Replace(c.Users)
		}
	default:
		r.err = fmt.Errorf("unknown operation %q in the log", c.Op)
	}
	return r
}

// addrOf returns the negotiator address the member id announced.
func (f *fsm) addrOf(id string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.addrs[id]
}

// state is a snapshot: every account, and the members' addresses.
type state struct {
	Users       []fairshare.Usage `json:"users"`
	Negotiators map[string]string `json:"negotiators"`
}

// Snapshot captures the whole state; Raft never calls it during an Apply.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	st := state{Users: f.acct.State(), Negotiators: maps.Clone(f.addrs)}
	f.mu.Unlock()
	data, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("accountant snapshot: %w", err)
	}
	return snapshot(data), nil
}

// Restore replaces the state with a snapshot's.
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	var st state
	if err := json.NewDecoder(rc).Decode(&st); err != nil {
		return fmt.Errorf("accountant snapshot: %w", err)
	}
	if err := f.acct.Replace(st.Users); err != nil {
		return err
	}
	f.mu.Lock()
	f.addrs = st.Negotiators
	if f.addrs == nil {
		f.addrs = map[string]string{}
	}
	f.mu.Unlock()
	return nil
}

// snapshot is a captured state, written out by Persist.
type snapshot []byte

func (s snapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s); err != nil {
		sink.Cancel()
		return fmt.Errorf("writing the accountant snapshot: %w", err)
	}
	return sink.Close()
}

func (s snapshot) Release() {}
