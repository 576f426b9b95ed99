package replicated

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"

	"github.com/kite-sched/kite/internal/fairshare"
	"github.com/kite-sched/kite/internal/wire"
)

// Config configures a member of the group.
type Config struct {
	// Bind is this member's Raft host:port and its id.
	Bind string
	// Peers are every member's Raft host:port, Bind included.
	Peers []string
	// Dir holds the log, the stable store and snapshots.
	Dir string
	// Verifier checks the tokens of incoming connections; Token is this
	// daemon's own.
	Verifier wire.Verifier
	Token    func() (string, error)
	// ServerTLS and ClientTLS, when both set, make Raft's connections TLS.
	ServerTLS, ClientTLS *tls.Config
	// Timeout bounds the commit of one change.
	Timeout time.Duration
	Log     *slog.Logger
}

// ErrNotLeader says that this member does not lead the group: changes go
// to the leader.
var ErrNotLeader = errors.New("this negotiator does not lead its Raft group")

// Group is this negotiator's membership in the group.
type Group struct {
	id      string
	raft    *raft.Raft
	fsm     *fsm
	store   *raftboltdb.BoltStore
	layer   *streamLayer
	trans   *raft.NetworkTransport
	timeout time.Duration
	leading chan bool
	leaders chan raft.Observation
}

// Open starts this member with acct, an accountant in memory that the
// group's log fills: the log is the accountant's durable store. A member
// with no state yet starts the group with every peer (each member does
// the same, which Raft allows).
func Open(acct *fairshare.Accountant, cfg Config) (*Group, error) {
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("raft: %w", err)
	}
	g := &Group{id: cfg.Bind, fsm: &fsm{acct: acct, addrs: map[string]string{}}, timeout: cfg.Timeout, leading: make(chan bool, 8)}
	ok := false
	defer func() {
		if !ok {
			g.closeStores()
		}
	}()
	var err error
	if g.store, err = raftboltdb.New(raftboltdb.Options{Path: filepath.Join(cfg.Dir, "raft.db")}); err != nil {
		return nil, fmt.Errorf("raft log %s: %w", cfg.Dir, err)
	}
	logger := hclogTo(cfg.Log)
	snaps, err := raft.NewFileSnapshotStoreWithLogger(cfg.Dir, 2, logger.Named("snapshots"))
	if err != nil {
		return nil, fmt.Errorf("raft snapshots %s: %w", cfg.Dir, err)
	}
	var serverTLS, clientTLS *tls.Config
	if cfg.ServerTLS != nil && cfg.ClientTLS != nil {
		serverTLS, clientTLS = cfg.ServerTLS, cfg.ClientTLS
	}
	if g.layer, err = listen(cfg.Bind, cfg.Verifier, cfg.Token, serverTLS, clientTLS, cfg.Log); err != nil {
		return nil, err
	}
	g.trans = raft.NewNetworkTransportWithLogger(g.layer, 3, 10*time.Second, logger.Named("net"))
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(cfg.Bind)
	rc.Logger = logger
	rc.NotifyCh = g.leading
	rc.SnapshotThreshold = 1024
	has, err := raft.HasExistingState(g.store, g.store, snaps)
	if err != nil {
		return nil, fmt.Errorf("raft: %w", err)
	}
	if !has {
		var servers []raft.Server
		for _, p := range cfg.Peers {
			servers = append(servers, raft.Server{ID: raft.ServerID(p), Address: raft.ServerAddress(p)})
		}
		if err := raft.BootstrapCluster(rc, g.store, g.store, snaps, g.trans, raft.Configuration{Servers: servers}); err != nil {
			return nil, fmt.Errorf("raft: starting the group: %w", err)
		}
	}
	if g.raft, err = raft.NewRaft(rc, g.fsm, g.store, g.store, snaps, g.trans); err != nil {
		return nil, fmt.Errorf("raft: %w", err)
	}
	g.leaders = make(chan raft.Observation, 1)
	g.raft.RegisterObserver(raft.NewObserver(g.leaders, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	}))
	ok = true
	return g, nil
}

// closeStores closes what Open opened before Raft ran.
func (g *Group) closeStores() {
	if g.trans != nil {
		g.trans.Close()
	} else if g.layer != nil {
		g.layer.Close()
	}
	if g.store != nil {
		g.store.Close()
	}
}

// Close leaves the group (without removing this member from it).
func (g *Group) Close() error {
	err := g.raft.Shutdown().Error()
	g.closeStores()
	return err
}

// ID is this member's id (its Raft address).
func (g *Group) ID() string { return g.id }

// Leading hears each change of this member's leadership: true when it
// becomes the leader, false when it stops being it.
func (g *Group) Leading() <-chan bool { return g.leading }

// LeaderChanges hears that the group's leader changed (or that it has
// none for now); changes that come while one waits unread are merged.
func (g *Group) LeaderChanges() <-chan raft.Observation { return g.leaders }

// IsLeader says whether this member leads the group now.
func (g *Group) IsLeader() bool { return g.raft.State() == raft.Leader }

// State is this member's Raft state: Leader, Follower, Candidate or
// Shutdown.
func (g *Group) State() string { return g.raft.State().String() }

// Leader returns the leader's id and the negotiator address it announced
// ("" for what is not known).
func (g *Group) Leader() (id, addr string) {
	_, lid := g.raft.LeaderWithID()
	return string(lid), g.fsm.addrOf(string(lid))
}

// TakeOver readies a new leader: it waits until every change committed
// before it led is applied here (so the accountant is whole), and tells
// the group where this negotiator serves.
func (g *Group) TakeOver(addr string) error {
	if err := g.raft.Barrier(g.timeout).Error(); err != nil {
		return fmt.Errorf("raft barrier: %w", err)
	}
	_, err := g.propose(command{Op: opLeader, ID: g.id, Addr: addr})
	return err
}

// Update records a cycle's usage in the group.
func (g *Group) Update(now time.Time, inUse map[string]float64) error {
	_, err := g.propose(command{Op: opUpdate, Now: now, InUse: inUse})
	return err
}

// SetFactor sets a user's priority factor in the group.
func (g *Group) SetFactor(user string, factor float64) (fairshare.Usage, error) {
	if err := fairshare.CheckFactor(factor); err != nil {
		return fairshare.Usage{}, err
	}
	return g.propose(command{Op: opFactor, User: user, Value: factor})
}

// SetPriority sets a user's real priority as of now in the group.
func (g *Group) SetPriority(user string, priority float64, now time.Time) (fairshare.Usage, error) {
	if err := fairshare.CheckPriority(priority); err != nil {
		return fairshare.Usage{}, err
	}
	return g.propose(command{Op: opPriority, User: user, Value: priority, Now: now})
}

// ResetUsage resets a user's usage in the group.
func (g *Group) ResetUsage(user string, now time.Time) (fairshare.Usage, error) {
	return g.propose(command{Op: opReset, User: user, Now: now})
}

// Import gives an empty group the accounts of a negotiator's accountant
// file, as a central manager that ran alone had them; a group that has
// accounts keeps its own.
func (g *Group) Import(users []fairshare.Usage) error {
	_, err := g.propose(command{Op: opImport, Users: users})
	return err
}

// propose commits a command through the log and returns what applying it
// gave: done once a majority has it on disk and this member applied it.
func (g *Group) propose(c command) (fairshare.Usage, error) {
	if !g.IsLeader() {
		return fairshare.Usage{}, ErrNotLeader
	}
	data, err := json.Marshal(c)
	if err != nil {
		return fairshare.Usage{}, err
	}
	f := g.raft.Apply(data, g.timeout)
	if err := f.Error(); err != nil {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
			return fairshare.Usage{}, fmt.Errorf("%w: %v", ErrNotLeader, err)
		}
		return fairshare.Usage{}, fmt.Errorf("raft: %w", err)
	}
	r, _ := f.Response().(result)
	return r.usage, r.err
}

// hclogTo sends Raft's logs to the daemon's logger.
func hclogTo(log *slog.Logger) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Info, Output: slogWriter{log}, DisableTime: true})
}

// slogWriter writes each of hclog's lines as one slog record.
type slogWriter struct{ log *slog.Logger }

var _ io.Writer = slogWriter{}

func (w slogWriter) Write(p []byte) (int, error) {
	w.log.Info(string(trimNewline(p)))
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}
