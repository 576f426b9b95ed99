package userlog

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var at = time.Date(2026, 11, 22, 13, 9, 28, 0, time.UTC)

// sample is one event of each kind the schedd writes.
var sample = []Event{
	{Code: Submit, Job: JobID{Cluster: 12}, Time: at, Host: "<10.0.0.1:9618>"},
	{Code: Submit, Job: JobID{Cluster: 12, Proc: 1}, Time: at, Host: "<10.0.0.1:9618>", Notes: "DAG Node: A"},
	{Code: Execute, Job: JobID{Cluster: 12}, Time: at.Add(time.Second), Host: "<10.0.0.2:9620>", Slot: "slot1_1@node2"},
	{Code: ImageSize, Job: JobID{Cluster: 12}, Time: at.Add(2 * time.Second), Size: 2500, MemoryMB: 3, RSSKB: 2048},
	{Code: Evicted, Job: JobID{Cluster: 12}, Time: at.Add(3 * time.Second), RunRemote: Usage{User: 61, Sys: 2}, Reason: "The startd stopped answering"},
	{Code: Terminated, Job: JobID{Cluster: 12}, Time: at.Add(90061 * time.Second), Normal: true, ReturnCode: 3,
		RunRemote: Usage{User: 90061, Sys: 5}, TotalRemote: Usage{User: 90122, Sys: 7}, SentBytes: 10, ReceivedBytes: 20, TotalSent: 30, TotalReceived: 40,
		Resources: []Resource{{"Cpus", -1, 1, 1}, {"Disk (KB)", 12, 1024, 16705076}, {"Memory (MB)", 3, 128, 128}}},
	{Code: Terminated, Job: JobID{Cluster: 12, Proc: 2}, Time: at, Signal: 9},
	{Code: Aborted, Job: JobID{Cluster: 1234, Proc: 5}, Time: at, Reason: "via kite rm (by user alice)"},
	{Code: Held, Job: JobID{Cluster: 12, Proc: 3}, Time: at, Reason: "via kite hold (by user alice)", HoldCode: 1},
	{Code: Held, Job: JobID{Cluster: 12, Proc: 4}, Time: at, Reason: "The job's PeriodicHold expression became true", HoldCode: 3, HoldSubCode: 42},
	{Code: Released, Job: JobID{Cluster: 12, Proc: 3}, Time: at, Reason: "via kite release (by user alice)"},
	{Code: ShadowException, Job: JobID{Cluster: 12}, Time: at, Reason: "claim lost"},
	{Code: Suspended, Job: JobID{Cluster: 12}, Time: at},
	{Code: Unsuspended, Job: JobID{Cluster: 12}, Time: at},
	{Code: RemoteError, Job: JobID{Cluster: 12}, Time: at, Slot: "slot1@node2", Reason: "input file in.dat: no such file"},
	{Code: Generic, Job: JobID{Cluster: 12}, Time: at, Reason: "a note"},
	// Late materialization's cluster events (HTCondor's ClusterSubmitEvent,
	// ClusterRemoveEvent, FactoryPausedEvent, FactoryResumedEvent).
	{Code: ClusterSubmit, Job: JobID{Cluster: 13, Proc: -1}, Time: at, Host: "<10.0.0.1:9618>"},
	{Code: FactoryPaused, Job: JobID{Cluster: 13, Proc: -1}, Time: at, Reason: "via kite hold (by user alice)", PauseCode: 1, HoldCode: 1},
	{Code: FactoryResumed, Job: JobID{Cluster: 13, Proc: -1}, Time: at, Reason: "via kite release (by user alice)"},
	{Code: ClusterRemove, Job: JobID{Cluster: 13, Proc: -1}, Time: at, Materialized: 7, Items: 7, Completion: CompletionIncomplete},
	{Code: ClusterRemove, Job: JobID{Cluster: 14, Proc: -1}, Time: at, Materialized: 3, Items: 3, Completion: CompletionComplete},
	{Code: ClusterRemove, Job: JobID{Cluster: 15, Proc: -1}, Time: at, Materialized: 2, Items: 2, Completion: CompletionPaused, Notes: "held"},
}

// The text of each event is HTCondor's; a golden file holds it.
func TestFormatGolden(t *testing.T) {
	var buf []byte
	o := Options{UTC: true}
	for i := range sample {
		buf = o.Append(buf, &sample[i])
	}
	golden(t, "events.log", buf)
	legacy := Options{Legacy: true, UTC: true, SubSecond: true}.Append(nil, &sample[0])
	if want := "000 (012.000.000) 11/22 13:09:28.000Z Job submitted from host: <10.0.0.1:9618>\n...\n"; string(legacy) != want {
		t.Errorf("legacy header:\n%s\nwant\n%s", legacy, want)
	}
	local := Options{}.Append(nil, &sample[0])
	if want := "000 (012.000.000) " + at.Local().Format("2006-01-02 15:04:05") + " Job"; !strings.HasPrefix(string(local), want) {
		t.Errorf("local header %q, want prefix %q", local, want)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", name, got)
	}
}

// What the reader takes back from each event is what was written.
func TestRoundTrip(t *testing.T) {
	for _, o := range []Options{{UTC: true}, {}, {Legacy: true}, {SubSecond: true, UTC: true}} {
		var buf []byte
		for i := range sample {
			buf = o.Append(buf, &sample[i])
		}
		r := NewReader(bytes.NewReader(buf), "events.log")
		r.now = func() time.Time { return at.Add(48 * time.Hour) } // legacy dates have no year
		for i, want := range sample {
			got, err := r.Next()
			if err != nil {
				t.Fatalf("%+v: event %d: %v", o, i, err)
			}
			if got.Code != want.Code || got.Job != want.Job || !got.Time.Equal(want.Time) {
				t.Errorf("%+v: event %d: got %v %v %v, want %v %v %v", o, i, got.Code, got.Job, got.Time, want.Code, want.Job, want.Time)
			}
			checkDetails(t, i, got, want)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("after the last event: %v", err)
		}
	}
}

func checkDetails(t *testing.T, i int, got, want Event) {
	t.Helper()
	type details struct {
		Host, Slot, Notes      string
		HoldCode, HoldSubCode  int
		Normal                 bool
		ReturnCode, Signal     int
		RunRemote, TotalRemote Usage
		Size, MemoryMB, RSSKB  int64
		Materialized, Items    int64
		Completion             Completion
		PauseCode              int
	}
	pick := func(e Event) details {
		return details{e.Host, e.Slot, e.Notes, e.HoldCode, e.HoldSubCode, e.Normal, e.ReturnCode, e.Signal, e.RunRemote, e.TotalRemote, e.Size, e.MemoryMB, e.RSSKB,
			e.Materialized, e.Items, e.Completion, e.PauseCode}
	}
	if pick(got) != pick(want) {
		t.Errorf("event %d: got %+v, want %+v", i, pick(got), pick(want))
	}
	switch want.Code {
	case Aborted, Held, Released, ShadowException, RemoteError, FactoryPaused, FactoryResumed:
		if got.Reason != want.Reason {
			t.Errorf("event %d: reason %q, want %q", i, got.Reason, want.Reason)
		}
	}
}

// A reader following a growing log returns each event once it is whole.
func TestFollow(t *testing.T) {
	var whole []byte
	o := Options{UTC: true}
	for i := range sample[:6] {
		whole = o.Append(whole, &sample[i])
	}
	var log growing
	r := NewReader(&log, "")
	var got []Event
	for i := 0; i < len(whole); i += 7 { // arrive in pieces of 7 bytes
		log.data = append(log.data, whole[i:min(i+7, len(whole))]...)
		for {
			ev, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ev)
		}
	}
	if len(got) != 6 {
		t.Fatalf("got %d events, want 6", len(got))
	}
	for i, ev := range got {
		if ev.Code != sample[i].Code || ev.Job != sample[i].Job {
			t.Errorf("event %d: %v %v", i, ev.Code, ev.Job)
		}
	}
}

// growing is a reader over data that grows: at its end it says EOF, and
// reads on where it stopped when more arrives.
type growing struct {
	data []byte
	off  int
}

func (g *growing) Read(p []byte) (int, error) {
	if g.off == len(g.data) {
		return 0, io.EOF
	}
	n := copy(p, g.data[g.off:])
	g.off += n
	return n, nil
}

// A malformed event is reported with its line and skipped.
func TestSyntaxErrors(t *testing.T) {
	text := "000 (001.000.000) 2026-11-22 13:09:28 Job submitted from host: <h:1>\n...\n" +
		"garbage here\nmore\n...\n" +
		"005 (001.000.000) 2026-99-22 13:09:28 Job terminated.\n...\n" +
		"009 (001.000.000) 2026-11-22 13:09:29 Job was aborted.\n\tvia kite rm\n...\n"
	r := NewReader(strings.NewReader(text), "job.log")
	var codes []string
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			codes = append(codes, se.Error())
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, fmt.Sprint(ev.Code))
	}
	want := []string{"Submit", `job.log:3: not an event header: "garbage here"`, `job.log:6: bad time "2026-99-22 13:09:28"`, "JobAborted"}
	if !reflect.DeepEqual(codes, want) {
		t.Errorf("got %q\nwant %q", codes, want)
	}
}

// Concurrent appends to one file never interleave events.
func TestConcurrentAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.log")
	var l Log
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 50 {
				ev := Event{Code: Held, Job: JobID{Cluster: int64(w + 1), Proc: int64(i)}, Time: at, Reason: strings.Repeat("x", 500), HoldCode: 1}
				if err := l.Append(path, ev, ev); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f, path)
	n := 0
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil || ev.Code != Held || len(ev.Reason) != 500 {
			t.Fatalf("event %d: %v %+v", n, err, ev)
		}
		n++
	}
	if n != 800 {
		t.Errorf("read %d events, want 800", n)
	}
}

// The reader never panics and reports errors with a line.
func FuzzReader(f *testing.F) {
	var buf []byte
	for i := range sample {
		buf = Options{}.Append(buf, &sample[i])
	}
	f.Add(buf)
	f.Add([]byte("000 (1.2.3) 01/02 03:04:05 x\n...\n"))
	f.Add([]byte("...\n...\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "f")
		for range 10000 {
			_, err := r.Next()
			if err == io.EOF {
				return
			}
			var se *SyntaxError
			if err != nil && (!errors.As(err, &se) || se.Line < 1) {
				t.Fatalf("error %v", err)
			}
		}
		t.Fatal("reader did not finish")
	})
}

// The lines written without fmt are those its verbs write, for any value
// (the golden file holds the common ones).
func TestLinesAsFmtWritesThem(t *testing.T) {
	for _, secs := range []float64{0, 0.4, 0.5, 59, 61, 3599.6, 86399, 86400, 90061, 1e9, -5, math.NaN(), math.Inf(1)} {
		s := int64(max(secs, 0) + 0.5)
		want := fmt.Sprintf("%d %02d:%02d:%02d", s/86400, s%86400/3600, s%3600/60, s%60)
		if got := string(appendDuration(nil, secs)); got != want {
			t.Errorf("duration %v: %q, want %q", secs, got, want)
		}
	}
	for _, n := range []int64{0, 7, -7, 123456789012, math.MinInt64} {
		if got, want := string(bytesLine(nil, n, "X")), fmt.Sprintf("\t%d  -  X\n", n); got != want {
			t.Errorf("bytes %d: %q, want %q", n, got, want)
		}
	}
	for _, r := range []Resource{{"Cpus", -1, 1, 1}, {"Mémoire (MB)", 1.5, 123456789, 1e21}, {"AVeryLongResourceNameIndeed", 0, 0.25, 3}} {
		usage := ""
		if r.Usage >= 0 {
			usage = number(r.Usage)
		}
		want := "\tPartitionable Resources :    Usage  Request Allocated\n" +
			fmt.Sprintf("\t   %-20s : %8s %8s %9s\n", r.Name, usage, number(r.Request), number(r.Allocated))
		if got := string(resources(nil, []Resource{r})); got != want {
			t.Errorf("resource %v:\n%q, want\n%q", r, got, want)
		}
	}
}
