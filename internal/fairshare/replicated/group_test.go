package replicated

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/fairshare"
	"github.com/kite-sched/kite/internal/pooltest/loopback"
)

// tokens verifies a fixed table of tokens.
type tokens map[string]auth.Identity

func (t tokens) Verify(tok string) (auth.Identity, error) {
	if id, ok := t[tok]; ok {
		return id, nil
	}
	return auth.Identity{}, auth.ErrBadToken
}

var pool = tokens{
	"daemon": {Name: "negotiator@cm", Levels: auth.Daemon},
	"admin":  {Name: "root", Levels: auth.Administrator},
}

// member is one negotiator's accountant in a group.
type member struct {
	acct  *fairshare.Accountant
	group *Group
}

func openMember(t *testing.T, dir, bind string, peers []string) *member {
	t.Helper()
	acct := fairshare.NewAccountant(time.Hour, 1000)
	acct.SetFlush(0)
	g, err := Open(acct, Config{Bind: bind, Peers: peers, Dir: filepath.Join(dir, bind), Verifier: pool,
		Token: func() (string, error) { return "daemon", nil }, Timeout: 10 * time.Second,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return &member{acct: acct, group: g}
}

// leaderOf waits, 30 s at most, until one of ms leads and has taken over.
func leaderOf(t *testing.T, ms []*member) *member {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		for _, m := range ms {
			if m.group.IsLeader() && m.group.TakeOver("neg-"+m.group.ID()) == nil {
				return m
			}
		}
		cases := make([]<-chan bool, len(ms))
		for i, m := range ms {
			cases[i] = m.group.Leading()
		}
		select {
		case <-deadline:
			t.Fatal("no leader elected in 30 s")
		case <-anyOf(cases):
		}
	}
}

// anyOf fires when any of cs does (or after a short while: leadership
// notifications a member consumed before the test listened are not sent
// again, so the caller looks again).
func anyOf(cs []<-chan bool) <-chan struct{} {
	out := make(chan struct{})
	stop := time.NewTimer(200 * time.Millisecond)
	go func() {
		defer stop.Stop()
		agg := make(chan struct{}, len(cs))
		for _, c := range cs {
			go func() {
				select {
				case <-c:
				case <-stop.C:
				}
				agg <- struct{}{}
			}()
		}
		<-agg
		close(out)
	}()
	return out
}

// The leader's usage and an administrator's edit survive its death: the
// member elected next holds them (HTCondor manual, "High Availability of
// the Central Manager": the accountant's state moves with the
// negotiator).
func TestUsageSurvivesTheLeader(t *testing.T) {
	peers := loopback.Addrs(t, 3)
	dir := t.TempDir()
	var ms []*member
	for _, p := range peers {
		ms = append(ms, openMember(t, dir, p, peers))
	}
	leader := leaderOf(t, ms)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		if err := leader.group.Update(t0.Add(time.Duration(i)*time.Minute), map[string]float64{"alice": 4}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := leader.group.SetFactor("bob", 50); err != nil {
		t.Fatal(err)
	}
	if _, err := leader.group.ResetUsage("nobody", t0); !errors.Is(err, fairshare.ErrNoUser) {
		t.Errorf("reset of an unknown user: %v; want ErrNoUser", err)
	}
	want := usageOf(leader.acct)
	for _, m := range ms {
		if m != leader {
			if _, err := m.group.SetFactor("bob", 1); !errors.Is(err, ErrNotLeader) {
				t.Errorf("a follower's edit: %v; want ErrNotLeader", err)
			}
		}
	}
	if err := leader.group.Close(); err != nil {
		t.Fatal(err)
	}
	var rest []*member
	for _, m := range ms {
		if m != leader {
			rest = append(rest, m)
			defer m.group.Close()
		}
	}
	next := leaderOf(t, rest)
	if got := usageOf(next.acct); got != want {
		t.Errorf("the new leader's accounts:\n%s\nwant the old leader's:\n%s", got, want)
	}
	if id, addr := next.group.Leader(); id != next.group.ID() || addr != "neg-"+id {
		t.Errorf("leader %q at %q; want %q at neg-%[3]s", id, addr, next.group.ID())
	}
}

// usageOf prints an accountant's accounts, by name.
func usageOf(a *fairshare.Accountant) string { return fmt.Sprint(sorted(a.State())) }

func sorted(us []fairshare.Usage) []fairshare.Usage {
	slices.SortFunc(us, func(x, y fairshare.Usage) int { return strings.Compare(x.Name, y.Name) })
	return us
}

// A snapshot holds the whole accountant, and restoring it replaces what a
// member had.
func TestSnapshotRestore(t *testing.T) {
	src := &fsm{acct: fairshare.NewAccountant(time.Hour, 1000), addrs: map[string]string{"a:1": "neg-a"}}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []command{
		{Op: opUpdate, Now: t0, InUse: map[string]float64{"alice": 2, "bob": 1}},
		{Op: opUpdate, Now: t0.Add(time.Hour), InUse: map[string]float64{"alice": 2}},
		{Op: opPriority, User: "bob", Value: 7, Now: t0.Add(time.Hour)},
	} {
		if r := src.apply(c); r.err != nil {
			t.Fatal(r.err)
		}
	}
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	dst := &fsm{acct: fairshare.NewAccountant(time.Hour, 1000), addrs: map[string]string{}}
	dst.apply(command{Op: opFactor, User: "carol", Value: 3}) // replaced by the snapshot
	if err := dst.Restore(io.NopCloser(&sink.Buffer)); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(sorted(dst.acct.State())), fmt.Sprint(sorted(src.acct.State())); got != want {
		t.Errorf("restored %s\nwant %s", got, want)
	}
	if dst.addrOf("a:1") != "neg-a" {
		t.Errorf("restored addresses %v", dst.addrs)
	}
	if err := dst.Restore(io.NopCloser(bytes.NewBufferString("{"))); err == nil {
		t.Error("a cut snapshot restored without an error")
	}
}

// memSink is a snapshot sink in memory.
type memSink struct {
	bytes.Buffer
	cancelled bool
}

func (s *memSink) ID() string    { return "test" }
func (s *memSink) Cancel() error { s.cancelled = true; return nil }
func (s *memSink) Close() error  { return nil }

var _ raft.SnapshotSink = (*memSink)(nil)

// listenAccepting opens the group's stream layer on a loopback port with
// the given daemon token and TLS configurations (see listen), closed when
// the test ends, and passes each connection it accepts to the channel.
func listenAccepting(t *testing.T, token func() (string, error), serverTLS, clientTLS *tls.Config) (*streamLayer, <-chan net.Conn) {
	t.Helper()
	l, err := listen("127.0.0.1:0", pool, token, serverTLS, clientTLS, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	return l, accepted
}

// Only the pool's daemons join the group: a connection without a DAEMON
// token of the pool is closed before Raft reads it.
func TestTransportRefusesStrangers(t *testing.T) {
	l, accepted := listenAccepting(t, nil, nil, nil)
	for _, tc := range []struct {
		name, line string
		ok         bool
	}{
		{"no greeting", "GET / HTTP/1.1\n", false},
		{"bad token", greeting + "forged\n", false},
		{"an administrator is no daemon", greeting + "admin\n", false},
		{"a daemon", greeting + "daemon\n", true},
	} {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(tc.line + "payload"))
		if tc.ok {
			select {
			case sc := <-accepted:
				buf := make([]byte, 7)
				if _, err := io.ReadFull(sc, buf); err != nil || string(buf) != "payload" {
					t.Errorf("%s: read %q, %v after the greeting", tc.name, buf, err)
				}
				sc.Close()
			case <-time.After(10 * time.Second):
				t.Errorf("%s: not accepted", tc.name)
			}
			c.Close()
			continue
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err != io.EOF && !isReset(err) {
			t.Errorf("%s: connection not closed (%v)", tc.name, err)
		}
		c.Close()
	}
}

func isReset(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && !oe.Timeout()
}

// The accounts of a negotiator's file go into an empty group only: a
// group with accounts keeps its own.
func TestImport(t *testing.T) {
	f := &fsm{acct: fairshare.NewAccountant(time.Hour, 1000), addrs: map[string]string{}}
	file := []fairshare.Usage{{Name: "carol", Priority: 3, Factor: 9}}
	if r := f.apply(command{Op: opImport, Users: file}); r.err != nil {
		t.Fatal(r.err)
	}
	if got := f.acct.Effective("carol"); got != 27 {
		t.Errorf("carol's effective priority after the import: %v, want 27", got)
	}
	f.apply(command{Op: opImport, Users: []fairshare.Usage{{Name: "dave", Priority: 1, Factor: 1}}})
	if got := usageOf(f.acct); got != fmt.Sprint(file) {
		t.Errorf("a second import changed the accounts: %s", got)
	}
}
