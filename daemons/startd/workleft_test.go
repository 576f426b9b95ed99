package startd

import (
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/internal/wire"
)

// workAt evaluates a slot ad's KiteWorkLeft as a negotiator would at t.
func workAt(t *testing.T, ad *classad.Ad, at time.Time) float64 {
	t.Helper()
	st := &eval.State{Now: func() time.Time { return at }}
	st.Reset(ad, nil)
	f, ok := st.EvalAttr("KiteWorkLeft").NumberValue()
	if !ok {
		e, _ := ad.Lookup("KiteWorkLeft")
		t.Fatalf("KiteWorkLeft = %s is not a number", classad.String(e))
	}
	return f
}

// A partitionable slot publishes what least-work-left and the batch
// heuristics read, as the simulator's queue-mode host does: its speed
// (from the benchmark), the declared work of the jobs its dynamic slots
// hold less what they did at that speed, and how many they hold; a job
// claimed and not started counts whole, a job gone counts no more.
func TestSlotsPublishWorkLeft(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.BenchmarkMs = 5000 }) // twice the reference: speed 2
	ads := h.waitAds("the partitionable slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	p := ads["slot1@host1"]
	if num(p, "KiteSpeed") != 2 || num(p, "KiteQueueLength") != 0 || workAt(t, p, time.Now()) != 0 {
		t.Fatalf("a free slot: speed %d, queue %d, work %v", num(p, "KiteSpeed"), num(p, "KiteQueueLength"), workAt(t, p, time.Now()))
	}

	h.schedd.inputs["/j.sh"] = "#!/bin/sh\nsleep 300\n"
	long := jobAd(t, "Cmd = \"/j.sh\"\nKiteWork = 100")
	first, err := h.schedd.claim(p, long, 60)
	if err != nil {
		t.Fatal(err)
	}
	ads = h.waitAds("the claim counted", func(a map[string]*classad.Ad) bool { return num(a["slot1@host1"], "KiteQueueLength") == 1 })
	if w := workAt(t, ads["slot1@host1"], time.Now()); w != 100 {
		t.Errorf("a claimed job not started: work left %v, want 100", w)
	}
	if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: first.ClaimID, Job: long}); err != nil {
		t.Fatal(err)
	}
	ads = h.waitAds("the job running", func(a map[string]*classad.Ad) bool { return status(a, "slot1_1@host1") == "Claimed/Busy" })
	started := time.Unix(num(ads["slot1_1@host1"], "JobStart"), 0)
	for _, c := range []struct {
		after time.Duration
		want  float64
	}{{0, 100}, {10 * time.Second, 80}, {50 * time.Second, 0}, {time.Hour, 0}} {
		for _, name := range []string{"slot1@host1", "slot1_1@host1"} {
			if w := workAt(t, ads[name], started.Add(c.after)); w != c.want {
				t.Errorf("%s %v after the start: work left %v, want %v", name, c.after, w, c.want)
			}
		}
	}

	short := jobAd(t, "ProcId = 1\nCmd = \"/j.sh\"\nKiteWork = 30")
	if _, err := h.schedd.claim(ads["slot1@host1"], short, 60); err != nil {
		t.Fatal(err)
	}
	ads = h.waitAds("two jobs held", func(a map[string]*classad.Ad) bool { return num(a["slot1@host1"], "KiteQueueLength") == 2 })
	if w := workAt(t, ads["slot1@host1"], started.Add(10*time.Second)); w != 80+30 {
		t.Errorf("two jobs: work left %v, want 110", w)
	}
	if err := h.schedd.call(wire.PathRelease, wire.ClaimRef{ClaimID: first.ClaimID}); err != nil {
		t.Fatal(err)
	}
	ads = h.waitAds("the first job gone", func(a map[string]*classad.Ad) bool { return num(a["slot1@host1"], "KiteQueueLength") == 1 })
	if w := workAt(t, ads["slot1@host1"], time.Now()); w != 30 {
		t.Errorf("after the first job: work left %v, want 30", w)
	}
}

// A configured KiteSpeed ([startd.attributes]) replaces the measured one,
// and the work left runs down at it.
func TestConfiguredSpeed(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Attributes = map[string]any{"KiteSpeed": int64(4)} })
	ads := h.waitAds("the partitionable slot", func(a map[string]*classad.Ad) bool { return status(a, "slot1@host1") == "Unclaimed/Idle" })
	h.schedd.inputs["/j.sh"] = "#!/bin/sh\nsleep 300\n"
	job := jobAd(t, "Cmd = \"/j.sh\"\nKiteWork = 100")
	res, err := h.schedd.claim(ads["slot1@host1"], job, 60)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.schedd.call(wire.PathActivate, wire.Activate{ClaimID: res.ClaimID, Job: job}); err != nil {
		t.Fatal(err)
	}
	ads = h.waitAds("the job running", func(a map[string]*classad.Ad) bool { return status(a, "slot1_1@host1") == "Claimed/Busy" })
	started := time.Unix(num(ads["slot1_1@host1"], "JobStart"), 0)
	if s := num(ads["slot1@host1"], "KiteSpeed"); s != 4 {
		t.Errorf("KiteSpeed = %d, want the configured 4", s)
	}
	if w := workAt(t, ads["slot1@host1"], started.Add(10*time.Second)); w != 60 {
		t.Errorf("work left after 10 s at speed 4: %v, want 60", w)
	}
}

// The measured speed is the benchmark's against the reference machine's,
// to two significant digits, and 1 while none is known.
func TestMeasuredSpeed(t *testing.T) {
	for _, c := range []struct{ ms, want float64 }{{10000, 1}, {5000, 2}, {3000, 3.3}, {10400, 0.96}, {0, 1}} {
		m, err := openMonitor("", nil)
		if err != nil {
			t.Fatal(err)
		}
		m.rec.Node.Benchmark = c.ms
		m.pub.Store(cloneNode(&m.rec.Node))
		s := &Server{mon: m}
		if got := s.measuredSpeed(); got != c.want {
			t.Errorf("benchmark %v ms: speed %v, want %v", c.ms, got, c.want)
		}
	}
}
