package wal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fill is a record's fill that writes d, in pieces of up to 1000 bytes.
func fill(d string) func(w io.Writer) error {
	return func(w io.Writer) error {
		for len(d) > 0 {
			n := min(len(d), 1000)
			if _, err := io.WriteString(w, d[:n]); err != nil {
				return err
			}
			d = d[n:]
		}
		return nil
	}
}

// appendAll appends each record's data and checks the numbers given.
func appendAll(t *testing.T, l *Log, data ...string) {
	t.Helper()
	for _, d := range data {
		want := l.next
		seq, err := l.Append(fill(d))
		if err != nil {
			t.Fatal(err)
		}
		if seq != want {
			t.Fatalf("append %q: sequence %d, want %d", d, seq, want)
		}
	}
}

// reopen closes l and opens its files again with applied records in the
// store; it returns the records' data.
func reopen(t *testing.T, l *Log, path string, applied uint64) (*Log, []string) {
	t.Helper()
	if l != nil {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	l, recs, err := Open(path, applied, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var got []string
	for i, r := range recs {
		if r.Seq != applied+1+uint64(i) {
			t.Fatalf("record %d numbered %d", i, r.Seq)
		}
		got = append(got, string(r.Data))
	}
	return l, got
}

func equal(t *testing.T, got []string, want ...string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("records %q, want %q", got, want)
	}
}

func TestReopenReturnsWhatTheStoreLacks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q-wal")
	l, got := reopen(t, nil, path, 0)
	equal(t, got)
	appendAll(t, l, "a", "b", "c")
	_, got = reopen(t, l, path, 0)
	equal(t, got, "a", "b", "c")
	l, got = reopen(t, nil, path, 2)
	equal(t, got, "c")
	// The next record follows the last one read, whatever the store had.
	appendAll(t, l, "d")
	_, got = reopen(t, l, path, 3)
	equal(t, got, "d")
}

// A file written again from its start holds its new records and then
// those of the round before, which are older and end its reading.
func TestRotationWritesOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q-wal")
	l, _ := reopen(t, nil, path, 0)
	appendAll(t, l, "one", "two", "three") // file 0: 1-3
	if last := l.Rotate(); last != 3 {
		t.Fatalf("rotate left %d, want 3", last)
	}
	appendAll(t, l, "four", "five") // file 1: 4-5
	if last := l.Rotate(); last != 5 {
		t.Fatalf("rotate left %d, want 5", last)
	}
	appendAll(t, l, "six") // file 0: 6, then 2-3 of the round before
	_, got := reopen(t, l, path, 3)
	equal(t, got, "four", "five", "six")
	_, got = reopen(t, nil, path, 5)
	equal(t, got, "six")
	_, got = reopen(t, nil, path, 6)
	equal(t, got)
}

func TestTornOrDamagedRecordEndsTheFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(data []byte, last int) []byte
	}{
		{"torn", func(data []byte, last int) []byte { return data[:last+header+2] }},
		{"flipped", func(data []byte, last int) []byte { data[last+header] ^= 1; return data }},
		{"length", func(data []byte, last int) []byte { data[last] = 0xff; return data }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "q-wal")
			l, _ := reopen(t, nil, path, 0)
			appendAll(t, l, "first", "second", "third")
			last := l.files[0].off - int64(header+len("third"))
			l.Close()
			data, err := os.ReadFile(path + "0")
			if err != nil {
				t.Fatal(err)
			}
			data = tc.damage(data, int(last))
			if err := os.WriteFile(path+"0", data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, got := reopen(t, nil, path, 0)
			equal(t, got, "first", "second")
		})
	}
}

func TestMissingRecordsAreAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q-wal")
	l, _ := reopen(t, nil, path, 0)
	appendAll(t, l, "a", "b")
	l.Rotate()
	appendAll(t, l, "c", "d")
	l.Close()
	// File 0 (records 1 and 2) lost: the store, at 0, lacks them.
	if err := os.WriteFile(path+"0", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := Open(path, 0, Options{})
	if err == nil || !strings.Contains(err.Error(), "records 1 to 2 are missing") {
		t.Fatalf("open: %v, want records 1 to 2 missing", err)
	}
	// A store that has them reads on.
	_, got := reopen(t, nil, path, 2)
	equal(t, got, "c", "d")
}

// Records beyond the space written ahead grow the file, and are read
// back whole.
func TestGrowth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q-wal")
	l, _ := reopen(t, nil, path, 0)
	big := strings.Repeat("x", Grow+10)
	appendAll(t, l, "small", big)
	whole := strings.Repeat("y", Grow) // written in one piece, past the chunks
	if _, err := l.Append(func(w io.Writer) error { _, err := io.WriteString(w, whole); return err }); err != nil {
		t.Fatal(err)
	}
	appendAll(t, l, "after")
	st, err := os.Stat(path + "0")
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != 3*Grow {
		t.Fatalf("file of %d bytes, want %d", st.Size(), 3*Grow)
	}
	_, got := reopen(t, l, path, 0)
	equal(t, got, "small", big, whole, "after")
}

func TestEmptyOrFailedRecordTakesNoNumber(t *testing.T) {
	l, _ := reopen(t, nil, filepath.Join(t.TempDir(), "q-wal"), 0)
	if _, err := l.Append(fill("")); err == nil {
		t.Fatal("an empty record was appended")
	}
	failing := func(w io.Writer) error { w.Write([]byte("part")); return errors.New("no") }
	if _, err := l.Append(failing); err == nil || !strings.Contains(err.Error(), "no") {
		t.Fatalf("a record whose writer failed: %v", err)
	}
	appendAll(t, l, "a") // took no number
}

func FuzzScan(f *testing.F) {
	path := filepath.Join(f.TempDir(), "q-wal")
	l, _, err := Open(path, 0, Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	for _, d := range []string{"a", "bb", "ccc"} {
		if _, err := l.Append(fill(d)); err != nil {
			f.Fatal(err)
		}
	}
	l.Close()
	data, err := os.ReadFile(path + "0")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:64])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		recs := Scan(data)
		for i, r := range recs {
			if i > 0 && r.Seq != recs[i-1].Seq+1 {
				t.Fatalf("record %d numbered %d after %d", i, r.Seq, recs[i-1].Seq)
			}
			if len(r.Data) == 0 || !bytes.Contains(data, r.Data) {
				t.Fatalf("record %d: data not from the input", i)
			}
		}
	})
}
