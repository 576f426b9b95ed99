package startd

import (
	"context"
	"io"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/daemons/startd/starter"
	"github.com/kite-sched/kite/internal/metrics"
	"github.com/kite-sched/kite/internal/wire"
)

// startdMetrics are the startd's Prometheus metrics (GET /metrics): its
// slots by state and activity, the jobs it starts and how they end, how
// long a job takes from activation to its process, its sandbox setup and
// the bytes its jobs' files move.
type startdMetrics struct {
	started  prometheus.Counter
	ended    *prometheus.CounterVec
	latency  prometheus.Histogram
	phases   *prometheus.HistogramVec
	bytes    *prometheus.CounterVec
	files    *prometheus.CounterVec
	failures *prometheus.CounterVec
}

const subsystem = metrics.Subsystem("startd")

// The directions of file transfer, as metrics label them.
const (
	dirInput  = "input"
	dirOutput = "output"
)

// newMetrics makes the startd's registry and metrics.
func (s *Server) newMetrics() (*prometheus.Registry, *startdMetrics) {
	m := &startdMetrics{
		started: prometheus.NewCounter(subsystem.Counter("jobs_started_total", "Jobs whose process started.")),
		ended: prometheus.NewCounterVec(subsystem.Counter("jobs_ended_total",
			"Jobs that ended, by their last event: exited, evicted, held or failed (could not start)."), []string{"event"}),
		latency: prometheus.NewHistogram(subsystem.Histogram("job_start_latency_seconds",
			"Time from a claim's activation to its job's process start: sandbox, input transfer and exec.", nil)),
		phases: prometheus.NewHistogramVec(subsystem.Histogram("job_phase_duration_seconds",
			"Time of a job's phases besides running it: sandbox (its directory and ads), input and output (file transfer).", nil), []string{"phase"}),
		bytes: prometheus.NewCounterVec(subsystem.Counter("transfer_bytes_total",
			"Bytes of job files moved, by direction: input (from the schedd) and output (to it)."), []string{"direction"}),
		files: prometheus.NewCounterVec(subsystem.Counter("transfer_files_total",
			"Job files moved whole, by direction."), []string{"direction"}),
		failures: prometheus.NewCounterVec(subsystem.Counter("transfer_failures_total",
			"Job file transfers that failed, by direction."), []string{"direction"}),
	}
	for _, e := range []string{wire.EventExited, wire.EventEvicted, wire.EventHeld, wire.EventFailed} {
		m.ended.WithLabelValues(e)
	}
	for _, p := range []string{starter.PhaseSandbox, starter.PhaseInput, starter.PhaseOutput} {
		m.phases.WithLabelValues(p)
	}
	for _, d := range []string{dirInput, dirOutput} {
		m.bytes.WithLabelValues(d)
		m.files.WithLabelValues(d)
		m.failures.WithLabelValues(d)
	}
	reg := metrics.NewRegistry()
	reg.MustRegister(m.started, m.ended, m.latency, m.phases, m.bytes, m.files, m.failures,
		metrics.NewGaugeFunc(subsystem.Desc("slots", "Slots by state and activity (partitionable slots and their dynamic slots each count).", "state", "activity"), s.emitSlots),
		metrics.NewGaugeFunc(subsystem.Desc("cpus", "The machine's cores by use: claimed (by dynamic and static slots under a claim) and free.", "use"), s.emitCpus),
		prometheus.NewGaugeFunc(subsystem.Gauge("machine_memory_bytes", "The machine's memory the slots share."),
			func() float64 { return float64(s.machine.MemoryMiB) * (1 << 20) }),
	)
	return reg, m
}

// emitSlots reports every state and activity a slot can be in, with the
// number of slots in it now.
func (s *Server) emitSlots(emit metrics.Emit) {
	counts := map[slots.Status]int{}
	s.mu.Lock()
	for _, st := range s.all() {
		counts[st.Status()]++
	}
	s.mu.Unlock()
	for _, st := range slots.Statuses {
		emit(float64(counts[st]), st.State.String(), st.Activity.String())
	}
}

// emitCpus reports the cores claimed and free.
func (s *Server) emitCpus(emit metrics.Emit) {
	var claimed int64
	s.mu.Lock()
	for _, st := range s.all() {
		if st.Kind != slots.Partitionable && st.claim != nil {
			claimed += st.Size.Cpus
		}
	}
	s.mu.Unlock()
	emit(float64(claimed), "claimed")
	emit(float64(max(s.machine.Cpus-claimed, 0)), "free")
}

// report counts a job's events on their way to its schedd: a start, with
// the time since the claim's activation, or an end.
func (m *startdMetrics) report(now func() time.Time, activated time.Time, next func(context.Context, wire.JobUpdate) error) func(context.Context, wire.JobUpdate) error {
	return func(ctx context.Context, u wire.JobUpdate) error {
		switch u.Event {
		case wire.EventStarted:
			m.started.Inc()
			m.latency.Observe(max(now().Sub(activated), 0).Seconds())
		case wire.EventCheckpointed: // the job runs on
		default:
			m.ended.WithLabelValues(u.Event).Inc()
		}
		return next(ctx, u)
	}
}

// timing records the duration of a job's phase.
func (m *startdMetrics) timing(phase string, d time.Duration) {
	m.phases.WithLabelValues(phase).Observe(d.Seconds())
}

// transfer counts the bytes and files a job's transfer moves.
func (m *startdMetrics) transfer(t starter.Transfer) starter.Transfer { return countingTransfer{t, m} }

type countingTransfer struct {
	next starter.Transfer
	m    *startdMetrics
}

// Fetch counts an input file's bytes as they arrive.
func (c countingTransfer) Fetch(ctx context.Context, name string, w io.Writer) (string, error) {
	cw := &countingWriter{w: w}
	sum, err := c.next.Fetch(ctx, name, cw)
	c.m.bytes.WithLabelValues(dirInput).Add(float64(cw.n))
	c.m.count(dirInput, err)
	return sum, err
}

// Send counts an output file's bytes as they leave.
func (c countingTransfer) Send(ctx context.Context, name string, r io.Reader, size int64, sum string) error {
	cr := &countingReader{r: r}
	err := c.next.Send(ctx, name, cr, size, sum)
	c.m.bytes.WithLabelValues(dirOutput).Add(float64(cr.n))
	c.m.count(dirOutput, err)
	return err
}

func (m *startdMetrics) count(dir string, err error) {
	if err != nil {
		m.failures.WithLabelValues(dir).Inc()
		return
	}
	m.files.WithLabelValues(dir).Inc()
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
