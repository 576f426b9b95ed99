package startd

import (
	"math"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/daemon"
)

// Slot ad attributes of the startd's own.
const (
	attrParentSlot   = "ParentSlotName" // a dynamic slot's partitionable slot
	attrStartdIPAddr = "StartdIpAddr"
)

// slotAdSpare is room a slot's ad is made with beyond the attributes its
// last one had: a claim's job may add RemoteOwner and RemoteUser.
const slotAdSpare = 4

// slotAd builds a slot's ad as of now (the lock is held), in an ad made
// with room for it.
func (s *Server) slotAd(st *slotState) *classad.Ad {
	ad := eval.NewAdRoom(st.adLen + slotAdSpare)
	s.slotAttrs(ad, st)
	return ad
}

// slotAttrs sets a slot's attributes in ad, which has none, and notes
// how many it has.
func (s *Server) slotAttrs(ad *classad.Ad, st *slotState) {
	st.lits.begin()
	s.identityAttrs(ad, st)
	s.stateAttrs(ad, st)
	s.resourceAttrs(ad, st)
	s.machineAttrs(ad, st)
	s.mon.publish(ad)
	s.policyAttrs(ad, st)
	s.claimAttrs(ad, st)
	s.workAttrs(ad, st)
	st.adLen = ad.Len()
}

// activationAd returns a slot's ad for an activation (the lock is held):
// the ad of its last activation brought up to date in place when it has
// the same attributes in the same order, as it does from one job of a
// claim to the next, else a new one. An attribute whose expression did not
// change (the same literal, the same policy expression) keeps what
// evaluating it compiled: the slot's Requirements are evaluated against
// every job it runs. The ad as of now is built in the slot's scratch ad,
// which is kept for the next activation unless it becomes the slot's ad.
func (s *Server) activationAd(st *slotState) *classad.Ad {
	fresh := st.scratch
	if fresh == nil {
		fresh = eval.NewAdRoom(st.adLen + slotAdSpare)
	} else {
		fresh.Reset()
	}
	s.slotAttrs(fresh, st)
	ad := st.activated
	if ad == nil || !sameNames(ad, fresh) {
		st.activated, st.scratch = fresh, nil // not reused: the next one is built in another
		return fresh
	}
	st.scratch = fresh
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
	l.int(ad, attr.UpdateSequence, s.seq)
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
		l.str(ad, attr.HasFileTransferPluginMethods, s.methods)
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

// lits are the literals of a slot's ad, kept from one ad to the next
// while their values stay the same: the ad is built anew at each
// activation (each job), and most of it does not change. Ads share them
// safely, as expressions are never changed in place. An ad sets its
// literals in the order the last one did, so each is first looked for
// where the last ad set it, then by name.
type lits struct {
	byName map[string]*ast.Literal
	order  []namedLit // as the last ad set them
	next   int        // where in order the ad being built is
}

type namedLit struct {
	name string
	lit  *ast.Literal
}

// begin starts an ad.
func (l *lits) begin() { l.next = 0 }

// str sets name in ad to the string v.
func (l *lits) str(ad *classad.Ad, name, v string) {
	e := l.last(name)
	if e == nil || e.Kind != ast.StringLit || e.Str != v {
		e = l.keep(name, ast.Str(v))
	}
	l.set(ad, name, e)
}

// int sets name in ad to the integer v.
func (l *lits) int(ad *classad.Ad, name string, v int64) {
	e := l.last(name)
	if e == nil || e.Kind != ast.IntLit || e.Int != v {
		e = l.keep(name, ast.Int(v))
	}
	l.set(ad, name, e)
}

// bool sets name in ad to the boolean v.
func (l *lits) bool(ad *classad.Ad, name string, v bool) {
	e := l.last(name)
	if e == nil || e.Kind != ast.BoolLit || e.Bool != v {
		e = l.keep(name, ast.Bool(v))
	}
	l.set(ad, name, e)
}

// real sets name in ad to the real number v.
func (l *lits) real(ad *classad.Ad, name string, v float64) {
	e := l.last(name)
	if e == nil || e.Kind != ast.RealLit || math.Float64bits(e.Real) != math.Float64bits(v) {
		e = l.keep(name, ast.Real(v))
	}
	l.set(ad, name, e)
}

// last returns a literal name had: the one the last ad set at this
// point, else its latest.
func (l *lits) last(name string) *ast.Literal {
	if l.next < len(l.order) && l.order[l.next].name == name {
		return l.order[l.next].lit
	}
	return l.byName[name]
}

// keep makes e name's latest literal.
func (l *lits) keep(name string, e *ast.Literal) *ast.Literal {
	if l.byName == nil {
		l.byName = map[string]*ast.Literal{}
	}
	l.byName[name] = e
	return e
}

// set sets name to e in ad, noting it at this point of the ad.
func (l *lits) set(ad *classad.Ad, name string, e *ast.Literal) {
	if l.next < len(l.order) {
		l.order[l.next] = namedLit{name, e}
	} else {
		l.order = append(l.order, namedLit{name, e})
	}
	l.next++
	ad.Set(name, e)
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
	l := &st.lits
	l.str(ad, attr.ClaimID, id)
	l.real(ad, attr.CondorLoadAvg, 0)
	c := st.claim
	if c == nil {
		return
	}
	l.str(ad, attr.ScheddName, c.scheddName)
	remoteAttrs(ad, c.job)
	if c.run == nil {
		return
	}
	l.str(ad, attr.JobID, c.jobID)
	l.int(ad, attr.JobStart, c.activated.Unix())
	u := c.run.Usage()
	l.real(ad, attr.CondorLoadAvg, u.CPURate)
	l.int(ad, attr.MemoryUsage, (u.PeakMemoryBytes+1<<20-1)>>20)
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
