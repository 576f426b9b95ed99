package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/wire"
)

// restartablePool is newPool with one two-slot startd, whose schedd a
// test may stop and start again: restart calls between, with the schedd
// stopped.
func restartablePool(t *testing.T) (*pool, func(between func())) {
	return restartablePoolSlots(t, 2)
}

// restartablePoolSlots is restartablePool with a startd of slots slots.
func restartablePoolSlots(t *testing.T, slots int) (*pool, func(between func())) {
	p := pooltest.New(t)
	p.Config.Startd.Slots, p.Config.Startd.Cpus, p.Config.Startd.Partitionable = slots, slots, false
	p.Config.Startd.Memory = 1024
	start.Collector(t, p)
	start.Negotiator(t, p, func(c *negotiator.Config) {
		c.Listen, c.CycleDelay, c.Interval = "negotiator:1", 5*time.Millisecond, time.Second
	})
	lease := func(c *schedd.Config) { c.ClaimLease = 3 * time.Second }
	sd := start.Schedd(t, p, "schedd:1", lease)
	pl := &pool{t: t, p: p, user: p.Client("schedd:1", "alice", auth.Write),
		admin: p.Client("schedd:1", "root", auth.Administrator), startd: map[string]*startd.Server{}}
	pl.startd["a"] = start.Startd(t, p, "startd-0:1", "a", nil)
	restart := func(between func()) {
		start.Stop(t, sd)
		between()
		sd = start.Schedd(t, p, "schedd:1", lease)
	}
	return pl, restart
}

// A finished DAG leaves the schedd's live store in the transaction that
// records its end, and its ad goes to the history, as the DAGMan job's
// does when condor_dagman exits (the HTCondor manual, dagman-interaction.rst
// "DAG Monitoring": the DAGMan job's ad carries DAG_NodesDone ... and
// DAG_Status; it is a scheduler universe job). kite submit_dag --wait
// still finds it, after a restart from the record of its end that the
// schedd keeps, with its final nodes.
func TestDAGRetiredToHistory(t *testing.T) {
	pl, restart := restartablePool(t)
	dir := dagDir(t, map[string]string{
		"diamond.dag": "JOB A job.sub\nJOB B job.sub\nJOB C job.sub\nJOB D job.sub\nPARENT A CHILD B C\nPARENT B C CHILD D\n",
	})
	id := pl.submitDAG(dir, "diamond.dag", "")
	ad, nodes := pl.waitDAG(id)
	if intAttr(t, ad, attr.ExitCode) != 0 || len(nodes) != 4 {
		t.Fatalf("the finished DAG, from memory: %v %v", ad, nodes)
	}
	hist := pl.dagHistory(id)
	if hist == nil {
		t.Fatal("the finished DAG's ad is not in the history")
	}
	for name, want := range map[string]int64{attr.JobUniverse: 7, attr.DAGNodesDone: 4, attr.DAGNodesTotal: 4, attr.ExitCode: 0, attr.JobStatus: attr.Completed} {
		if got := intAttr(t, hist, name); got != want {
			t.Errorf("the DAG's history ad: %s = %d, want %d", name, got, want)
		}
	}

	restart(func() {
		if n := storedDAGRecords(t, pl.p); n != 0 {
			t.Errorf("the live store holds %d record(s) of DAGs after the only DAG finished", n)
		}
	})
	ad, nodes = pl.dagInfo(id)
	if intAttr(t, ad, attr.ExitCode) != 0 || intAttr(t, ad, attr.DAGNodesDone) != 4 || len(nodes) != 4 || nodes[3].Status != "STATUS_DONE" {
		t.Errorf("the finished DAG after a restart, from its kept record: %v %v", ad, nodes)
	}
	var running []wire.DAGInfo
	if err := pl.user.Call(context.Background(), "POST", wire.PathDAGs, wire.DAGQuery{}, &running); err != nil || len(running) != 0 {
		t.Errorf("kite q -dag lists %d DAG(s) (%v), want none running", len(running), err)
	}
}

// dagHistory returns a DAG's ad from the history, or nil.
func (pl *pool) dagHistory(id int64) *classad.Ad {
	pl.t.Helper()
	var found *classad.Ad
	q := wire.HistoryQuery{IDs: []string{strconv.FormatInt(id, 10) + ".0"}}
	each := func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err != nil {
			return err
		}
		found = ad
		return nil
	}
	if err := pl.user.Stream(context.Background(), "POST", wire.PathHistory, q, each); err != nil {
		pl.t.Fatal(err)
	}
	return found
}

// storedDAGRecords counts the DAG records in the store of the stopped
// schedd.
func storedDAGRecords(t *testing.T, p *pooltest.Pool) int {
	t.Helper()
	q, err := queue.Open(schedd.QueuePath(filepath.Join(p.Dir, "spool-schedd:1")), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	n := 0
	for _, prefix := range []string{"dag/", "dagn/"} {
		if err := q.Aux(prefix, func(string, []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return n
}
