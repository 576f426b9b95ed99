package schedd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
	"github.com/kite-sched/kite/internal/wire"
)

// Finished DAGs' pictures. A DAG that finishes leaves the live store
// (dag_retire.go); so that it can still be listed and drawn (the
// dashboard's DAG pages, kite q -dag of its id), the transaction that
// retires it also writes a compact record of its end, under keys that
// sort by when it finished:
//
//	dagfa/<finished, unix ns>/<id>   its final ad, as the history's
//	dagfg/<finished, unix ns>/<id>   its graph: each node's name, final
//	                                 state and parents; for a DAG of more
//	                                 than finishedGraphNodes nodes, its
//	                                 nodes counted by depth and status
//
// The store keeps the last dagKeepFinished of them (a DAG that retires
// deletes the oldest), so neither a record nor a query that reads one
// grows with the DAG: at most finishedGraphNodes nodes or maxDAGLayers
// layers, however many nodes it had.

const (
	finAdPrefix    = "dagfa/"
	finGraphPrefix = "dagfg/"
	// finishedGraphNodes is the most nodes a finished DAG's record keeps
	// one by one: the dashboard draws no more (dashboard.MaxDrawnNodes).
	finishedGraphNodes = 2000
	// maxKeptDetail bounds a node's detail in the record, in bytes.
	maxKeptDetail = 256
)

// finishedGraph is a finished DAG's graph as the store keeps it: its
// nodes, or for a large DAG its nodes counted by depth, a row per depth
// of counts by dag.Status (trailing zeros left out), Deeper as
// wire.DAGLayer's.
type finishedGraph struct {
	Nodes  []finishedNode `json:"n,omitempty"`
	Layers [][]int        `json:"l,omitempty"`
	Deeper bool           `json:"dp,omitempty"`
}

// finishedNode is a node of a finished DAG: its final state and parents.
type finishedNode struct {
	Name    string     `json:"n"`
	Status  dag.Status `json:"s"`
	Parents []int      `json:"p,omitempty"`
	Retries int        `json:"r,omitempty"`
	Cluster int64      `json:"c,omitempty"`
	Return  int        `json:"rc,omitempty"`
	Detail  string     `json:"d,omitempty"`
}

// finishedRef is a finished DAG's record in the store: the end of its
// keys, its id and its ad.
type finishedRef struct {
	suffix string
	id     int64
	ad     []byte
}

// keepFinished records in tx a DAG that retires, with its final ad,
// and deletes the oldest records beyond dagKeepFinished. Which records
// the store keeps comes from memory (dagSet.kept), not from the store:
// the queue is locked here, and a read of the store waits for the
// commits before it, which may wait for the lock (queue.Hold).
func (s *Server) keepFinished(tx *queue.Tx, st *dagState, ad []byte) {
	suffix := fmt.Sprintf("%020d/%012d", s.now().UnixNano(), st.rec.ID)
	g, err := json.Marshal(finishedGraphOf(st))
	if err != nil { // plain data: cannot fail
		s.log.Error("DAG: encoding its final graph", "dag", st.rec.ID, "err", err)
		return
	}
	tx.PutAux(finAdPrefix+suffix, ad)
	tx.PutAux(finGraphPrefix+suffix, g)
	ds := s.dags
	kept := ds.kept
	over := max(0, len(kept)+1-dagKeepFinished)
	for _, old := range kept[:over] {
		tx.PutAux(finAdPrefix+old, nil)
		tx.PutAux(finGraphPrefix+old, nil)
	}
	ds.kept = append(slices.Clone(kept[over:]), suffix)
	tx.OnRollback(func() { ds.kept = kept })
}

// finishedGraphOf is what the store keeps of a finished DAG's graph.
func finishedGraphOf(st *dagState) finishedGraph {
	d := st.rec.DAG
	if len(d.Nodes) > finishedGraphNodes {
		status := func(i int) string { return st.run.Nodes[i].Status.String() }
		return layerRows(layersOf(len(d.Nodes), func(i int) []int { return d.Nodes[i].Parents }, status, nil))
	}
	g := finishedGraph{Nodes: make([]finishedNode, len(d.Nodes))}
	for i, n := range st.run.Nodes {
		g.Nodes[i] = finishedNode{Name: d.Nodes[i].Name, Status: n.Status, Parents: d.Nodes[i].Parents,
			Retries: n.Retries, Cluster: n.Cluster, Return: n.Return, Detail: clip(n.Detail, maxKeptDetail)}
	}
	return g
}

// layerRows is a graph of layers as the store keeps them.
func layerRows(layers []wire.DAGLayer) finishedGraph {
	g := finishedGraph{Layers: make([][]int, len(layers))}
	for d, l := range layers {
		row := make([]int, dag.Futile+1)
		for st := range row {
			row[st] = l.Statuses[dag.Status(st).String()]
		}
		for len(row) > 0 && row[len(row)-1] == 0 {
			row = row[:len(row)-1]
		}
		g.Layers[d] = row
		g.Deeper = g.Deeper || l.Deeper
	}
	return g
}

// wireLayers is the graph's layers as a query answers them.
func (g *finishedGraph) wireLayers() []wire.DAGLayer {
	out := make([]wire.DAGLayer, len(g.Layers))
	for d, row := range g.Layers {
		out[d] = wire.DAGLayer{Depth: d, Statuses: map[string]int{}, Deeper: g.Deeper && d == len(g.Layers)-1}
		for st, n := range row[:min(len(row), int(dag.Futile)+1)] {
			if n > 0 {
				out[d].Statuses[dag.Status(st).String()] = n
			}
		}
	}
	return out
}

// clip cuts s to at most n bytes, at a rune's start.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// finishedRefs lists the finished DAGs the store keeps (committed),
// oldest first.
func (s *Server) finishedRefs() ([]finishedRef, error) {
	var out []finishedRef
	err := s.q.Aux(finAdPrefix, func(key string, val []byte) error {
		suffix := strings.TrimPrefix(key, finAdPrefix)
		_, idText, ok := strings.Cut(suffix, "/")
		id, err := strconv.ParseInt(idText, 10, 64)
		if !ok || err != nil {
			return fmt.Errorf("%s: not a finished DAG's key", key)
		}
		out = append(out, finishedRef{suffix: suffix, id: id, ad: bytes.Clone(val)})
		return nil
	})
	return out, err
}

// storedFinished returns a finished DAG's info from its record in the
// store, shaped by the query.
func (s *Server) storedFinished(q *wire.DAGQuery, id int64) (wire.DAGInfo, bool) {
	refs, err := s.finishedRefs()
	if err != nil {
		s.log.Warn("DAGs: reading the finished DAGs kept", "err", err)
		return wire.DAGInfo{}, false
	}
	k := slices.IndexFunc(refs, func(r finishedRef) bool { return r.id == id })
	if k < 0 {
		return wire.DAGInfo{}, false
	}
	info, err := s.finishedInfo(q, refs[k])
	if err != nil {
		s.log.Warn("DAGs: reading a finished DAG's graph", "dag", id, "err", err)
		return wire.DAGInfo{}, false
	}
	return info, true
}

// finishedInfo reads a finished DAG's graph from the store (unless the
// query wants its ad alone) and shapes it as shapeDAGInfo does a running
// DAG's. A DAG the record counts by depth comes as its Layers, whatever
// the query's MaxNodes.
func (s *Server) finishedInfo(q *wire.DAGQuery, ref finishedRef) (wire.DAGInfo, error) {
	info := wire.DAGInfo{Ad: ref.ad}
	if q.AdsOnly {
		return info, nil
	}
	var g finishedGraph
	err := s.q.Aux(finGraphPrefix+ref.suffix, func(_ string, val []byte) error { return json.Unmarshal(val, &g) })
	if err != nil {
		return info, err
	}
	info.Nodes = []wire.DAGNode{}
	switch {
	case g.Layers != nil:
		info.Layers = g.wireLayers()
		return info, nil
	case q.Graph && q.MaxNodes > 0 && len(g.Nodes) > q.MaxNodes:
		status := func(i int) string { return g.Nodes[i].Status.String() }
		info.Layers = layersOf(len(g.Nodes), func(i int) []int { return g.Nodes[i].Parents }, status, nil)
		return info, nil
	}
	for _, n := range g.Nodes {
		w := wire.DAGNode{Name: n.Name, Status: n.Status.String(), Retries: n.Retries, Cluster: n.Cluster, Return: n.Return, Detail: n.Detail}
		if q.Graph {
			w.Parents = n.Parents
		}
		info.Nodes = append(info.Nodes, w)
	}
	return info, nil
}

// recentFinished returns the finished DAGs a query without ids picks,
// newest first, leaving out those in seen: the last ones retired, from
// memory (their records may not be committed yet), then the store's.
func (s *Server) recentFinished(q *wire.DAGQuery, seen map[int64]bool) []wire.DAGInfo {
	var out []wire.DAGInfo
	s.q.Read(func(rd *queue.Reader) {
		for _, st := range slices.Backward(s.dags.done) {
			if !seen[st.rec.ID] && picks(q, st) {
				seen[st.rec.ID] = true
				out = append(out, shapeDAGInfo(q, rd, st, s.dagInfo(st)))
			}
		}
	})
	refs, err := s.finishedRefs()
	if err != nil {
		s.log.Warn("DAGs: reading the finished DAGs kept", "err", err)
	}
	for _, ref := range slices.Backward(refs) {
		if seen[ref.id] {
			continue
		}
		info, err := s.finishedInfo(q, ref)
		if err != nil {
			s.log.Warn("DAGs: reading a finished DAG's graph", "dag", ref.id, "err", err)
			continue
		}
		if ownerPicks(q, info) {
			seen[ref.id] = true
			out = append(out, info)
		}
	}
	return out[:min(len(out), dagKeepFinished)]
}

// maxDAGLayers bounds the layers a DAG is counted in: the last counts
// the nodes deeper than it too (wire.DAGLayer.Deeper), so that a chain
// of a million nodes costs no more than a wide DAG.
const maxDAGLayers = 2000

// layersOf counts n nodes by depth (dag.Depths; the parents are checked
// acyclic) and status; running, when given, says which have a running
// job (counted as Running too).
func layersOf(n int, parents func(i int) []int, status func(i int) string, running func(i int) bool) []wire.DAGLayer {
	depth, _ := dag.Depths(n, parents)
	var layers []wire.DAGLayer
	for i := range n {
		d := min(depth[i], maxDAGLayers-1)
		for len(layers) <= d {
			layers = append(layers, wire.DAGLayer{Depth: len(layers), Statuses: map[string]int{}})
		}
		l := &layers[d]
		l.Statuses[status(i)]++
		l.Deeper = l.Deeper || depth[i] > d
		if running != nil && running(i) {
			l.Running++
		}
	}
	return layers
}

// nodeRunning reports whether a node of a query's answer has a running job.
func nodeRunning(nodes []wire.DAGNode) func(i int) bool {
	return func(i int) bool { return nodes[i].JobStatus == attr.Running }
}
