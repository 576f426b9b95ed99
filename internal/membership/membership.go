// Package membership tells every Kite daemon which other daemons are
// alive and where they are, by gossip (hashicorp/memberlist). Each daemon
// joins with small metadata (its kind, the address it serves the wire
// protocol on, its version); joins, graceful leaves and failures reach the
// daemon as events. Gossip carries only membership: ads travel over the
// wire protocol.
package membership

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"
)

// Meta is what a member tells the others about itself. Encoded, it must
// fit in memberlist's 512 bytes.
type Meta struct {
	Kind    string `json:"k"`           // collector, negotiator, schedd, startd, master
	Addr    string `json:"a"`           // where it serves the wire protocol (host:port)
	Version string `json:"v,omitempty"` // Kite version
	// Incarnation is the random id of this start of the daemon, which its
	// ads carry too: a failure of one start must not remove the ads of the
	// next, which may take the same name before gossip declares the first
	// dead.
	Incarnation string `json:"i,omitempty"`
	// Leaving is set just before a member leaves on purpose, so that the
	// others can tell its departure from a failure.
	Leaving bool `json:"l,omitempty"`
}

// State is a member's health as gossip sees it.
type State string

// Member states. (A member memberlist suspects is alive here until it
// is declared dead: memberlist's own records of its members can only be
// read racily.)
const (
	Alive State = "alive"
	Dead  State = "dead"
	Left  State = "left"
)

// Member is one daemon of the pool.
type Member struct {
	Name   string    // unique node name
	Gossip string    // gossip address host:port
	Meta   Meta      //
	State  State     //
	Since  time.Time // when it entered its state, as this member learned
}

// EventKind says what happened to a member.
type EventKind uint8

// Event kinds.
const (
	Joined EventKind = iota + 1
	Updated
	Failed // declared dead by failure detection
	Departed
)

func (k EventKind) String() string {
	return [...]string{"", "joined", "updated", "failed", "left"}[k]
}

// Event is a change in membership.
type Event struct {
	Kind   EventKind
	Member Member
}

// Config configures a member.
type Config struct {
	// Name is the member's unique name, e.g. "schedd@host1".
	Name string
	// Bind is the gossip host:port; port 0 picks a free one.
	Bind string
	// Join lists gossip addresses of members to join.
	Join []string
	// Meta is what others learn about this member.
	Meta Meta
	// ProbeInterval, ProbeTimeout and SuspicionMult tune failure
	// detection: a failed member is declared dead after roughly
	// SuspicionMult * log(N) * ProbeInterval.
	ProbeInterval time.Duration
	ProbeTimeout  time.Duration
	SuspicionMult int
	// Logger receives memberlist's messages.
	Logger *slog.Logger
}

// Node is this daemon's membership.
type Node struct {
	ml      *memberlist.Memberlist
	meta    *metaDelegate
	events  chan Event
	mu      sync.Mutex
	members map[string]Member
	closed  bool
	// gossip is this member's gossip address, read once: memberlist's
	// own record of the local node changes under its lock as metadata
	// is gossiped.
	gossip string
}

// eventBuffer bounds events not yet read; older ones are dropped first.
const eventBuffer = 1024

// Start joins the pool's gossip (or starts it, with an empty Join list).
func Start(cfg Config) (*Node, error) {
	meta, err := json.Marshal(cfg.Meta)
	if err != nil {
		return nil, err
	}
	if len(meta) > memberlist.MetaMaxSize {
		return nil, fmt.Errorf("membership: metadata of %d bytes exceeds %d", len(meta), memberlist.MetaMaxSize)
	}
	mc, err := memberlistConfig(cfg, meta)
	if err != nil {
		return nil, err
	}
	n := &Node{events: make(chan Event, eventBuffer), members: map[string]Member{}, meta: &metaDelegate{meta: cfg.Meta}}
	mc.Events = (*eventDelegate)(n)
	mc.Delegate = n.meta
	ml, err := memberlist.Create(mc)
	if err != nil {
		return nil, fmt.Errorf("membership: %w", err)
	}
	n.ml = ml
	ln := ml.LocalNode()
	n.gossip = net.JoinHostPort(ln.Addr.String(), strconv.Itoa(int(ln.Port)))
	if len(cfg.Join) > 0 {
		if _, err := ml.Join(cfg.Join); err != nil {
			ml.Shutdown()
			return nil, fmt.Errorf("membership: join %v: %w", cfg.Join, err)
		}
	}
	return n, nil
}

func memberlistConfig(cfg Config, meta []byte) (*memberlist.Config, error) {
	host, port, err := net.SplitHostPort(cfg.Bind)
	if err != nil {
		return nil, fmt.Errorf("membership: bind %q: %w", cfg.Bind, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, fmt.Errorf("membership: bind port %q: %w", port, err)
	}
	mc := memberlist.DefaultLANConfig()
	mc.Name = cfg.Name
	mc.BindAddr, mc.BindPort = host, p
	mc.AdvertiseAddr, mc.AdvertisePort = "", 0
	if cfg.ProbeInterval > 0 {
		mc.ProbeInterval = cfg.ProbeInterval
		mc.GossipInterval = min(mc.GossipInterval, cfg.ProbeInterval/2)
		mc.PushPullInterval = 10 * cfg.ProbeInterval
	}
	if cfg.ProbeTimeout > 0 {
		mc.ProbeTimeout = cfg.ProbeTimeout
		mc.TCPTimeout = max(cfg.ProbeTimeout, time.Second)
	}
	if cfg.SuspicionMult > 0 {
		mc.SuspicionMult = cfg.SuspicionMult
	}
	// A daemon restarted on the same address keeps its name but not its
	// gossip port: let it take its name back once the old one is dead.
	mc.DeadNodeReclaimTime = time.Second
	mc.LogOutput = nil
	mc.Logger = log.New(&slogWriter{log: logger(cfg.Logger)}, "", 0)
	return mc, nil
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.With("component", "membership")
}

// Events returns the stream of membership changes.
func (n *Node) Events() <-chan Event { return n.events }

// Join joins the members at addrs (gossip host:port): a daemon rejoins
// this way a collector that restarted with a new gossip.
func (n *Node) Join(addrs []string) error {
	if _, err := n.ml.Join(addrs); err != nil {
		return fmt.Errorf("membership: join %v: %w", addrs, err)
	}
	return nil
}

// Gossip returns this member's gossip address, for others to join.
func (n *Node) Gossip() string { return n.gossip }

// Members returns every member this node knows of, alive or not, by name.
func (n *Node) Members() []Member {
	n.mu.Lock()
	out := make([]Member, 0, len(n.members))
	for _, m := range n.members {
		out = append(out, m)
	}
	n.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Leave tells the others this member is going, then stops gossip. It
// first gossips metadata marked Leaving (memberlist itself reports a
// departure like a failure), then memberlist's leave message.
func (n *Node) Leave(timeout time.Duration) error {
	n.meta.set(func(m *Meta) { m.Leaving = true })
	err := n.ml.UpdateNode(timeout / 2)
	err = errors.Join(err, n.ml.Leave(timeout/2))
	return errors.Join(err, n.Shutdown())
}

// Shutdown stops gossip at once; the others will find this member dead.
func (n *Node) Shutdown() error {
	err := n.ml.Shutdown()
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		close(n.events)
	}
	n.mu.Unlock()
	return err
}

// record notes a member's new state and queues the event.
func (n *Node) record(kind EventKind, node *memberlist.Node, state State) {
	m := Member{Name: node.Name, Gossip: net.JoinHostPort(node.Addr.String(), strconv.Itoa(int(node.Port))), State: state, Since: time.Now()}
	json.Unmarshal(node.Meta, &m.Meta)
	n.mu.Lock()
	defer n.mu.Unlock()
	if prev, ok := n.members[m.Name]; ok && kind == Failed && (prev.Meta.Leaving || m.Meta.Leaving) {
		kind, m.State = Departed, Left
	}
	n.members[m.Name] = m
	if n.closed {
		return
	}
	ev := Event{Kind: kind, Member: m}
	select {
	case n.events <- ev:
	default: // a slow reader loses the oldest event, never blocks gossip
		select {
		case <-n.events:
		default:
		}
		n.events <- ev
	}
}

type eventDelegate Node

func (d *eventDelegate) NotifyJoin(node *memberlist.Node) { (*Node)(d).record(Joined, node, Alive) }

func (d *eventDelegate) NotifyUpdate(node *memberlist.Node) { (*Node)(d).record(Updated, node, Alive) }

// NotifyLeave reports a member gone: a departure when it had announced
// it was leaving (record checks), else a failure. (memberlist passes the
// node's state stale, so it cannot tell the two apart itself.)
func (d *eventDelegate) NotifyLeave(node *memberlist.Node) { (*Node)(d).record(Failed, node, Dead) }

// metaDelegate gives memberlist the local metadata; no user messages.
type metaDelegate struct {
	mu   sync.Mutex
	meta Meta
}

func (d *metaDelegate) set(f func(*Meta)) {
	d.mu.Lock()
	f(&d.meta)
	d.mu.Unlock()
}

func (d *metaDelegate) NodeMeta(limit int) []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	b, _ := json.Marshal(d.meta)
	return b
}

func (*metaDelegate) NotifyMsg([]byte)                           {}
func (*metaDelegate) GetBroadcasts(overhead, limit int) [][]byte { return nil }
func (*metaDelegate) LocalState(join bool) []byte                { return nil }
func (*metaDelegate) MergeRemoteState(buf []byte, join bool)     {}

// slogWriter turns memberlist's "[LEVEL] memberlist: ..." lines into
// structured log records.
type slogWriter struct{ log *slog.Logger }

func (w *slogWriter) Write(p []byte) (int, error) {
	line := bytes.TrimSpace(p)
	level := slog.LevelDebug
	for prefix, l := range map[string]slog.Level{"[ERR]": slog.LevelError, "[WARN]": slog.LevelWarn, "[INFO]": slog.LevelInfo} {
		if rest, ok := bytes.CutPrefix(line, []byte(prefix)); ok {
			line, level = bytes.TrimSpace(rest), l
		}
	}
	line = bytes.TrimPrefix(line, []byte("[DEBUG] "))
	w.log.Log(context.Background(), level, string(bytes.TrimPrefix(line, []byte("memberlist: "))))
	return len(p), nil
}

var _ io.Writer = (*slogWriter)(nil)
