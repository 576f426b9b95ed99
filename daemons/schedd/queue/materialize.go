package queue

import (
	"github.com/kite-sched/kite/classad"
)

// Materializer makes whole job ads for evaluation without copying the
// cluster's ad for every job: it keeps one copy per cluster and lays each
// job's own attributes over it, so evaluating a constraint over 100 000
// jobs of one cluster copies one ad, not 100 000, and the cluster's
// expressions stay compiled. The ad it returns is valid until the next
// call; a Materializer is for one goroutine.
type Materializer struct {
	cluster *classad.Ad
	ad      *classad.Ad
	over    []string // names the last job laid over the cluster's
}

// Ad returns the job's whole ad.
func (m *Materializer) Ad(v *View) *classad.Ad {
	if m.cluster != v.Cluster {
		m.cluster, m.ad, m.over = v.Cluster, v.Cluster.Clone(), m.over[:0]
	} else {
		m.restore(v.Own)
	}
	for i := range v.Own.Len() {
		name, e := v.Own.Name(i), v.Own.Expr(i)
		if deleted(e) {
			m.ad.Delete(name)
		} else {
			m.ad.Set(name, e)
		}
		m.over = append(m.over, name)
	}
	return m.ad
}

// restore puts back the cluster's value of each attribute the last job
// set and the next one (whose own ad is own) does not.
func (m *Materializer) restore(own *classad.Ad) {
	for _, name := range m.over {
		if i := own.Index(name); i >= 0 && !deleted(own.Expr(i)) {
			continue // the next job sets it anyway
		}
		if e, ok := m.cluster.Lookup(name); ok {
			m.ad.Set(name, e)
		} else {
			m.ad.Delete(name)
		}
	}
	m.over = m.over[:0]
}
