package queue

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/gcpace"
)

// load creates the buckets of a new store, or reads an existing one into
// memory.
func (q *Queue) load() error {
	err := q.db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketMeta, bucketClusters, bucketProcs, bucketHistory, bucketAux} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		if v := getU64(meta, keyVersion); v > storeVersion {
			return fmt.Errorf("written by a newer Kite (layout %d; this one reads %d)", v, storeVersion)
		}
		return meta.Put(keyVersion, u64(storeVersion))
	})
	if err != nil {
		return err
	}
	return q.db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		q.next = max(int64(getU64(meta, keyNextCluster)), 1)
		q.histNext = getU64(meta, keyHistoryNext)
		if err := q.loadClusters(tx.Bucket(bucketClusters)); err != nil {
			return err
		}
		return q.loadProcs(tx.Bucket(bucketProcs))
	})
}

func (q *Queue) loadClusters(b *bolt.Bucket) error {
	return b.ForEach(func(k, v []byte) error {
		if len(k) != 8 {
			return fmt.Errorf("cluster key of %d bytes", len(k))
		}
		id := int64(binary.BigEndian.Uint64(k))
		ad, err := classad.ParseJSON(v)
		if err != nil {
			return fmt.Errorf("cluster %d: %w", id, err)
		}
		owner := ""
		if e, ok := ad.Lookup(attr.Owner); ok {
			if l, isLit := e.(*ast.Literal); isLit && l.Kind == ast.StringLit {
				owner = l.Str
			}
		}
		q.addCluster(newCluster(id, owner, ad))
		q.next = max(q.next, id+1)
		return nil
	})
}

// loadProcs reads every proc, parsing on all cores: the cursor walk is
// cheap, the JSON is not.
//
// The collector runs less often meanwhile: reading a queue allocates a
// lot and frees nothing, and collecting as it grows would only waste time.
// The daemon's pacer (gcpace) paces again for the grown heap after it.
func (q *Queue) loadProcs(b *bolt.Bucket) error {
	defer gcpace.Raise(400)()
	type item struct {
		id  JobID
		val []byte
		ad  *classad.Ad
		err error
	}
	const chunk = 4096
	workers := runtime.GOMAXPROCS(0)
	var items []item
	flush := func() error {
		var wg sync.WaitGroup
		per := (len(items) + workers - 1) / workers
		for w := 0; w < len(items); w += per {
			part := items[w:min(w+per, len(items))]
			wg.Go(func() {
				for i := range part {
					part[i].ad, part[i].err = classad.ParseJSON(part[i].val)
				}
			})
		}
		wg.Wait()
		for _, it := range items {
			if it.err != nil {
				return fmt.Errorf("job %s: %w", it.id, it.err)
			}
			if err := q.addLoaded(it.id, it.ad); err != nil {
				return err
			}
		}
		items = items[:0]
		return nil
	}
	defer func() {
		for _, c := range q.order {
			for c.first < len(c.procs) && c.procs[c.first] == nil {
				c.first++
			}
		}
	}()
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		id, err := parseProcKey(k)
		if err != nil {
			return err
		}
		items = append(items, item{id: id, val: v})
		if len(items) == chunk*workers {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// addLoaded puts a stored proc in its cluster.
func (q *Queue) addLoaded(id JobID, own *classad.Ad) error {
	c := q.clusters[id.Cluster]
	if c == nil {
		return fmt.Errorf("job %s: its cluster is missing", id)
	}
	if id.Proc < 0 || id.Proc > 1<<31 {
		return fmt.Errorf("job %s: bad proc id", id)
	}
	for int64(len(c.procs)) <= id.Proc {
		c.procs = append(c.procs, nil)
	}
	j := &Job{ID: id, Cluster: c, own: own, status: statusOf(c.ad, own)}
	c.procs[id.Proc] = j
	c.live++
	q.count(c, j.status, 1)
	return nil
}
