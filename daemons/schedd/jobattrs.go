package schedd

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// The job ad's record of its matches and runs, under the names, units and
// update points of HTCondor's schedd, shadow and starter (manual: "Job
// ClassAd Attributes"), for the facts Kite has; the names are in
// internal/attr.
const (
	attrJobMachineAttrs     = "JobMachineAttrs"
	attrMachineAttrsHistory = "JobMachineAttrsHistoryLength"
)

// matched records what a match gives a job: its global id (kept from the
// first), the first match's date, the slot's size (the Provisioned
// attributes) and the slot attributes the job asked to keep
// (job_machine_attrs: MachineAttr<X>0, older matches shifted to <X>1...
// up to JobMachineAttrsHistoryLength).
func (s *Server) matched(tx *queue.Tx, j *queue.Job, c *claims.Claim, now time.Time) {
	v := tx.View(j)
	if _, ok := v.Lookup(attr.GlobalJobID); !ok {
		tx.SetString(j, attr.GlobalJobID, s.name+"#"+j.ID.String()+"#"+strconv.FormatInt(v.Int(attr.QDate, 0), 10))
	}
	if _, ok := v.Lookup(attr.FirstJobMatchDate); !ok {
		tx.SetInt(j, attr.FirstJobMatchDate, now.Unix())
	}
	if c.Slot == nil {
		return // a claim reconnected after a restart: its ad is not known
	}
	for _, p := range provisioned {
		if n, ok := classad.EvalInt(c.Slot, p.slot); ok {
			tx.SetInt(j, p.job, n)
		}
	}
	keep := v.Int(attrMachineAttrsHistory, 1)
	for _, name := range strings.FieldsFunc(v.String(attrJobMachineAttrs), func(r rune) bool { return r == ',' || r == ' ' }) {
		for n := keep - 1; n > 0; n-- {
			if e, ok := v.Lookup(machineAttr(name, n-1)); ok {
				tx.Set(j, machineAttr(name, n), e)
			}
		}
		if e, ok := slotLiteral(c.Slot, name); ok {
			tx.Set(j, machineAttr(name, 0), e)
		} else {
			tx.Delete(j, machineAttr(name, 0))
		}
	}
}

// provisioned are the slot's size attributes a match copies into the
// job's Provisioned ones.
var provisioned = []struct{ slot, job string }{
	{attr.Cpus, attr.CpusProvisioned}, {attr.Memory, attr.MemoryProvisioned}, {attr.Disk, attr.DiskProvisioned},
}

// machineAttr names the n-th last match's copy of slot attribute name.
func machineAttr(name string, n int64) string {
	return "MachineAttr" + name + strconv.FormatInt(n, 10)
}

// slotLiteral is the value of a slot attribute, as a literal.
func slotLiteral(slot *classad.Ad, name string) (ast.Expr, bool) {
	v, err := classad.EvalAttr(slot, name, nil)
	if err != nil {
		return nil, false
	}
	if s, ok := v.StringValue(); ok {
		return ast.Str(s), true
	}
	if n, ok := v.IntValue(); ok {
		return ast.Int(n), true
	}
	if f, ok := v.RealValue(); ok {
		return ast.Real(f), true
	}
	if b, ok := v.BoolValue(); ok {
		return ast.Bool(b), true
	}
	return nil, false
}

// runStarted records that a run's process began: the date, and the run
// counts (HTCondor counts a shadow per run; Kite's schedd is the shadow).
// A run that starts from a committed checkpoint is a restart
// (NumRestarts, "the number of restarts from a checkpoint").
func runStarted(tx *queue.Tx, j *queue.Job, at time.Time) {
	v := tx.View(j)
	tx.SetInt(j, attr.JobCurrentStartExecutingDate, at.Unix())
	tx.SetInt(j, attr.JobRunCount, v.Int(attr.JobRunCount, 0)+1)
	tx.SetInt(j, attr.NumShadowStarts, v.Int(attr.NumShadowStarts, 0)+1)
	restarts := v.Int(attr.NumRestarts, 0)
	if v.Int(attr.CheckpointNumber, 0) > 0 {
		restarts++
	}
	tx.SetInt(j, attr.NumRestarts, restarts)
}

// runEnded records a run's end: its wall time, the slot time (wall time
// times the slot's CPUs, HTCondor's default SlotWeight) for every run and,
// for a run that exited rather than being evicted, as committed time;
// the CPU time of all runs; the peak resident set size in KiB.
func runEnded(tx *queue.Tx, j *queue.Job, u *wire.JobUpdate) {
	v := tx.View(j)
	slot := u.WallSeconds * float64(v.Int(attr.CpusProvisioned, v.Int(attr.RequestCpus, 1)))
	tx.SetReal(j, attr.LastRemoteWallClockTime, u.WallSeconds)
	tx.SetReal(j, attr.CumulativeSlotTime, v.Real(attr.CumulativeSlotTime)+slot)
	tx.SetReal(j, attr.CumulativeRemoteUserCpu, v.Real(attr.CumulativeRemoteUserCpu)+u.UserCPU)
	tx.SetReal(j, attr.CumulativeRemoteSysCpu, v.Real(attr.CumulativeRemoteSysCpu)+u.SysCPU)
	if u.Event == wire.EventExited {
		tx.SetReal(j, attr.CommittedTime, v.Real(attr.CommittedTime)+u.WallSeconds)
		tx.SetReal(j, attr.CommittedSlotTime, v.Real(attr.CommittedSlotTime)+slot)
	}
	if u.PeakMemoryMB > 0 {
		tx.SetInt(j, attr.ResidentSetSize, u.PeakMemoryMB*1024)
	}
	runTransfers(tx, j, u)
	if a := u.Activation; a != nil {
		setup, exec, down := math.Round(a.SetupSeconds), math.Round(a.ExecutionSeconds), math.Round(a.TeardownSeconds)
		tx.SetInt(j, attr.ActivationSetupDuration, int64(setup))
		tx.SetInt(j, attr.ActivationExecutionDuration, int64(exec))
		tx.SetInt(j, attr.ActivationTeardownDuration, int64(down))
		tx.SetInt(j, attr.ActivationDuration, int64(math.Round(a.SetupSeconds+a.ExecutionSeconds+a.TeardownSeconds)))
	}
}

// runTransfers records a run's file transfers, as HTCondor's shadow does
// from its starter's report: BytesRecvd and BytesSent, from the job's side
// (its input and its output moved with the schedd, all runs together),
// and TransferInputStats and TransferOutputStats, nested ads with each
// method's FilesCount and SizeBytes of the last run (...LastRun) and of
// all runs (...Total). A run that moved nothing leaves the statistics as
// they were.
func runTransfers(tx *queue.Tx, j *queue.Job, u *wire.JobUpdate) {
	if u.Transfers == nil && u.Activation == nil {
		return // no starter ran it (a job of the schedd's own universes)
	}
	var in, out map[string]wire.TransferCount
	if t := u.Transfers; t != nil {
		in, out = t.In, t.Out
	}
	v := tx.View(j)
	tx.SetReal(j, attr.BytesRecvd, v.Real(attr.BytesRecvd)+float64(in[cedarMethod].Bytes))
	tx.SetReal(j, attr.BytesSent, v.Real(attr.BytesSent)+float64(out[cedarMethod].Bytes))
	for name, counts := range map[string]map[string]wire.TransferCount{attr.TransferInputStats: in, attr.TransferOutputStats: out} {
		if len(counts) > 0 {
			old, _ := v.Lookup(name)
			tx.Set(j, name, transferStats(old, counts))
		}
	}
}

// cedarMethod names the files moved with the schedd in the statistics.
const cedarMethod = "Cedar"

// transferStats is a statistics ad: this run's counts, and the totals
// with old's (a previous statistics ad, or nil).
func transferStats(old ast.Expr, counts map[string]wire.TransferCount) *ast.Record {
	prev, _ := old.(*ast.Record)
	total := func(name string, n int64) int64 {
		if prev == nil {
			return n
		}
		if i := prev.Lookup(name + "Total"); i >= 0 {
			if t, ok := classad.LiteralInt(prev.Attrs[i].Value); ok {
				return t + n
			}
		}
		return n
	}
	rec := &ast.Record{At: ast.NoPos}
	methods := make([]string, 0, len(counts))
	for m := range counts {
		methods = append(methods, m)
	}
	slices.Sort(methods)
	for _, m := range methods {
		c := counts[m]
		for _, stat := range []struct {
			name string
			n    int64
		}{{m + "FilesCount", c.Files}, {m + "SizeBytes", c.Bytes}} {
			rec.Set(stat.name+"LastRun", ast.Int(stat.n))
			rec.Set(stat.name+"Total", ast.Int(total(stat.name, stat.n)))
		}
	}
	return rec
}
