package factory

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
)

// Limits are a factory's bounds; 0 is no bound.
type Limits struct {
	// Limit bounds the cluster's jobs present in the queue
	// (JobMaterializeLimit, max_materialize).
	Limit int64
	// MaxIdle bounds the cluster's jobs that are not running, held ones
	// included (JobMaterializeMaxIdle, max_idle).
	MaxIdle int64
}

// Want returns how many procs a factory with left procs to make may add
// to a cluster whose jobs are counted c, at most batch.
func (l Limits) Want(left int64, c queue.Counts, batch int64) int64 {
	n := min(left, batch)
	if l.Limit > 0 {
		n = min(n, l.Limit-int64(c.Total()))
	}
	if l.MaxIdle > 0 {
		n = min(n, l.MaxIdle-int64(c.Idle+c.Held))
	}
	return max(n, 0)
}

// LimitsOf reads a cluster ad's JobMaterializeLimit and
// JobMaterializeMaxIdle; ok is false when it sets neither (not a
// factory).
func LimitsOf(ad *classad.Ad) (l Limits, ok bool, err error) {
	for _, f := range []struct {
		name string
		dst  *int64
	}{{attr.JobMaterializeLimit, &l.Limit}, {attr.JobMaterializeMaxIdle, &l.MaxIdle}} {
		e, set := ad.Lookup(f.name)
		if !set {
			continue
		}
		lit, isLit := e.(*ast.Literal)
		if !isLit || lit.Kind != ast.IntLit || lit.Int < 1 {
			return l, false, fmt.Errorf("%s = %s: a positive integer is needed", f.name, ast.String(e))
		}
		*f.dst, ok = lit.Int, true
	}
	return l, ok, nil
}

// Run is consecutive procs with the same own attributes (ProcId aside).
type Run struct {
	N  int64
	Ad *classad.Ad
}

// Factory is one cluster's factory.
type Factory struct {
	Cluster int64
	Limits
	Total  int64 // procs in all
	Next   int64 // the next ProcId to materialize
	Paused bool  // by a hold of the cluster
	// starts[i] is the first proc of run i; rows holds the runs' own ads
	// as JSON, run i's at rows[offs[i]:offs[i+1]]: a million distinct
	// procs cost their JSON and twelve bytes each.
	starts []int64
	offs   []uint32
	rows   []byte
}

// New makes the factory of a cluster from its runs.
func New(cluster int64, l Limits, runs []Run) (*Factory, error) {
	f := &Factory{Cluster: cluster, Limits: l, offs: []uint32{0}}
	for i, r := range runs {
		if r.N < 1 {
			return nil, fmt.Errorf("run %d: %d procs", i, r.N)
		}
		f.starts = append(f.starts, f.Total)
		f.Total += r.N
		if f.Total > 1<<31 {
			return nil, fmt.Errorf("more than %d procs", 1<<31)
		}
		f.rows = classad.AppendJSON(f.rows, r.Ad, false)
		if len(f.rows) > 1<<32-1 {
			return nil, fmt.Errorf("the procs' attributes take more than 4 GiB")
		}
		f.offs = append(f.offs, uint32(len(f.rows)))
	}
	if f.Total == 0 {
		return nil, fmt.Errorf("no procs")
	}
	return f, nil
}

// Left is how many procs are yet to materialize.
func (f *Factory) Left() int64 { return f.Total - f.Next }

// Proc returns the own ad of proc p: its run's attributes and its ProcId.
func (f *Factory) Proc(p int64) (*classad.Ad, error) {
	if p < 0 || p >= f.Total {
		return nil, fmt.Errorf("cluster %d has no proc %d", f.Cluster, p)
	}
	i := sort.Search(len(f.starts), func(i int) bool { return f.starts[i] > p }) - 1
	ad, err := classad.ParseJSON(f.rows[f.offs[i]:f.offs[i+1]])
	if err != nil {
		return nil, fmt.Errorf("cluster %d proc %d: %w", f.Cluster, p, err)
	}
	ad.Set(attr.ProcID, ast.Int(p))
	return ad, nil
}

// The records in the queue's aux bucket: the spec, written once, and the
// state, written with every proc materialized.
const keyPrefix = "factory/"

func specKey(cluster int64) string  { return fmt.Sprintf("%s%016x", keyPrefix, cluster) }
func stateKey(cluster int64) string { return specKey(cluster) + "/state" }

type specJSON struct {
	Limits
	Total  int64
	Starts []int64
	Offs   []uint32
	Rows   []byte
}

type stateJSON struct {
	Next   int64
	Paused bool
}

func (f *Factory) spec() []byte {
	b, err := json.Marshal(specJSON{f.Limits, f.Total, f.starts, f.offs, f.rows})
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return b
}

func (f *Factory) state() []byte {
	b, err := json.Marshal(stateJSON{f.Next, f.Paused})
	if err != nil {
		panic(err)
	}
	return b
}

// decode reads a stored factory.
func decode(cluster int64, spec, state []byte) (*Factory, error) {
	var sp specJSON
	if err := json.Unmarshal(spec, &sp); err != nil {
		return nil, fmt.Errorf("factory of cluster %d: %w", cluster, err)
	}
	var st stateJSON
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, fmt.Errorf("factory of cluster %d: state: %w", cluster, err)
	}
	n := len(sp.Starts)
	if n == 0 || len(sp.Offs) != n+1 || int(sp.Offs[n]) != len(sp.Rows) || sp.Starts[0] != 0 ||
		sp.Total <= sp.Starts[n-1] || st.Next < 0 || st.Next > sp.Total {
		return nil, fmt.Errorf("factory of cluster %d: its runs do not add up", cluster)
	}
	return &Factory{Cluster: cluster, Limits: sp.Limits, Total: sp.Total, starts: sp.Starts, offs: sp.Offs, rows: sp.Rows,
		Next: st.Next, Paused: st.Paused}, nil
}

// clusterOfKey reads the cluster id of a record's key, and whether the
// record is the state.
func clusterOfKey(key string) (id int64, state bool, err error) {
	rest, _ := strings.CutPrefix(key, keyPrefix)
	hex, suffix := rest, ""
	if len(rest) > 16 {
		hex, suffix = rest[:16], rest[16:]
	}
	n, err := strconv.ParseUint(hex, 16, 63)
	if err != nil || len(hex) != 16 || suffix != "" && suffix != "/state" {
		return 0, false, fmt.Errorf("factory record %q: not a factory's key", key)
	}
	return int64(n), suffix != "", nil
}
