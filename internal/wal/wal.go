// Package wal is a write-ahead log that makes a record durable with one
// fdatasync of space written before, so that a store whose own commit
// syncs twice (bbolt: its pages, then its meta page) can acknowledge a
// change after one cheap sync and take many changes into each of its own
// transactions later (a checkpoint).
//
// The log is two files of space written with zeros and synced ahead of
// use: an append overwrites blocks the file system has already
// allocated and sized, so its sync flushes the data alone, not the file
// system's journal (on ext4 about a quarter of the time and of the CPU
// of a bbolt commit, docs/scale.md). Records are appended to one file
// while the store takes the other's; a file is written again from its
// start once every record in it is in the store: at each Rotate the
// user puts the records of the file left into its store (a checkpoint)
// before the next Rotate.
//
// A record is
//
//	length uint32 | crc32c uint32 | sequence uint64 | data
//
// little-endian, the checksum over the sequence and the data. Sequence
// numbers count up by one across both files and never repeat, so a file
// written again from its start is read up to its last new record: what
// follows (a torn append, or records of an earlier round, whose numbers
// are lower) breaks the count or the checksum and ends the file's
// records. An append is durable before the next starts, so only the last
// record of the file being appended to can be torn.
package wal

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// header is a record's length, checksum and sequence number.
const header = 16

// Grow is the step in which a file's written space grows, from nothing
// at its first append.
const Grow = 1 << 20

// maxRecord bounds a record: its length is 32 bits.
const maxRecord = math.MaxUint32

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Record is one append: its sequence number and its data.
type Record struct {
	Seq  uint64
	Data []byte
}

// Options configure a log.
type Options struct {
	// NoSync skips the sync of each append: for benchmarks of everything
	// else (a record is then durable only once the system writes it).
	NoSync bool
}

// Log is the write-ahead log, used by one goroutine at a time.
type Log struct {
	files  [2]*file
	cur    int    // the file appended to
	next   uint64 // the sequence number of the next record
	noSync bool
	buf    []byte
}

// file is one of the log's two files.
type file struct {
	f    *os.File
	size int64  // written and synced: appends within it sync data only
	off  int64  // the end of its records
	last uint64 // the sequence number of its last record; 0 when none
}

// Open opens the log whose files are path0 and path1, creating them as
// needed, and returns the records they hold numbered after applied (those
// the store already has), in order. A gap in those numbers is an error:
// records the store lacks are lost. The next append follows the last
// record read, at the start of the first file: the caller puts the
// records returned in its store before it appends.
func Open(path string, applied uint64, o Options) (*Log, []Record, error) {
	l := &Log{noSync: o.NoSync}
	var recs []Record
	for i := range l.files {
		name := fmt.Sprintf("%s%d", path, i)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			l.Close()
			return nil, nil, fmt.Errorf("write-ahead log: %w", err)
		}
		fl := &file{f: f}
		l.files[i] = fl
		found, err := fl.read()
		if err != nil {
			l.Close()
			return nil, nil, fmt.Errorf("write-ahead log %s: %w", name, err)
		}
		recs = append(recs, found...)
	}
	if err := syncDir(filepath.Dir(path)); err != nil { // files just made are named for good
		l.Close()
		return nil, nil, fmt.Errorf("write-ahead log: %w", err)
	}
	slices.SortFunc(recs, func(a, b Record) int { return cmp.Compare(a.Seq, b.Seq) })
	l.next = applied + 1
	if n := len(recs); n > 0 {
		l.next = max(l.next, recs[n-1].Seq+1)
	}
	recs = slices.DeleteFunc(recs, func(r Record) bool { return r.Seq <= applied })
	for i, r := range recs {
		if want := applied + 1 + uint64(i); r.Seq != want {
			l.Close()
			return nil, nil, fmt.Errorf("write-ahead log %s: records %d to %d are missing", path, want, r.Seq-1)
		}
	}
	for _, fl := range l.files {
		fl.off, fl.last = 0, 0
	}
	return l, recs, nil
}

// syncDir makes the names in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}

// read returns the file's records from its start up to the first that is
// torn, damaged or out of sequence, and notes the file's written size.
func (fl *file) read() ([]Record, error) {
	st, err := fl.f.Stat()
	if err != nil {
		return nil, err
	}
	fl.size = st.Size()
	data := make([]byte, fl.size)
	if _, err := io.ReadFull(fl.f, data); err != nil {
		return nil, err
	}
	return Scan(data), nil
}

// Scan returns the records at the start of data, in order, up to the first
// that is torn, damaged or out of sequence. The records' data are slices
// of data.
func Scan(data []byte) []Record {
	var recs []Record
	for off := 0; len(data)-off >= header; {
		n := binary.LittleEndian.Uint32(data[off:])
		sum := binary.LittleEndian.Uint32(data[off+4:])
		seq := binary.LittleEndian.Uint64(data[off+8:])
		if n == 0 || uint64(len(data)-off-header) < uint64(n) {
			break
		}
		if len(recs) > 0 && seq != recs[len(recs)-1].Seq+1 {
			break
		}
		body := data[off+8 : off+header+int(n)]
		if crc32.Checksum(body, castagnoli) != sum {
			break
		}
		recs = append(recs, Record{Seq: seq, Data: body[8:]})
		off += header + int(n)
	}
	return recs
}

// Append writes what fill writes to its writer as the next record, and
// syncs it; it returns the record's sequence number. The record goes to
// the file in chunks as fill writes (no copy of it is made whole), its
// header last, before the one sync. A failed append (fill's error, the
// disk's, or a record empty or over 4 GiB) takes no number: the next one is
// written in its place.
func (l *Log) Append(fill func(w io.Writer) error) (uint64, error) {
	fl := l.files[l.cur]
	seq := l.next
	var h [header]byte
	binary.LittleEndian.PutUint64(h[8:], seq)
	r := recordWriter{fl: fl, at: fl.off + header, crc: crc32.Checksum(h[8:], castagnoli), buf: l.buf[:0]}
	err := fill(&r)
	if err == nil {
		err = r.flush()
	}
	if cap(r.buf) <= 2*chunk {
		l.buf = r.buf
	}
	n := r.at - fl.off - header
	if err == nil && n == 0 {
		err = errors.New("an empty record")
	}
	if err != nil {
		return 0, fmt.Errorf("write-ahead log: %w", err)
	}
	binary.LittleEndian.PutUint32(h[:], uint32(n))
	binary.LittleEndian.PutUint32(h[4:], r.crc)
	if _, err := fl.f.WriteAt(h[:], fl.off); err != nil {
		return 0, fmt.Errorf("write-ahead log: %w", err)
	}
	if !l.noSync {
		if err := fdatasync(fl.f); err != nil {
			return 0, fmt.Errorf("write-ahead log: %w", err)
		}
	}
	fl.off, fl.last = r.at, seq
	l.next++
	return seq, nil
}

// chunk is how much of a record is gathered before it is written.
const chunk = 64 << 10

// recordWriter writes a record's data at its place in the file, in chunks,
// growing the file's written space as needed, and sums it.
type recordWriter struct {
	fl  *file
	at  int64 // where the next chunk goes
	crc uint32
	buf []byte
	err error
}

func (r *recordWriter) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n := len(p)
	if len(r.buf)+len(p) > chunk {
		take := chunk - len(r.buf)
		r.buf = append(r.buf, p[:take]...)
		p = p[take:]
		if r.err = r.flush(); r.err == nil && len(p) >= chunk {
			r.err = r.write(p) // a large value goes as it is
			p = nil
		}
		if r.err != nil {
			return 0, r.err
		}
	}
	r.buf = append(r.buf, p...)
	return n, nil
}

// flush writes what is gathered.
func (r *recordWriter) flush() error {
	if len(r.buf) == 0 {
		return nil
	}
	err := r.write(r.buf)
	r.buf = r.buf[:0]
	return err
}

func (r *recordWriter) write(p []byte) error {
	end := r.at + int64(len(p))
	if end-r.fl.off-header > maxRecord {
		return fmt.Errorf("a record of more than %d bytes", maxRecord)
	}
	if end > r.fl.size {
		if err := r.fl.grow(end); err != nil {
			return err
		}
	}
	if _, err := r.fl.f.WriteAt(p, r.at); err != nil {
		return err
	}
	r.crc = crc32.Update(r.crc, castagnoli, p)
	r.at = end
	return nil
}

// grow writes zeros from the file's written size to past end, in steps of
// Grow, and syncs the file with its new size.
func (fl *file) grow(end int64) error {
	size := (end + Grow - 1) / Grow * Grow
	zeros := make([]byte, min(size-fl.size, Grow))
	for at := fl.size; at < size; at += int64(len(zeros)) {
		if _, err := fl.f.WriteAt(zeros[:min(int64(len(zeros)), size-at)], at); err != nil {
			return err
		}
	}
	if err := fl.f.Sync(); err != nil {
		return err
	}
	fl.size = size
	return nil
}

// Rotate makes the other file the one appended to, from its start, and
// returns the sequence number of the last record of the file left (0 when
// it holds none), which the caller's checkpoint of that file notes in its
// store. The caller rotates only once its store has every record of the
// other file, which is written over.
func (l *Log) Rotate() uint64 {
	left := l.files[l.cur].last
	l.cur = 1 - l.cur
	l.files[l.cur].off, l.files[l.cur].last = 0, 0
	return left
}

// Pending is the number of bytes appended to the current file since it
// became current.
func (l *Log) Pending() int64 { return l.files[l.cur].off }

// Close closes the log's files. Records appended stay durable; the next
// Open returns those the store lacks.
func (l *Log) Close() error {
	var errs []error
	for _, fl := range l.files {
		if fl != nil && fl.f != nil {
			errs = append(errs, fl.f.Close())
		}
	}
	return errors.Join(errs...)
}
