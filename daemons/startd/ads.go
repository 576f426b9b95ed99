package startd

import (
	"math"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/daemon"
)

// Slot ad attributes of the startd's own.
const (
	attrParentSlot   = "ParentSlotName" // a dynamic slot's partitionable slot
	attrStartdIPAddr = "StartdIpAddr"
)

// slotAd builds a slot's ad as of now.
func (s *Server) slotAd(st *slotState) *classad.Ad {
	ad := classad.NewAd()
	s.identityAttrs(ad, st)
	s.stateAttrs(ad, st)
	s.resourceAttrs(ad, st)
	s.machineAttrs(ad, st)
	s.mon.publish(ad)
	s.policyAttrs(ad, st)
	s.claimAttrs(ad, st)
	s.workAttrs(ad, st)
	return ad
}

// activationAd returns a slot's ad for an activation (the lock is held):
// the ad of its last activation brought up to date in place when it has
// the same attributes in the same order, as it does from one job of a
// claim to the next, else a new one. An attribute whose expression did not
// change (the same literal, the same policy expression) keeps what
// evaluating it compiled: the slot's Requirements are evaluated against
// every job it runs.
func (s *Server) activationAd(st *slotState) *classad.Ad {
	fresh, ad := s.slotAd(st), st.activated
	if ad == nil || !sameNames(ad, fresh) {
		st.activated = fresh
		return fresh
	}
	for i := range fresh.Len() {
		if e := fresh.Expr(i); ad.Expr(i) != e {
			ad.Set(fresh.Name(i), e)
		}
	}
	return ad
}

// sameNames reports whether two ads have the same attribute names in the
// same order.
func sameNames(a, b *classad.Ad) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if a.Name(i) != b.Name(i) {
			return false
		}
	}
	return true
}

func (s *Server) identityAttrs(ad *classad.Ad, st *slotState) {
	l := &st.lits
	l.str(ad, attr.MyType, attr.TypeSlot)
	l.str(ad, attr.TargetType, attr.TypeJob)
	l.str(ad, attr.Name, st.name)
	l.str(ad, attr.Machine, s.host)
	l.str(ad, attr.MyAddress, s.addr)
	l.str(ad, attrStartdIPAddr, "<"+s.addr+">")
	if s.member != "" {
		l.str(ad, attr.Member, s.member)
		l.str(ad, attr.Incarnation, s.env.Incarnation())
	}
	l.int(ad, attr.DaemonStartTime, s.start.Unix())
	ad.Set(attr.UpdateSequence, ast.Int(s.seq))
	l.str(ad, attr.KiteVersion, daemon.Version)
	l.int(ad, attr.SlotID, int64(st.ID))
	l.str(ad, attr.SlotType, st.Kind.String())
	l.bool(ad, attr.PartitionableSlot, st.Kind == slots.Partitionable)
	if st.Kind == slots.Dynamic {
		l.bool(ad, attr.DynamicSlot, true)
		l.str(ad, attrParentSlot, s.fullName(st.Parent.Name()))
	}
}

func (s *Server) stateAttrs(ad *classad.Ad, st *slotState) {
	status := st.Status()
	l := &st.lits
	l.str(ad, attr.State, status.State.String())
	l.str(ad, attr.Activity, status.Activity.String())
	l.int(ad, attr.EnteredCurrentState, st.EnteredState().Unix())
	l.int(ad, attr.EnteredCurrentActivity, st.EnteredActivity().Unix())
	l.bool(ad, attr.Draining, s.draining)
}

func (s *Server) resourceAttrs(ad *classad.Ad, st *slotState) {
	have := st.Free
	l := &st.lits
	l.int(ad, attr.Cpus, have.Cpus)
	l.int(ad, attr.Memory, have.Memory)
	l.int(ad, attr.Disk, have.Disk)
	l.int(ad, attr.TotalSlotCpus, st.Size.Cpus)
	l.int(ad, attr.TotalSlotMemory, st.Size.Memory)
	l.int(ad, attr.TotalSlotDisk, st.Size.Disk)
	l.int(ad, attr.TotalCpus, s.machine.Cpus)
	l.int(ad, attr.TotalMemory, s.machine.MemoryMiB)
	l.int(ad, attr.TotalDisk, s.machine.DiskKiB)
	l.int(ad, attr.SlotWeight, have.Cpus)
	s.deviceAttrs(ad, st)
}

// machineAttrs are the machine's description and what the sensors read.
func (s *Server) machineAttrs(ad *classad.Ad, st *slotState) {
	m := s.machine
	l := &st.lits
	l.str(ad, attr.Arch, m.Arch)
	l.str(ad, attr.OpSys, m.OpSys)
	l.str(ad, attr.OpSysName, m.OpSysName)
	l.int(ad, attr.OpSysMajorVer, m.OpSysMajorVer)
	l.int(ad, attr.OpSysVer, m.OpSysVer)
	l.str(ad, attr.OpSysLongName, m.OpSysLongName)
	l.str(ad, attr.OpSysAndVer, m.OpSysAndVer)
	l.str(ad, attr.KernelVersion, m.KernelVersion)
	l.real(ad, attr.LoadAvg, s.load)
	l.real(ad, attr.TotalLoadAvg, s.load)
	l.int(ad, attr.KeyboardIdle, s.keyboardIdle)
	l.int(ad, attr.ConsoleIdle, s.consoleIdle)
	l.int(ad, attr.KFlops, s.kflops)
	l.int(ad, attr.Mips, s.mips)
	l.int(ad, attr.LastBenchmark, s.lastBenchmark.Unix())
	now := s.now().Local()
	l.int(ad, attr.ClockMin, int64(now.Hour()*60+now.Minute()))
	l.int(ad, attr.ClockDay, int64(now.Weekday()))
	l.bool(ad, attr.HasFileTransfer, true)
	if s.plugins != nil {
		l.str(ad, attr.HasFileTransferPluginMethods, strings.Join(s.plugins.Methods(), ","))
		ad.Set(attr.HasJobTransferPlugins, ast.Bool(true))
	}
	s.javaAttrs(ad)
	s.containerAttrs(ad)
	l.bool(ad, attr.HasSelfCheckpointTransfers, true)
	l.str(ad, attr.FileSystemDomain, s.host)
	l.str(ad, attr.UIDDomain, s.host)
	l.int(ad, attr.MachineMaxVacateTime, int64(s.cfg.KillGrace.Seconds()))
	for _, a := range s.attrs {
		ad.Set(a.name, a.expr)
	}
}

// lits are the literals of a slot's ad by attribute, kept from one ad to
// the next while their values stay the same: the ad is built anew at
// each activation (each job), and most of it does not change. Ads share
// them safely, as expressions are never changed in place.
type lits map[string]*ast.Literal

// str sets name in ad to the string v.
func (l *lits) str(ad *classad.Ad, name, v string) {
	e := (*l)[name]
	if e == nil || e.Kind != ast.StringLit || e.Str != v {
		e = l.keep(name, ast.Str(v))
	}
	ad.Set(name, e)
}

// int sets name in ad to the integer v.
func (l *lits) int(ad *classad.Ad, name string, v int64) {
	e := (*l)[name]
	if e == nil || e.Kind != ast.IntLit || e.Int != v {
		e = l.keep(name, ast.Int(v))
	}
	ad.Set(name, e)
}

// bool sets name in ad to the boolean v.
func (l *lits) bool(ad *classad.Ad, name string, v bool) {
	e := (*l)[name]
	if e == nil || e.Kind != ast.BoolLit || e.Bool != v {
		e = l.keep(name, ast.Bool(v))
	}
	ad.Set(name, e)
}

// real sets name in ad to the real number v.
func (l *lits) real(ad *classad.Ad, name string, v float64) {
	e := (*l)[name]
	if e == nil || e.Kind != ast.RealLit || math.Float64bits(e.Real) != math.Float64bits(v) {
		e = l.keep(name, ast.Real(v))
	}
	ad.Set(name, e)
}

func (l *lits) keep(name string, e *ast.Literal) *ast.Literal {
	if *l == nil {
		*l = lits{}
	}
	(*l)[name] = e
	return e
}

// policyAttrs are the policy expressions and the slot's Requirements:
// START, the job's fit, and the slot's SITA-E interval. A slot that takes
// no match (Matched, Preempting, Drained) requires false.
func (s *Server) policyAttrs(ad *classad.Ad, st *slotState) {
	for _, p := range s.policy {
		ad.Set(p.name, p.expr)
	}
	for _, a := range st.sitaAttrs {
		ad.Set(a.Name, a.Expr)
	}
	ad.Set(attr.WithinResourceLimits, s.withinLimits)
	switch st.Status().State {
	case slots.Matched, slots.Preempting, slots.Drained:
		ad.Set(attr.Requirements, ast.Bool(false))
	default:
		ad.Set(attr.Requirements, st.requirements)
	}
}

// claimAttrs are the slot's claim id and who holds it.
func (s *Server) claimAttrs(ad *classad.Ad, st *slotState) {
	id := st.claimID
	if st.claim != nil {
		id = st.preemptID
	}
	ad.Set(attr.ClaimID, ast.Str(id))
	ad.Set(attr.CondorLoadAvg, ast.Real(0))
	c := st.claim
	if c == nil {
		return
	}
	ad.Set(attr.ScheddName, ast.Str(c.scheddName))
	remoteAttrs(ad, c.job)
	if c.run == nil {
		return
	}
	ad.Set(attr.JobID, ast.Str(c.jobID))
	ad.Set(attr.JobStart, ast.Int(c.activated.Unix()))
	u := c.run.Usage()
	ad.Set(attr.CondorLoadAvg, ast.Real(u.CPURate))
	ad.Set(attr.MemoryUsage, ast.Int((u.PeakMemoryBytes+1<<20-1)>>20))
}

// remoteAttrs name who runs the claim's job: its Owner and User as the
// slot's RemoteOwner and RemoteUser, absent where the job has none.
func remoteAttrs(ad, job *classad.Ad) {
	for _, name := range [...][2]string{{attr.Owner, attr.RemoteOwner}, {attr.User, attr.RemoteUser}} {
		if e, ok := job.Lookup(name[0]); ok {
			ad.Set(name[1], e)
		} else {
			ad.Delete(name[1])
		}
	}
}
