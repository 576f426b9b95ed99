package cli

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// printDAGs prints condor_q -dag: each DAG the schedd runs on a line of
// its own (its id, owner, file, node counts), then its nodes indented
// under it with their state, retries and job; -long and -json print the
// DAGs' ads (DAG_NodesTotal, DAG_NodesDone, DAG_Status ...).
func (o *qOptions) printDAGs(ctx context.Context, w io.Writer, s *scheddConn, q wire.JobQuery) error {
	dq := wire.DAGQuery{Owners: q.Owners}
	for _, id := range q.IDs {
		c, _, _ := strings.Cut(id, ".")
		if n, err := strconv.ParseInt(c, 10, 64); err == nil {
			dq.IDs = append(dq.IDs, n)
		}
	}
	var infos []wire.DAGInfo
	if err := s.client.Call(ctx, "POST", wire.PathDAGs, dq, &infos); err != nil {
		return err
	}
	ads := make([]*classad.Ad, len(infos))
	for i, info := range infos {
		ad, err := classad.ParseJSON(info.Ad)
		if err != nil {
			return err
		}
		ads[i] = ad
	}
	switch {
	case o.long:
		return printLong(w, ads)
	case o.json:
		return printJSON(w, ads)
	}
	return dagTable(ads, infos).write(w)
}

// dagTable is the DAGs and their nodes.
func dagTable(ads []*classad.Ad, infos []wire.DAGInfo) *table {
	headers := []string{"ID", "OWNER/NODENAME", "STATUS", "DONE", "QUEUED", "FAILED", "TOTAL", "RETRY", "JOB", "DETAIL"}
	t := &table{headers: headers, right: make([]bool, len(headers))}
	for i := 3; i < 9; i++ {
		t.right[i] = true
	}
	for i, ad := range ads {
		t.add(str(ad, attr.ClusterID)+".0", str(ad, attr.Owner), "DAG "+dagStatusName(ad), str(ad, attr.DAGNodesDone),
			str(ad, attr.DAGNodesQueued), str(ad, attr.DAGNodesFailed), str(ad, attr.DAGNodesTotal), "", "", str(ad, attr.DAGFile))
		for _, n := range infos[i].Nodes {
			job := ""
			if n.Cluster != 0 {
				job = strconv.FormatInt(n.Cluster, 10)
			}
			t.add("", " |-"+n.Name, strings.TrimPrefix(n.Status, "STATUS_"), "", "", "", "", strconv.Itoa(n.Retries), job, n.Detail)
		}
	}
	return t
}

// dagStatusName names a DAG ad's DAG_Status, "running" (or "held") until
// it ends.
func dagStatusName(ad *classad.Ad) string {
	if _, done := ad.Lookup(attr.ExitCode); !done {
		if str(ad, attr.JobStatus) == strconv.Itoa(attr.Held) {
			return "held"
		}
		return "running"
	}
	switch str(ad, attr.DAGStatus) {
	case "0":
		return "done"
	case "3":
		return "aborted"
	case "4":
		return "removed"
	}
	return "failed"
}
