package startd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/reliability"
	"github.com/kite-sched/kite/internal/wire"
)

// Node monitoring (JoSchKa's, papers 000 and 001; internal/reliability):
// the startd records how the jobs it ran ended, how fast its benchmark
// was and how long it stayed up, keeps the record in its state directory
// and publishes it in every slot ad (KiteReliability, KiteBenchmarkIndex,
// KiteAvgFailedTime, ...), so that Rank and Requirements expressions and
// the negotiator's strategies can prefer reliable machines.
//
//	job exited by itself ─────────────────────▶ completed (+1)
//	evicted by the startd: PREEMPT, KILL, START,
//	  preemption, lease expired, shutdown,
//	  drain; found running at a restart ──────▶ aborted (-1)
//	vacated or released by its schedd (held,
//	  removed, another instance won), held,
//	  failed to start ────────────────────────▶ not counted: not the machine's doing
//
// A change is written (JSON, atomic rename, fsync) before the slot ads
// show it. The record also notes when the current period up began and,
// at each write and every heartbeat, when the startd was last seen up: a
// restart that finds the period still open knows the startd crashed, ends
// the period at the last sign of life, and counts each sandbox left
// behind as a job the crash aborted.

// monitorFile is the record's file in the state directory.
const monitorFile = "reliability.json"

// monitorVersion is the record's layout version.
const monitorVersion = 1

// The benchmark's reference: JoSchKa's classes split the time a fixed
// benchmark takes at 5, 10, 15 and 20 s. Kite's benchmark measures speed
// in a tenth of a second instead (resources.Benchmark); a machine as fast
// as the reference (2 GFLOPS and 1000 MIPS by Kite's measure, a server
// core of 2024) is taken to need refBenchmarkMs, the middle class B = 0;
// a machine twice as fast needs half, one twice as slow twice as much.
const (
	refKFlops      = 2_000_000
	refMips        = 1_000
	refBenchmarkMs = 10_000
)

// benchmarkMs is JoSchKa's benchmark time rB of a machine of the measured
// speeds: the reference time scaled by the mean of the two speed ratios.
func benchmarkMs(kflops, mips int64) float64 {
	if kflops <= 0 || mips <= 0 {
		return 0
	}
	return refBenchmarkMs * (float64(refKFlops)/float64(kflops) + float64(refMips)/float64(mips)) / 2
}

// monitorRecord is the file's content.
type monitorRecord struct {
	Version int              `json:"version"`
	Node    reliability.Node `json:"node"`
	// UpSince is when the current period up began and LastSeen when the
	// startd was last known up (Unix seconds); UpSince is 0 after a
	// graceful stop.
	UpSince  int64 `json:"up_since,omitempty"`
	LastSeen int64 `json:"last_seen,omitempty"`
}

// monitor keeps the node monitoring record.
type monitor struct {
	path    string // "" keeps the record in memory only
	log     *slog.Logger
	changed func() // wakes the advertiser once a change is written
	kick    chan struct{}

	mu      sync.Mutex
	rec     monitorRecord
	seq     uint64 // outcome changes made
	writeMu sync.Mutex
	shown   uint64 // the change the published record holds
	pub     atomic.Pointer[reliability.Node]
}

// openMonitor reads the record kept in dir (none yet is a fresh record);
// dir "" keeps the record in memory only. A record that cannot be read
// is an error: the startd does not start on a record it would overwrite.
func openMonitor(dir string, log *slog.Logger) (*monitor, error) {
	m := &monitor{log: log, kick: make(chan struct{}, 1), changed: func() {}}
	m.rec.Version = monitorVersion
	m.pub.Store(&reliability.Node{})
	if dir == "" {
		return m, nil
	}
	m.path = filepath.Join(dir, monitorFile)
	data, err := os.ReadFile(m.path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("node monitoring record: %w", err)
	}
	m.rec = monitorRecord{}
	if err := decodeRecord(data, &m.rec); err != nil {
		return nil, fmt.Errorf("node monitoring record %s: %w (move it away to start afresh)", m.path, err)
	}
	m.pub.Store(cloneNode(&m.rec.Node))
	return m, nil
}

// decodeRecord reads a record strictly: unknown fields, a newer layout
// and values Done, Abort and Up cannot make are errors.
func decodeRecord(data []byte, rec *monitorRecord) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(rec); err != nil {
		return err
	}
	switch {
	case rec.Version > monitorVersion:
		return fmt.Errorf("layout %d is newer than this Kite's %d", rec.Version, monitorVersion)
	case rec.Version < 1:
		return fmt.Errorf("no layout version")
	case rec.UpSince < 0 || rec.LastSeen < 0:
		return fmt.Errorf("negative times")
	}
	return rec.Node.Validate()
}

// recover ends a period up that a crash left open, at the last sign of
// life, and counts each job found running (a sandbox the crash left,
// made at the given times) as aborted after working until then.
func (m *monitor) recover(sandboxes []time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := &m.rec
	if r.UpSince > 0 && r.LastSeen >= r.UpSince {
		r.Node.Up(float64(r.LastSeen - r.UpSince))
		m.seq++
	}
	for _, made := range sandboxes {
		work := 0.0
		if r.LastSeen > 0 {
			work = max(0, float64(r.LastSeen)-float64(made.Unix()))
		}
		r.Node.Abort(work, 0)
		m.seq++
	}
	r.UpSince = 0
}

// begin opens a period up at now with the machine's benchmark time (0:
// unknown, the last one stays) and writes the record, so that the first
// ads show it.
func (m *monitor) begin(now time.Time, benchMs float64) error {
	m.mu.Lock()
	if benchMs > 0 && benchMs != m.rec.Node.Benchmark {
		m.rec.Node.Benchmark = benchMs
		m.seq++
	}
	m.rec.UpSince = now.Unix()
	m.mu.Unlock()
	return m.flush(now)
}

// done records a job that exited by itself after work seconds.
func (m *monitor) done(work time.Duration) {
	m.record(func(n *reliability.Node) { n.Done(max(0, work.Seconds()), 0) })
}

// abort records a job the machine lost after work seconds.
func (m *monitor) abort(work time.Duration) {
	m.record(func(n *reliability.Node) { n.Abort(max(0, work.Seconds()), 0) })
}

func (m *monitor) record(change func(*reliability.Node)) {
	m.mu.Lock()
	change(&m.rec.Node)
	m.seq++
	m.mu.Unlock()
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// run writes changes as they come, at most one write every gap (the
// changes of a gap are written at once: the slot ads, which show the
// record only once written, gather their changes as long), and the last
// sign of life every heartbeat, until ctx is done.
func (m *monitor) run(ctx context.Context, heartbeat, gap time.Duration, now func() time.Time) {
	t := time.NewTicker(heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.kick:
		case <-t.C:
		}
		if err := m.flush(now()); err != nil {
			m.log.Error("node monitoring record not written", "err", err)
		}
		if gap > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(gap):
			}
		}
	}
}

// end closes the period up at now and writes the record: the startd
// stops gracefully.
func (m *monitor) end(now time.Time) error {
	m.mu.Lock()
	if m.rec.UpSince > 0 {
		m.rec.Node.Up(max(0, float64(now.Unix()-m.rec.UpSince)))
		m.rec.UpSince = 0
		m.seq++
	}
	m.mu.Unlock()
	return m.flush(now)
}

// flush writes the record as it is, with now as the last sign of life,
// then publishes it.
func (m *monitor) flush(now time.Time) error {
	m.writeMu.Lock()
	defer m.writeMu.Unlock()
	m.mu.Lock()
	m.rec.LastSeen = now.Unix()
	data, err := json.MarshalIndent(&m.rec, "", "\t")
	seq, node := m.seq, cloneNode(&m.rec.Node)
	m.mu.Unlock()
	if err != nil {
		return err
	}
	if m.path != "" {
		if err := writeFileAtomic(m.path, append(data, '\n')); err != nil {
			return fmt.Errorf("node monitoring record %s: %w", m.path, err)
		}
	}
	if seq != m.shown {
		m.shown = seq
		m.pub.Store(node)
		m.changed()
	}
	return nil
}

// node returns the record the slot ads show.
func (m *monitor) node() *reliability.Node { return m.pub.Load() }

// publish writes the shown record into a slot ad.
func (m *monitor) publish(ad *classad.Ad) {
	n := m.pub.Load()
	n.Publish(ad)
	if n.Benchmark > 0 {
		ad.Set(attr.KiteBenchmark, ast.Int(int64(n.Benchmark+0.5)))
	} else {
		ad.Delete(attr.KiteBenchmark)
	}
}

// cloneNode copies a record, so that the published one never changes.
func cloneNode(n *reliability.Node) *reliability.Node {
	c := *n
	c.Failed, c.Succeeded, c.Uptimes = slices.Clone(n.Failed), slices.Clone(n.Succeeded), slices.Clone(n.Uptimes)
	c.Outcomes = slices.Clone(n.Outcomes)
	return &c
}

// writeFileAtomic replaces path with data: a temporary file in the same
// directory, synced, renamed over path, and the directory synced, so that
// a crash leaves the old file or the new one, never a mix.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// openMonitor reads the startd's node monitoring record; its changes
// wake the advertiser.
func (s *Server) openMonitor() error {
	if s.cfg.StateDir != "" {
		if err := os.MkdirAll(s.cfg.StateDir, 0o755); err != nil {
			return fmt.Errorf("startd: state directory: %w", err)
		}
	}
	m, err := openMonitor(s.cfg.StateDir, s.log)
	if err != nil {
		return fmt.Errorf("startd: %w", err)
	}
	m.changed = s.changed
	s.mon = m
	return nil
}

// sandboxMade estimates when a sandbox left behind was made: the oldest
// time among the directory and the files at its top (the job's ads are
// written first).
func sandboxMade(dir string) time.Time {
	fi, err := os.Stat(dir)
	if err != nil {
		return time.Time{}
	}
	made := fi.ModTime()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.ModTime().Before(made) {
			made = info.ModTime()
		}
	}
	return made
}

// noteOutcome records how a job that ran on a claim ended, as the table
// at the top of this file says (the lock is held).
func (s *Server) noteOutcome(c *claim, u wire.JobUpdate) {
	if s.crashed.Load() || c.activated.IsZero() {
		return
	}
	work := s.now().Sub(c.activated)
	switch {
	case u.Event == wire.EventExited:
		s.mon.done(work)
	case u.Event == wire.EventEvicted && !c.bySchedd:
		s.mon.abort(work)
	}
}
