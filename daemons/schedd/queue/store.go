package queue

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	bolt "go.etcd.io/bbolt"
)

// The store's layout in bbolt is the package doc's (doc.go). Keys are
// big-endian so that cursors walk clusters, procs and history in order.
var (
	keyNextCluster  = []byte("next_cluster")
	keyHistoryFirst = []byte("history_first")
	keyHistoryNext  = []byte("history_next")
	keyVersion      = []byte("version")
	// keyLogApplied is the sequence number of the last record of the
	// write-ahead log that the store holds.
	keyLogApplied = []byte("log_applied")
)

// bucket names one of the store's buckets.
type bucket uint8

const (
	bucketMeta bucket = iota
	bucketClusters
	bucketProcs
	bucketHistory
	bucketAux
	buckets // how many there are
)

var bucketNames = [buckets][]byte{[]byte("meta"), []byte("clusters"), []byte("procs"), []byte("history"), []byte("aux")}

// name is the bucket's name in bbolt.
func (b bucket) name() []byte { return bucketNames[b] }

// storeVersion is the layout version written in meta.
const storeVersion = 1

// write is one change to the store: a put, or a delete when val is nil.
type write struct {
	bucket bucket
	key    []byte
	val    []byte
}

func u64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

func clusterKey(c int64) []byte { return u64(uint64(c)) }

func procKey(id JobID) []byte {
	k := make([]byte, 16)
	putProcKey(k, id)
	return k
}

func putProcKey(k []byte, id JobID) {
	binary.BigEndian.PutUint64(k, uint64(id.Cluster))
	binary.BigEndian.PutUint64(k[8:], uint64(id.Proc))
}

func parseProcKey(k []byte) (JobID, error) {
	if len(k) != 16 {
		return JobID{}, fmt.Errorf("proc key of %d bytes", len(k))
	}
	return JobID{int64(binary.BigEndian.Uint64(k)), int64(binary.BigEndian.Uint64(k[8:]))}, nil
}

// writeWrites writes writes to w as a record of the write-ahead log holds
// them: for each its bucket (a byte), its key, and its value, or nothing
// for a delete:
//
//	bucket | uvarint len(key) | key | uvarint len(val)+1, or 0 | val
func writeWrites(w io.Writer, writes []write) error {
	var head [1 + 2*binary.MaxVarintLen64]byte
	for _, wr := range writes {
		h := append(head[:0], byte(wr.bucket))
		h = binary.AppendUvarint(h, uint64(len(wr.key)))
		if _, err := w.Write(h); err != nil {
			return err
		}
		if _, err := w.Write(wr.key); err != nil {
			return err
		}
		h = head[:0]
		if wr.val == nil {
			h = append(h, 0)
		} else {
			h = binary.AppendUvarint(h, uint64(len(wr.val))+1)
		}
		if _, err := w.Write(h); err != nil {
			return err
		}
		if _, err := w.Write(wr.val); err != nil {
			return err
		}
	}
	return nil
}

// readWrites decodes a record of writeWrites; keys and values are slices
// of data.
func readWrites(data []byte) ([]write, error) {
	var writes []write
	for off := 0; off < len(data); {
		w := write{bucket: bucket(data[off])}
		if w.bucket >= buckets {
			return nil, fmt.Errorf("offset %d: no bucket %d", off, w.bucket)
		}
		off++
		n, k := binary.Uvarint(data[off:])
		if k <= 0 || n > uint64(len(data)-off-k) {
			return nil, fmt.Errorf("offset %d: a key's length is damaged", off)
		}
		off += k
		w.key = data[off : off+int(n)]
		off += int(n)
		n, k = binary.Uvarint(data[off:])
		if k <= 0 || (n > 0 && n-1 > uint64(len(data)-off-k)) {
			return nil, fmt.Errorf("offset %d: a value's length is damaged", off)
		}
		off += k
		if n > 0 {
			w.val = data[off : off+int(n-1)]
			off += int(n - 1)
		}
		writes = append(writes, w)
	}
	return writes, nil
}

// apply puts commits' writes into a bbolt transaction, trims the
// history, and notes the last record of the write-ahead log they came
// from (last; 0 for writes that did not come from it).
func apply(tx *bolt.Tx, writes [][]write, retain, last uint64) error {
	// The history only grows at its end (its keys count up): its pages
	// are filled whole rather than split half-empty, which halves what a
	// large removal writes.
	tx.Bucket(bucketHistory.name()).FillPercent = 1
	for _, ws := range writes {
		for _, w := range ws {
			b := tx.Bucket(w.bucket.name())
			var err error
			if w.val == nil {
				err = b.Delete(w.key)
			} else {
				err = b.Put(w.key, w.val)
			}
			if err != nil {
				return err
			}
		}
	}
	if err := trimHistory(tx, retain); err != nil {
		return err
	}
	if last == 0 {
		return nil
	}
	meta := tx.Bucket(bucketMeta.name())
	if had := getU64(meta, keyLogApplied); last <= had {
		return fmt.Errorf("write-ahead log: a checkpoint through record %d, after record %d", last, had)
	}
	return meta.Put(keyLogApplied, u64(last))
}

// trimHistory drops the oldest history entries beyond retain (0: keep
// them all).
func trimHistory(tx *bolt.Tx, retain uint64) error {
	meta := tx.Bucket(bucketMeta.name())
	first, next := getU64(meta, keyHistoryFirst), getU64(meta, keyHistoryNext)
	if retain == 0 || next-first <= retain {
		return nil
	}
	h := tx.Bucket(bucketHistory.name())
	for ; next-first > retain; first++ {
		if err := h.Delete(u64(first)); err != nil {
			return err
		}
	}
	return meta.Put(keyHistoryFirst, u64(first))
}

func getU64(b *bolt.Bucket, key []byte) uint64 {
	v := b.Get(key)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// ErrClosed is returned by changes after the queue was closed.
var ErrClosed = errors.New("job queue closed")
