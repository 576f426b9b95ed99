package dag

import (
	"bytes"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// outcome is what a node's script or job returns in a scripted run: by
// node name, the values of its successive PRE, job and POST runs.
type outcome struct {
	pre, job, post []int
}

// simulate runs a DAG to the end: every startable node is started in
// order, and its PRE, job and POST return the next scripted value (0
// once the script runs out). It returns the order of events, "A:pre=0",
// "A:job=1", ...
func simulate(t *testing.T, r *Run, script map[string]*outcome) []string {
	t.Helper()
	var log []string
	next := func(vals *[]int) int {
		if len(*vals) == 0 {
			return 0
		}
		v := (*vals)[0]
		*vals = (*vals)[1:]
		return v
	}
	for guard := 0; !r.Finished(); guard++ {
		if guard > 1000 {
			t.Fatal("the run does not finish")
		}
		for _, i := range r.Startable() {
			name := r.DAG.Nodes[i].Name
			o := script[name]
			if o == nil {
				o = &outcome{}
			}
			for step := r.Start(i); step != StepNone; {
				checkCounts(t, r)
				switch step {
				case StepPre:
					v := next(&o.pre)
					log = append(log, fmt.Sprintf("%s:pre=%d", name, v))
					step = r.PreDone(i, v)
				case StepSubmit:
					v := next(&o.job)
					log = append(log, fmt.Sprintf("%s:job=%d", name, v))
					r.Submitted(i, int64(100+i), "")
					step = r.JobDone(i, v)
				case StepPost:
					v := next(&o.post)
					log = append(log, fmt.Sprintf("%s:post=%d", name, v))
					step = r.PostDone(i, v)
				}
			}
		}
	}
	checkCounts(t, r)
	return log
}

// checkCounts checks the counts Run keeps as nodes change (Active,
// Failed, Status) against a count of every node.
func checkCounts(t *testing.T, r *Run) {
	t.Helper()
	c := r.Counts()
	if got, want := r.Active(), c.Pre+c.Queued+c.Post; got != want {
		t.Fatalf("Active() = %d, the nodes say %d (%+v)", got, want, c)
	}
	if r.Failed() != c.Failed {
		t.Fatalf("Failed() = %d, the nodes say %d", r.Failed(), c.Failed)
	}
	if f := r.DAG.Final; (f < 0 || !r.Nodes[f].Status.finished()) && !r.Removed && !r.Aborted {
		if failed := c.Failed+c.Futile > 0; failed != (r.Status() == DAGFailed) {
			t.Fatalf("Status() = %d with %d failed and %d futile nodes", r.Status(), c.Failed, c.Futile)
		}
	}
}

func mustParse(t *testing.T, src string) *DAG {
	t.Helper()
	d, err := Parse("t.dag", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The rules of a node's result, retries and the DAG's (the HTCondor
// manual, dagman-completion.rst "Node success or failure", "Retrying
// failed nodes", "Stopping the entire DAG"; dagman-advance-functionality.rst
// "FINAL node"; dagman-reference.rst "PRE_SKIP").
func TestRunRules(t *testing.T) {
	tests := []struct {
		name, dag string
		script    map[string]*outcome
		want      string // the events
		status    int    // DAG_Status
		exit      int
		states    string // each node's final state
	}{{
		name: "diamond", dag: "JOB A a\nJOB B b\nJOB C c\nJOB D d\nPARENT A CHILD B C\nPARENT B C CHILD D\n",
		want: "A:job=0 B:job=0 C:job=0 D:job=0", status: DAGOK, exit: 0, states: "A=DONE B=DONE C=DONE D=DONE",
	}, {
		name:   "the POST script decides, even after a failed job",
		dag:    "JOB A a\nSCRIPT POST A p\nJOB B b\nPARENT A CHILD B\n",
		script: map[string]*outcome{"A": {job: []int{3}}},
		want:   "A:job=3 A:post=0 B:job=0", status: DAGOK, states: "A=DONE B=DONE",
	}, {
		name:   "a failed PRE skips the job and POST; children are futile",
		dag:    "JOB A a\nSCRIPT PRE A p\nSCRIPT POST A q\nJOB B b\nPARENT A CHILD B\n",
		script: map[string]*outcome{"A": {pre: []int{2}}},
		want:   "A:pre=2", status: DAGFailed, exit: 1, states: "A=ERROR B=FUTILE",
	}, {
		name:   "PRE_SKIP succeeds the node without its job",
		dag:    "JOB A a\nSCRIPT PRE A p\nPRE_SKIP A 7\nJOB B b\nPARENT A CHILD B\n",
		script: map[string]*outcome{"A": {pre: []int{7}}},
		want:   "A:pre=7 B:job=0", states: "A=DONE B=DONE",
	}, {
		name:   "RETRY runs PRE, job and POST again",
		dag:    "JOB A a\nSCRIPT PRE A p\nRETRY A 2\n",
		script: map[string]*outcome{"A": {job: []int{1, 1, 0}}},
		want:   "A:pre=0 A:job=1 A:pre=0 A:job=1 A:pre=0 A:job=0", states: "A=DONE",
	}, {
		name:   "retries run out",
		dag:    "JOB A a\nRETRY A 1\n",
		script: map[string]*outcome{"A": {job: []int{1, 1, 0}}},
		want:   "A:job=1 A:job=1", status: DAGFailed, exit: 1, states: "A=ERROR",
	}, {
		name:   "UNLESS-EXIT stops the retries",
		dag:    "JOB A a\nRETRY A 5 UNLESS-EXIT 4\n",
		script: map[string]*outcome{"A": {job: []int{1, 4, 0}}},
		want:   "A:job=1 A:job=4", status: DAGFailed, exit: 1, states: "A=ERROR",
	}, {
		name:   "ABORT-DAG-ON overrides retry; nothing else starts; RETURN is the exit",
		dag:    "JOB A a\nJOB B b\nRETRY A 3\nABORT-DAG-ON A 9 RETURN 4\nPARENT A CHILD B\nJOB C c\nPARENT B CHILD C\n",
		script: map[string]*outcome{"A": {job: []int{9}}},
		want:   "A:job=9", status: DAGAborted, exit: 4, states: "A=ERROR B=FUTILE C=FUTILE",
	}, {
		name:   "ABORT-DAG-ON on a job's value applies only with no POST script",
		dag:    "JOB A a\nSCRIPT POST A p\nABORT-DAG-ON A 9\nJOB B b\nPARENT A CHILD B\n",
		script: map[string]*outcome{"A": {job: []int{9}}},
		want:   "A:job=9 A:post=0 B:job=0", states: "A=DONE B=DONE",
	}, {
		name:   "FINAL runs last, after a failure, and decides the DAG",
		dag:    "JOB A a\nJOB B b\nPARENT A CHILD B\nFINAL F f\n",
		script: map[string]*outcome{"A": {job: []int{1}}},
		want:   "A:job=1 F:job=0", status: DAGOK, exit: 0, states: "A=ERROR B=FUTILE F=DONE",
	}, {
		name:   "a failed FINAL fails the DAG",
		dag:    "JOB A a\nFINAL F f\n",
		script: map[string]*outcome{"F": {job: []int{2}}},
		want:   "A:job=0 F:job=2", status: DAGFailed, exit: 1, states: "A=DONE F=ERROR",
	}, {
		name:   "a WEAK child runs after its parent fails",
		dag:    "JOB A a\nJOB B b\nWEAK PARENT A CHILD B\n",
		script: map[string]*outcome{"A": {job: []int{1}}},
		want:   "A:job=1 B:job=0", status: DAGFailed, exit: 1, states: "A=ERROR B=DONE",
	}, {
		name: "NOOP nodes run their scripts but no job; DONE nodes nothing",
		dag:  "JOB A a NOOP\nSCRIPT POST A p $RETURN\nJOB B b DONE\nJOB C c\nPARENT A B CHILD C\n",
		want: "A:post=0 C:job=0", states: "A=DONE B=DONE C=DONE",
	}, {
		name: "PRIORITY orders startable nodes",
		dag:  "JOB A a\nJOB B b\nJOB C c\nPRIORITY C 10\nPRIORITY B 5\n",
		want: "C:job=0 B:job=0 A:job=0", states: "A=DONE B=DONE C=DONE",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRun(mustParse(t, tc.dag))
			got := strings.Join(simulate(t, r, tc.script), " ")
			if got != tc.want {
				t.Errorf("events %q, want %q", got, tc.want)
			}
			if r.Status() != tc.status || r.ExitCode() != tc.exit {
				t.Errorf("status %d exit %d, want %d %d", r.Status(), r.ExitCode(), tc.status, tc.exit)
			}
			var states []string
			for i, n := range r.DAG.Nodes {
				states = append(states, n.Name+"="+strings.TrimPrefix(r.Nodes[i].Status.String(), "STATUS_"))
			}
			if s := strings.Join(states, " "); s != tc.states {
				t.Errorf("states %s, want %s", s, tc.states)
			}
		})
	}
}

// A removed DAG starts nothing more but its FINAL node; Changed reports
// each changed node once with its old state, and Undo restores it.
func TestRunRemoveAndUndo(t *testing.T) {
	r := NewRun(mustParse(t, "JOB A a\nJOB B b\nPARENT A CHILD B\nFINAL F f\n"))
	r.Changed()
	if r.Start(0) != StepSubmit {
		t.Fatal("A should be submitted")
	}
	r.Submitted(0, 7, "")
	ch := r.Changed()
	if len(ch) != 1 || ch[0].Node != 0 || ch[0].Old.Status != NotReady {
		t.Fatalf("changed %+v", ch)
	}
	r.Remove()
	r.JobDone(0, ReturnRemoved)
	if got := r.Startable(); len(got) != 1 || got[0] != 2 {
		t.Fatalf("startable %v, want the FINAL node only", got)
	}
	changes := r.Changed()
	r.Undo(changes)
	if r.Nodes[0].Status != Submitted || r.Nodes[0].Cluster != 7 || r.Nodes[1].Status != NotReady {
		t.Errorf("after undo: %+v", r.Nodes)
	}
}

// A rescue DAG round trip (dagman-completion.rst "The Rescue DAG"): the
// header in HTCondor's format, a DONE line per finished node (never the
// FINAL one), and applied over the DAG, only the rest runs.
func TestRescueRoundTrip(t *testing.T) {
	src := "JOB A a\nJOB B b\nJOB C c\nJOB D d\nPARENT A CHILD B C\nPARENT B C CHILD D\nFINAL F f\n"
	d := mustParse(t, src)
	r := NewRun(d)
	simulate(t, r, map[string]*outcome{"C": {job: []int{1}}})
	var b bytes.Buffer
	if err := WriteRescue(&b, r, time.Date(2025, 5, 13, 14, 2, 11, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	want := `# Rescue DAG file, created after running
#   the t.dag DAG file
# Created 5/13/2025 14:02:11 UTC
# Rescue DAG version: 2.1.0
#
# Total number of Nodes: 5
# Nodes premarked DONE: 2
# Nodes that failed: 1
#   C,<ENDLIST>

DONE A
DONE B
`
	if b.String() != want {
		t.Fatalf("rescue DAG:\n%s\nwant:\n%s", b.String(), want)
	}
	d2 := mustParse(t, src)
	if err := ApplyRescue(d2, "t.dag.rescue001", b.Bytes()); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(simulate(t, NewRun(d2), nil), " ")
	if got != "C:job=0 D:job=0 F:job=0" {
		t.Errorf("from the rescue DAG: %s", got)
	}
	err := ApplyRescue(mustParse(t, src), "bad.rescue", []byte("DONE A\nDONE Z\nJOB X x\n"))
	if err == nil || !strings.Contains(err.Error(), "bad.rescue:2:6: node Z is not in t.dag") || !strings.Contains(err.Error(), "bad.rescue:3:1:") {
		t.Errorf("bad rescue DAG: %v", err)
	}
}

// BenchmarkParse1M parses and checks a DAG of a million nodes: a fan-out
// and a fan-in stage around a chain (the target: under 5 s).
func BenchmarkParse1M(b *testing.B) {
	const n = 1_000_000
	var src strings.Builder
	src.WriteString("JOB root job.sub\nJOB sink job.sub\n")
	for i := range n - 2 {
		fmt.Fprintf(&src, "JOB n%d job.sub\nVARS n%d index=\"%d\"\n", i, i, i)
		if i < n/2 {
			fmt.Fprintf(&src, "PARENT root CHILD n%d\nPARENT n%d CHILD sink\n", i, i)
		} else if i > n/2 {
			fmt.Fprintf(&src, "PARENT n%d CHILD n%d\n", i-1, i)
		}
	}
	data := []byte(src.String())
	b.SetBytes(int64(len(data)))
	cpu0 := cpuTime(b)
	for b.Loop() {
		d, err := Parse("big.dag", data, Options{})
		if err != nil || len(d.Nodes) != n {
			b.Fatal(err)
		}
	}
	// the process's CPU time (the GC's included) says more than the wall
	// clock on a loaded machine
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// PROVISIONER and SERVICE nodes (dagman-advance-functionality.rst,
// "PROVISIONER Node" and "SERVICE Node"): the provisioner starts first and
// the other nodes wait until its job says it is ready; the DAG waits for
// the provisioner's job but not for SERVICE nodes, whose failure does not
// fail it; a provisioner job that ends before it is ready stops the DAG.
func TestProvisionerAndService(t *testing.T) {
	const src = "PROVISIONER P p\nSERVICE S s\nJOB A a\nJOB B b\nPARENT A CHILD B\n"
	names := func(r *Run, idx []int) string {
		var out []string
		for _, i := range idx {
			out = append(out, r.DAG.Nodes[i].Name)
		}
		return strings.Join(out, " ")
	}
	submit := func(t *testing.T, r *Run, name string) int {
		t.Helper()
		i := r.DAG.Node(name)
		if step := r.Start(i); step != StepSubmit {
			t.Fatalf("starting %s: step %v", name, step)
		}
		r.Submitted(i, int64(100+i), "")
		return i
	}
	t.Run("ready", func(t *testing.T) {
		r := NewRun(mustParse(t, src))
		if got := names(r, r.Startable()); got != "P S" {
			t.Fatalf("startable first: %q, want the provisioner and the service", got)
		}
		p, s := submit(t, r, "P"), submit(t, r, "S")
		if got := names(r, r.Startable()); got != "" || r.Finished() {
			t.Fatalf("before the provisioner is ready: startable %q, finished %v", got, r.Finished())
		}
		r.SetProvisionerReady()
		if got := names(r, r.Startable()); got != "A" {
			t.Fatalf("once ready: startable %q", got)
		}
		r.JobDone(submit(t, r, "A"), 0)
		r.JobDone(submit(t, r, "B"), 0)
		if r.Finished() {
			t.Fatal("finished while the provisioner's job runs")
		}
		r.JobDone(p, 0)
		if !r.Finished() || names(r, r.RunningServices()) != "S" {
			t.Fatalf("finished %v, services running %q", r.Finished(), names(r, r.RunningServices()))
		}
		r.JobDone(s, ReturnRemoved) // removed at the end: a failure that does not count
		if r.Status() != DAGOK || r.ExitCode() != 0 || r.Counts().Total != 3 {
			t.Errorf("status %d, exit %d, counts %+v", r.Status(), r.ExitCode(), r.Counts())
		}
	})
	t.Run("provisioner ends before it is ready", func(t *testing.T) {
		r := NewRun(mustParse(t, src))
		p := submit(t, r, "P")
		submit(t, r, "S")
		r.JobDone(p, 0)
		if !r.Finished() || r.Status() != DAGAborted || r.ExitCode() != 1 || r.Nodes[r.DAG.Node("A")].Status != NotReady {
			t.Errorf("finished %v, status %d, exit %d, A %v", r.Finished(), r.Status(), r.ExitCode(), r.Nodes[r.DAG.Node("A")].Status)
		}
	})
	t.Run("FINAL does not wait for a SERVICE node that has not started", func(t *testing.T) {
		r := NewRun(mustParse(t, "SERVICE S s\nJOB A a\nFINAL F f\n"))
		r.JobDone(submit(t, r, "A"), 0)
		if got := names(r, r.Startable()); got != "S F" || r.Finished() {
			t.Errorf("startable %q, finished %v; want S and F, not finished", got, r.Finished())
		}
	})
	t.Run("a provisioner DONE in a rescue DAG is ready", func(t *testing.T) {
		d := mustParse(t, src)
		if err := ApplyRescue(d, "t.dag.rescue001", []byte("DONE P\n")); err != nil {
			t.Fatal(err)
		}
		if got := names(NewRun(d), NewRun(d).Startable()); got != "S A" {
			t.Errorf("startable: %q", got)
		}
	})
}
