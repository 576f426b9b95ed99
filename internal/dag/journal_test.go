package dag

import (
	"strings"
	"testing"
	"time"
)

// The jobstate log's lines are the manual's (dagman-information-files.rst
// "Machine-Readable Event History", its example with JobTag local), and
// .dagman.out's lines are dated as condor_dagman dates them.
func TestJournalLines(t *testing.T) {
	at := time.Unix(1292620525, 0).UTC()
	tests := []struct {
		e         Event
		jobstate  string
		dagmanOut string
	}{
		{Event{Node: "NodeA", Name: "PRE_SCRIPT_STARTED", Tag: "local", Seq: 1},
			"1292620525 NodeA PRE_SCRIPT_STARTED - local - 1", "12/17/10 21:15:25 Node NodeA: PRE script started (seq 1)"},
		{Event{Node: "NodeA", Name: "SUBMIT", ID: "4973.0", Tag: "local", Seq: 1},
			"1292620525 NodeA SUBMIT 4973.0 local - 1", "12/17/10 21:15:25 Node NodeA: job submitted (4973.0, seq 1)"},
		{Event{Node: "NodeA", Name: "JOB_SUCCESS", ID: "0", Tag: "local", Seq: 1},
			"1292620525 NodeA JOB_SUCCESS 0 local - 1", "12/17/10 21:15:25 Node NodeA: job(s) succeeded, return 0 (seq 1)"},
		{Event{Node: "B", Name: "POST_SCRIPT_FAILURE", ID: "12.0", Seq: 4, Note: "exit 2"},
			"1292620525 B POST_SCRIPT_FAILURE 12.0 - - 4", "12/17/10 21:15:25 Node B: POST script failed, exit 2 (12.0, seq 4)"},
	}
	for _, tt := range tests {
		if got := string(AppendJobstate(nil, at, tt.e)); got != tt.jobstate+"\n" {
			t.Errorf("jobstate %+v: %q, want %q", tt.e, got, tt.jobstate)
		}
		if got := string(AppendOutEvent(nil, at, tt.e)); got != tt.dagmanOut+"\n" {
			t.Errorf(".dagman.out %+v: %q, want %q", tt.e, got, tt.dagmanOut)
		}
	}
	if got := string(AppendJobstateMeta(nil, at, "DAGMAN_STARTED 4972.0")); got != "1292620525 INTERNAL *** DAGMAN_STARTED 4972.0 ***\n" {
		t.Errorf("meta line %q", got)
	}
}

// Each start of a node, a retry's too, takes the next sequence number;
// a rebuilt run (after a restart) goes on from the highest stored.
func TestSequenceNumbers(t *testing.T) {
	d, err := Parse("s.dag", []byte("JOB A a.sub\nJOB B b.sub\nRETRY B 1\nPARENT A CHILD B\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRun(d)
	r.Start(0)
	r.JobDone(0, 0)
	r.Start(1)
	r.JobDone(1, 1) // fails: B is retried
	if r.Nodes[0].Seq != 1 || r.Nodes[1].Seq != 2 {
		t.Fatalf("seqs %d %d", r.Nodes[0].Seq, r.Nodes[1].Seq)
	}
	again := NewRun(d)
	copy(again.Nodes, r.Nodes)
	again.Rebuild()
	again.Start(1)
	if again.Nodes[1].Seq != 3 {
		t.Errorf("the retry after a rebuild has seq %d, want 3", again.Nodes[1].Seq)
	}
	var b []byte
	b = AppendOutStatus(b, time.Unix(0, 0).UTC(), again)
	if !strings.Contains(string(b), "Of 2 nodes total:") || !strings.HasSuffix(string(b), "    1       0        1       0       0          0        0        0\n") {
		t.Errorf("the status table:\n%s", b)
	}
}

// Where save point files go (dagman-completion.rst, "DAG Save Point
// Files"): a bare name in save_files/, a path from the DAG's directory.
func TestSavePointPath(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"A-x.dag.save", "/w/dags/save_files/A-x.dag.save"},
		{"./D.save", "/w/dags/D.save"},
		{"../example/C.save", "/w/example/C.save"},
		{"/abs/B.save", "/abs/B.save"},
	} {
		if got := SavePointPath("/w/dags", c.name); got != c.want {
			t.Errorf("SavePointPath(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
