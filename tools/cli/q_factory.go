package cli

import (
	"context"
	"io"
	"strconv"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// printFactories prints condor_q -factory: one line per job factory (a
// cluster submitted with max_idle or max_materialize whose procs are not
// all made yet), or the factories' cluster ads with -long or -json.
func (o *qOptions) printFactories(ctx context.Context, w io.Writer, s *scheddConn, q wire.JobQuery) error {
	q.Factories = true
	if !o.long && !o.json {
		q.Projection = nil
	}
	var ads []*classad.Ad
	if err := streamAds(ctx, s.client, wire.PathQueue, q, func(ad *classad.Ad) error { ads = append(ads, ad); return nil }); err != nil {
		return err
	}
	switch {
	case o.long:
		return printLong(w, ads)
	case o.json:
		return printJSON(w, ads)
	}
	return factoryTable(ads).write(w)
}

// factoryTable is condor_q -factory's table (HTCondor 25): the cluster
// as "77.", its limit, the jobs present, running, idle and held, the
// next proc id, and MODE "Held" while a hold pauses it. Kite keeps a
// factory's procs in its queue, not in a digest file: there is no DIGEST
// column.
func factoryTable(ads []*classad.Ad) *table {
	headers := []string{"ID", "OWNER", "SUBMITTED", "LIMIT", "PRESNT", "RUN", "IDLE", "HOLD", "NEXTID", "MODE"}
	t := &table{headers: headers, right: make([]bool, len(headers))}
	for i := 3; i < 9; i++ {
		t.right[i] = true
	}
	for _, ad := range ads {
		mode := ""
		if str(ad, attr.JobMaterializePaused) == "1" {
			mode = "Held"
		}
		qdate, _ := strconv.ParseInt(str(ad, attr.QDate), 10, 64)
		t.add(str(ad, attr.ClusterID)+".", str(ad, attr.Owner), shortDate(qdate), str(ad, attr.JobMaterializeLimit),
			str(ad, attr.JobsPresent), str(ad, attr.JobsRunning), str(ad, attr.JobsIdle), str(ad, attr.JobsHeld),
			str(ad, attr.JobMaterializeNextProcId), mode)
	}
	return t
}
