package dag

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"
)

// WriteDOT writes the DAG as a Graphviz graph (the DOT command,
// dagman-information-files.rst "Visualizing DAGs"): one box per node
// labelled with its name and, when a run is given, its state.
func WriteDOT(w io.Writer, d *DAG, r *Run, include []byte) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "digraph DAG {\n")
	if len(include) > 0 {
		b.Write(include)
		if include[len(include)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	for i, n := range d.Nodes {
		label := n.Name
		if r != nil {
			label += " - " + r.Nodes[i].Status.String()[len("STATUS_"):]
		}
		shape := "ellipse"
		if n.Kind == KindFinal {
			shape = "doubleoctagon"
		}
		fmt.Fprintf(b, "    %s [shape=%s label=%s];\n", strconv.Quote(n.Name), shape, strconv.Quote(label))
	}
	for _, n := range d.Nodes {
		for _, c := range n.Children {
			fmt.Fprintf(b, "    %s -> %s;\n", strconv.Quote(n.Name), strconv.Quote(d.Nodes[c].Name))
		}
	}
	for i, n := range d.Nodes {
		for _, p := range n.Weak {
			fmt.Fprintf(b, "    %s -> %s [style=dashed];\n", strconv.Quote(d.Nodes[p].Name), strconv.Quote(d.Nodes[i].Name))
		}
	}
	fmt.Fprintf(b, "}\n")
	return b.Flush()
}

// WriteNodeStatus writes the NODE_STATUS_FILE of a run in HTCondor's
// format (dagman-information-files.rst "Node Status File"): a DagStatus
// ad, one NodeStatus ad per node, and a StatusEnd ad (NextUpdate 0 once
// the run is finished).
func WriteNodeStatus(w io.Writer, r *Run, now time.Time, next time.Time) error {
	b := bufio.NewWriter(w)
	c := r.Counts()
	fmt.Fprintf(b, "[\n  Type = \"DagStatus\";\n  DagFiles = {\n    %s\n  };\n", strconv.Quote(path0(r.DAG.File)))
	fmt.Fprintf(b, "  Timestamp = %d; /* %q */\n", now.Unix(), now.UTC().Format(time.ANSIC))
	fmt.Fprintf(b, "  DagStatus = %d; /* %q */\n", r.Status(), dagStatusNote(r))
	for _, kv := range []struct {
		k string
		v int
	}{{"NodesTotal", c.Total}, {"NodesDone", c.Done}, {"NodesPre", c.Pre}, {"NodesQueued", c.Queued},
		{"NodesPost", c.Post}, {"NodesReady", c.Ready}, {"NodesUnready", c.Unready}, {"NodesFutile", c.Futile}, {"NodesFailed", c.Failed}} {
		fmt.Fprintf(b, "  %s = %d;\n", kv.k, kv.v)
	}
	fmt.Fprintf(b, "]\n")
	for i, n := range r.DAG.Nodes {
		s := r.Nodes[i]
		fmt.Fprintf(b, "[\n  Type = \"NodeStatus\";\n  Node = %s;\n  NodeStatus = %d; /* %q */\n", strconv.Quote(n.Name), int(s.Status), s.Status.String())
		fmt.Fprintf(b, "  StatusDetails = %s;\n  RetryCount = %d;\n]\n", strconv.Quote(s.Detail), s.Retries)
	}
	nextUpdate := int64(0)
	if !r.Finished() {
		nextUpdate = next.Unix()
	}
	fmt.Fprintf(b, "[\n  Type = \"StatusEnd\";\n  EndTime = %d;\n  NextUpdate = %d;\n]\n", now.Unix(), nextUpdate)
	return b.Flush()
}

func dagStatusNote(r *Run) string {
	switch r.Status() {
	case DAGOK:
		if r.Finished() {
			return "success"
		}
		return ""
	case DAGAborted:
		return "aborted"
	case DAGRemoved:
		return "removed"
	}
	return "failed"
}
