package queue

import (
	"bytes"
	"fmt"
	"testing"
)

// A record of the log gives back the writes it was made of: puts, a put
// of an empty value (not a delete) and deletes.
func TestWritesRoundTrip(t *testing.T) {
	writes := []write{
		{bucketProcs, procKey(JobID{1, 2}), []byte(`{"JobStatus": 2}`)},
		{bucketAux, []byte("empty"), []byte{}},
		{bucketProcs, procKey(JobID{1, 3}), nil},
		{bucketMeta, keyHistoryNext, u64(7)},
	}
	var rec bytes.Buffer
	if err := writeWrites(&rec, writes); err != nil {
		t.Fatal(err)
	}
	got, err := readWrites(rec.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", writes) {
		t.Fatalf("read %q, want %q", got, writes)
	}
	for i, w := range got {
		if (w.val == nil) != (writes[i].val == nil) {
			t.Errorf("write %d: a delete is %v, want %v", i, w.val == nil, writes[i].val == nil)
		}
	}
}

// A record whose checksum held but whose contents do not decode is an
// error, never a panic.
func FuzzReadWrites(f *testing.F) {
	var rec bytes.Buffer
	writeWrites(&rec, []write{{bucketProcs, procKey(JobID{1, 0}), []byte("ad")}, {bucketClusters, u64(1), nil}})
	f.Add(rec.Bytes())
	f.Add([]byte{9})
	f.Fuzz(func(t *testing.T, data []byte) {
		writes, err := readWrites(data)
		if err != nil {
			return
		}
		var again bytes.Buffer
		writeWrites(&again, writes)
		back, err := readWrites(again.Bytes())
		if err != nil || fmt.Sprintf("%q", back) != fmt.Sprintf("%q", writes) {
			t.Fatalf("%q reads as %q, which written reads as %q (%v)", data, writes, back, err)
		}
	})
}
