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
	"github.com/kite-sched/kite/internal/wal"
)

// openLog creates the buckets of a new store, opens the store's
// write-ahead log (path-wal0 and path-wal1), and puts the changes the log
// holds beyond the store's last checkpoint into the store.
func openLog(db *bolt.DB, path string, retain uint64, noSync bool) (*wal.Log, error) {
	var applied uint64
	err := db.Update(func(tx *bolt.Tx) error {
		for _, b := range bucketNames {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta.name())
		if v := getU64(meta, keyVersion); v > storeVersion {
			return fmt.Errorf("written by a newer Kite (layout %d; this one reads %d)", v, storeVersion)
		}
		applied = getU64(meta, keyLogApplied)
		return meta.Put(keyVersion, u64(storeVersion))
	})
	if err != nil {
		return nil, err
	}
	log, recs, err := wal.Open(path+"-wal", applied, wal.Options{NoSync: noSync})
	if err != nil || len(recs) == 0 {
		return log, err
	}
	writes := make([][]write, len(recs))
	for i, r := range recs {
		if writes[i], err = readWrites(r.Data); err != nil {
			log.Close()
			return nil, fmt.Errorf("write-ahead log record %d: %w", r.Seq, err)
		}
	}
	err = db.Update(func(tx *bolt.Tx) error { return apply(tx, writes, retain, recs[len(recs)-1].Seq) })
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("write-ahead log: putting %d records into the store: %w", len(recs), err)
	}
	return log, nil
}

// load reads the store into memory.
func (q *Queue) load() error {
	return q.db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta.name())
		q.next = max(int64(getU64(meta, keyNextCluster)), 1)
		q.histNext = getU64(meta, keyHistoryNext)
		if err := q.loadClusters(tx.Bucket(bucketClusters.name())); err != nil {
			return err
		}
		return q.loadProcs(tx.Bucket(bucketProcs.name()))
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
