package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/wire"
)

// examples/sita on a pool: paper 003's 400 jobs run on the slots of the
// interval their size predicts, and the loads per interval are the
// paper's. The jobs sleep 0 s instead of their run times.
func TestSitaExampleJobsLandInPredictedIntervals(t *testing.T) {
	example := filepath.Join("..", "..", "..", "examples", "sita")
	p := pooltest.New(t)
	personal, err := os.ReadFile(filepath.Join(example, "personal.toml"))
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(p.Dir, "kite.toml")
	f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append([]byte("\n"), personal...))
	f.Close()
	if p.Config, err = config.Load(conf); err != nil {
		t.Fatal(err)
	}
	start.Collector(t, p)
	start.Negotiator(t, p, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator:1", 5*time.Millisecond, time.Second
	})
	start.Schedd(t, p, "schedd:1", nil)
	start.Startd(t, p, "startd:1", "sita", nil)
	pl := &pool{t: t, p: p, user: p.Client("schedd:1", "alice", auth.Write)}

	// The example's jobs, their run times set to 0.
	dir := t.TempDir()
	sizes, err := os.ReadFile(filepath.Join(example, "sizes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var quick []string
	var want []float64
	for _, line := range strings.Split(string(sizes), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 2 || strings.HasPrefix(line, "#") {
			continue
		}
		size, _ := strconv.ParseFloat(fields[0], 64)
		want = append(want, size)
		quick = append(quick, fields[0]+" 0")
	}
	os.WriteFile(filepath.Join(dir, "sizes.txt"), []byte(strings.Join(quick, "\n")+"\n"), 0o644)
	sub, err := os.ReadFile(filepath.Join(example, "paper.sub"))
	if err != nil {
		t.Fatal(err)
	}
	c := pl.submit(dir, string(sub))
	if len(want) != 400 {
		t.Fatalf("%d sizes in the example, want 400", len(want))
	}

	// Wait until every job has left the queue, then read where each ran.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var tot wire.QueueTotals
		if err := pl.user.Call(context.Background(), "GET", wire.PathTotals, nil, &tot); err != nil {
			t.Fatal(err)
		}
		if tot.All.Held > 0 {
			var held *classad.Ad
			q := wire.JobQuery{JobSelection: wire.JobSelection{Constraint: "JobStatus == 5"}, Limit: 1}
			pl.user.Stream(context.Background(), "POST", wire.PathQueue, q, func(item json.RawMessage) error {
				held, _ = classad.ParseJSON(item)
				return nil
			})
			t.Fatalf("%d jobs held, e.g. %s.%s: %s", tot.All.Held, str(held, "ClusterId"), str(held, "ProcId"), str(held, "HoldReason"))
		}
		if tot.All.Jobs == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs still queued: %+v", tot.All)
		}
		time.Sleep(50 * time.Millisecond)
	}
	iv, err := sita.Pareto{K: 1e4, P: 1e7, A: 1.01}.Boundaries(4)
	if err != nil {
		t.Fatal(err)
	}
	var history []*classad.Ad
	q := wire.HistoryQuery{IDs: []string{strconv.FormatInt(c, 10)}}
	err = pl.user.Stream(context.Background(), "POST", wire.PathHistory, q, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		history = append(history, ad)
		return err
	})
	if err != nil || len(history) != 400 {
		t.Fatalf("%d jobs in the history (%v), want 400", len(history), err)
	}
	loads := make([]float64, 4)
	for _, ad := range history {
		size, _ := strconv.ParseFloat(str(ad, "ImageSize"), 64)
		host := str(ad, "LastRemoteHost")
		if host == "" || host == "undefined" {
			host = str(ad, "RemoteHost")
		}
		slot, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(host, "slot"), "@sita"))
		ran := (slot-1)/4 + 1 // four slots per interval, as personal.toml's table says
		if want := iv.Of(size); ran != want || str(ad, "JobStatus") != "4" {
			t.Errorf("job %s.%s of size %v ran on %s (interval %d), want interval %d; status %s",
				str(ad, "ClusterId"), str(ad, "ProcId"), size, host, ran, want, str(ad, "JobStatus"))
		}
		loads[ran-1] += size
	}
	wantLoads := []float64{9.0e6, 8.0e6, 8.0e6, 12.8e6}
	for i := range loads {
		if loads[i] != wantLoads[i] {
			t.Errorf("load of interval %d = %v, want %v (paper 003)", i+1, loads[i], wantLoads[i])
		}
	}
}
