package negotiator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/fairshare"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/loopback"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/wire"
)

// raftStates reads the negotiator ads' Raft attributes from the
// collector: Raft id → state, and each member's address.
func raftStates(t *testing.T, p *pooltest.Pool) (map[string]string, map[string]string) {
	t.Helper()
	c := p.Client(p.Config.Pool.Collector, "reader", auth.Read)
	states, addrs := map[string]string{}, map[string]string{}
	err := c.Stream(context.Background(), "POST", wire.PathQuery, wire.Query{Type: attr.TypeNegotiator}, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err != nil {
			return err
		}
		id := classad.EvalStringOr(ad, attr.RaftID, "")
		states[id] = classad.EvalStringOr(ad, attr.RaftState, "")
		addrs[id] = classad.EvalStringOr(ad, attr.MyAddress, "")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return states, addrs
}

// poll calls cond every 20 ms until it holds, for 30 s at most.
func poll(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for {
		ok, state := cond()
		if ok {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s: not within 30 s (%s)", what, state)
		}
	}
}

// Three negotiators in a Raft group: one leads and alone runs cycles, the
// ads say who, a follower passes an administrator's setprio on to the
// leader, and every member's accountant holds it; when the leader stops,
// another leads with it (HTCondor manual, "High Availability of the
// Central Manager": one active negotiator, its accountant's state
// replicated).
func TestRaftGroup(t *testing.T) {
	p := pooltest.New(t)
	start.Collector(t, p)
	peers := loopback.Addrs(t, 3) // real TCP: the pool's in-memory network carries the protocol only
	// The central managers ran one negotiator before: its accountant's
	// file has carol, and the group takes her account.
	old, err := fairshare.OpenAccountant(filepath.Join(p.Dir, "negotiator", "accountant.db"), time.Hour, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.SetFactor("carol@test", 9); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	byID := map[string]*negotiator.Server{}
	for i, bind := range peers {
		byID[bind] = start.Negotiator(t, p, func(c *negotiator.Config) {
			c.Interval, c.CycleDelay, c.UpdateInterval = 200*time.Millisecond, 10*time.Millisecond, 100*time.Millisecond
			c.Raft = negotiator.RaftConfig{Bind: bind, Peers: peers, Dir: filepath.Join(p.Dir, fmt.Sprintf("raft%d", i))}
		})
	}
	var leader string
	leads := func(exclude string) func() (bool, string) {
		return func() (bool, string) {
			states, _ := raftStates(t, p)
			leader = ""
			for id, st := range states {
				if st == "Leader" && id != exclude && byID[id].LastCycle().Number > 0 {
					leader = id
				}
			}
			return leader != "", fmt.Sprint(states)
		}
	}
	poll(t, "a leader that runs cycles", leads(""))
	for id, n := range byID {
		if id != leader && n.LastCycle().Number != 0 {
			t.Errorf("follower %s ran %d cycles", id, n.LastCycle().Number)
		}
	}

	poll(t, "every member has carol's account from the file", func() (bool, string) {
		for id, n := range byID {
			if e := n.Accountant().Effective("carol@test"); e != 0.5*9 {
				return false, fmt.Sprintf("%s: %v", id, e)
			}
		}
		return true, ""
	})

	var follower string
	for id := range byID {
		if id != leader {
			follower = id
		}
	}
	admin := p.Client(byID[follower].Addr(), "root", auth.Administrator)
	var pr wire.Priority
	err = admin.Call(context.Background(), "POST", wire.PathSetPriority, wire.SetPriority{User: "alice@test", Priority: 25}, &pr)
	if err != nil || pr.Real != 25 {
		t.Fatalf("setprio at a follower: %+v, %v; want real 25 from the leader", pr, err)
	}
	poll(t, "every member's accountant has alice's priority", func() (bool, string) {
		for id, n := range byID {
			if n.Accountant().Effective("alice@test") < 24000 {
				return false, id + " has not"
			}
		}
		return true, ""
	})

	start.Stop(t, byID[leader])
	poll(t, "another leader", leads(leader))
	if e := byID[leader].Accountant().Effective("alice@test"); e < 24000 || e > 25000 {
		t.Errorf("the new leader's effective priority of alice: %v; want about 25 × 1000", e)
	}
}
