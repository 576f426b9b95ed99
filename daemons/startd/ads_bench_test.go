package startd

import (
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/pooltest"
)

// benchStartd returns a startd of the test machine, not running, its
// first slot claimed for a job as between two jobs of a claim.
func benchStartd(b *testing.B) (*Server, *slotState, *clock) {
	b.Helper()
	p := pooltest.New(b)
	clk := &clock{}
	cfg := ConfigFrom(p.Config)
	cfg.Listen, cfg.Name, cfg.ExecuteDir = "startd:9800", "host1", reachableDir(b)
	cfg.Machine, cfg.Now, cfg.Sensors = &testMachine, clk.now, &sensors{load: 0.1, keyboard: 100000}
	s, err := New(p.Env("startd"), cfg)
	if err != nil {
		b.Fatal(err)
	}
	job := classad.NewAd()
	job.Set(attr.Owner, ast.Str("alice"))
	job.Set(attr.User, ast.Str("alice@host1"))
	st := s.all()[0]
	st.claim = &claim{id: st.claimID, scheddName: "alice@host1", job: job, gone: make(chan struct{})}
	return s, st, clk
}

// BenchmarkActivationAd brings a claimed slot's ad up to date for the
// next job, as each activation does (a short job's time later).
func BenchmarkActivationAd(b *testing.B) {
	s, st, clk := benchStartd(b)
	b.ReportAllocs()
	for b.Loop() {
		clk.advance(30 * time.Millisecond)
		s.activationAd(st)
	}
}

// BenchmarkSlotAd makes a slot's ad anew, as its advertisement and its
// policy checks do.
func BenchmarkSlotAd(b *testing.B) {
	s, st, _ := benchStartd(b)
	b.ReportAllocs()
	for b.Loop() {
		s.slotAd(st)
	}
}
