package negotiator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/raft"

	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/fairshare"
	"github.com/kite-sched/kite/internal/fairshare/replicated"
	"github.com/kite-sched/kite/internal/wire"
)

// Negotiators on several central managers ([negotiator.raft]) form a Raft
// group (internal/fairshare/replicated): the leader runs the cycles and
// commits the accountant's changes through the group's log; the others
// apply them, answer priority queries from their copy, and pass
// administrators' edits on to the leader.

// RaftConfig is the negotiator's place in a Raft group.
type RaftConfig struct {
	Bind  string   // this member's Raft host:port and id; "": no group
	Peers []string // every member's, Bind included
	Dir   string   // the log and snapshots
}

// raftConfigFrom takes [negotiator.raft], the directory resolved.
func raftConfigFrom(c *config.Config) RaftConfig {
	r := c.Negotiator.Raft
	dir := r.Dir
	if dir == "" {
		dir = filepath.Join(c.Pool.StateDir, "negotiator", "raft")
	}
	return RaftConfig{Bind: r.Bind, Peers: r.Peers, Dir: c.Path(dir)}
}

// openAccountant opens the accountant: in its file, or, in a Raft group,
// in memory with the group's log as its store.
func openAccountant(env *daemon.Env, cfg Config) (*fairshare.Accountant, *replicated.Group, error) {
	if cfg.Raft.Bind == "" {
		acct, err := fairshare.OpenAccountant(cfg.Accountant, cfg.HalfLife, cfg.DefaultFactor)
		return acct, nil, err
	}
	acct := fairshare.NewAccountant(cfg.HalfLife, cfg.DefaultFactor)
	acct.SetFlush(0)
	g, err := replicated.Open(acct, replicated.Config{
		Bind: cfg.Raft.Bind, Peers: cfg.Raft.Peers, Dir: cfg.Raft.Dir,
		Verifier: env.Verifier, Token: env.Token, ServerTLS: env.ServerTLS, ClientTLS: env.ClientTLS,
		Timeout: cfg.Timeout, Log: env.Log.With("component", "raft"),
	})
	if err != nil {
		return nil, nil, err
	}
	return acct, g, nil
}

// leads says whether this negotiator runs cycles: it is alone, or it
// leads its group.
func (s *Server) leads() bool { return s.group == nil || s.group.IsLeader() }

// leadership returns the channel that hears this negotiator win or lose
// its group's leadership (nil, which never fires, without a group).
func (s *Server) leadership() <-chan bool {
	if s.group == nil {
		return nil
	}
	return s.group.Leading()
}

// leaderChanges hears that the group's leader changed, for the
// negotiator ad to say so at once (nil, which never fires, without a
// group).
func (s *Server) leaderChanges() <-chan raft.Observation {
	if s.group == nil {
		return nil
	}
	return s.group.LeaderChanges()
}

// onLeadership handles a change of leadership: a new leader applies the
// whole log, tells the group where it serves, and negotiates at once.
func (s *Server) onLeadership(ctx context.Context, won bool) {
	if !won || !s.group.IsLeader() {
		s.log.Info("no longer the leading negotiator")
		return
	}
	if err := s.group.TakeOver(s.Addr()); err != nil {
		s.log.Warn("taking over as the leading negotiator", "err", err)
		return
	}
	s.log.Info("leading the negotiators' Raft group", "raft", s.group.ID())
	if err := s.importAccountant(); err != nil {
		s.log.Warn("importing the accountant's file into the Raft group", "file", s.cfg.Accountant, "err", err)
	}
	s.Reschedule()
}

// importAccountant gives a group whose accountant is empty the accounts
// of this central manager's accountant file, from the time it ran alone,
// so that turning Raft on keeps the fair-share history.
func (s *Server) importAccountant() error {
	if len(s.acct.State()) > 0 {
		return nil
	}
	if _, err := os.Stat(s.cfg.Accountant); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	old, err := fairshare.OpenAccountant(s.cfg.Accountant, s.cfg.HalfLife, s.cfg.DefaultFactor)
	if err != nil {
		return err
	}
	users := old.State()
	if err := old.Close(); err != nil {
		return err
	}
	if len(users) == 0 {
		return nil
	}
	if err := s.group.Import(users); err != nil {
		return err
	}
	s.log.Info("imported the accountant's file into the Raft group", "file", s.cfg.Accountant, "users", len(users))
	return nil
}

// updateUsage brings the accountant to now: through the group's log in a
// group, where a failure ends the cycle (the negotiator may no longer
// lead), else in the accountant's file, where a full disk does not.
func (s *Server) updateUsage(now time.Time, inUse map[string]float64) error {
	if s.group != nil {
		if err := s.group.Update(now, inUse); err != nil {
			return fmt.Errorf("replicating usage: %w", err)
		}
		return nil
	}
	if err := s.acct.Update(now, inUse); err != nil {
		s.log.Error("accountant not written; negotiating on, it is written once the disk has room", "err", err)
	}
	return nil
}

// edit applies an administrator's change to the accountant: through the
// group's leader in a group (a follower passes the request on, with the
// caller's own token, and answers with the leader's answer).
func (s *Server) edit(ctx context.Context, r *wire.Request, path string, in any,
	local func() (fairshare.Usage, error), replicatedEdit func(*replicated.Group) (fairshare.Usage, error)) (any, error) {
	var u fairshare.Usage
	var err error
	switch {
	case s.group == nil:
		u, err = local()
	case s.group.IsLeader():
		u, err = replicatedEdit(s.group)
	default:
		return s.forward(ctx, r, path, in)
	}
	switch {
	case errors.Is(err, fairshare.ErrNoUser):
		return nil, wire.NotFound("%v", err)
	case errors.Is(err, replicated.ErrNotLeader):
		return nil, wire.Unavailable("%v; ask again once the group has elected a leader", err)
	case err != nil:
		return nil, wire.Unavailable("the accountant cannot commit the change: %v", err)
	}
	return wirePriority(u), nil
}

// forward passes a request to the group's leader with the caller's token.
func (s *Server) forward(ctx context.Context, r *wire.Request, path string, in any) (any, error) {
	id, addr := s.group.Leader()
	if addr == "" || addr == s.Addr() {
		return nil, wire.Unavailable("this negotiator does not lead its Raft group, and no leader is known yet (leader %q); ask again in a few seconds", id)
	}
	tok, _ := strings.CutPrefix(r.HTTP.Header.Get("Authorization"), "Bearer ")
	conn := wire.NewConnector(wire.ConnectorOptions{Network: s.env.Network, TLS: s.env.ClientTLS, Token: wire.StaticToken(tok)})
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	var out wire.Priority
	if err := conn.Client(addr).Call(ctx, http.MethodPost, path, in, &out); err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return nil, we
		}
		return nil, wire.Unavailable("passing the request on to the leading negotiator at %s: %v", addr, err)
	}
	return out, nil
}

// raftAttrs are the negotiator ad's Raft attributes: this member's id and
// state, and the leader's id.
func (s *Server) raftAttrs() (id, state, leader string) {
	if s.group == nil {
		return "", "", ""
	}
	leader, _ = s.group.Leader()
	return s.group.ID(), s.group.State(), leader
}
