package startd

import (
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
	s.machineAttrs(ad)
	s.mon.publish(ad)
	s.policyAttrs(ad, st)
	s.claimAttrs(ad, st)
	s.workAttrs(ad, st)
	return ad
}

func (s *Server) identityAttrs(ad *classad.Ad, st *slotState) {
	ad.Set(attr.MyType, ast.Str(attr.TypeSlot))
	ad.Set(attr.TargetType, ast.Str(attr.TypeJob))
	ad.Set(attr.Name, ast.Str(st.name))
	ad.Set(attr.Machine, ast.Str(s.host))
	ad.Set(attr.MyAddress, ast.Str(s.addr))
	ad.Set(attrStartdIPAddr, ast.Str("<"+s.addr+">"))
	if s.member != "" {
		ad.Set(attr.Member, ast.Str(s.member))
		ad.Set(attr.Incarnation, ast.Str(s.env.Incarnation()))
	}
	ad.Set(attr.DaemonStartTime, ast.Int(s.start.Unix()))
	ad.Set(attr.UpdateSequence, ast.Int(s.seq))
	ad.Set(attr.KiteVersion, ast.Str(daemon.Version))
	ad.Set(attr.SlotID, ast.Int(int64(st.ID)))
	ad.Set(attr.SlotType, ast.Str(st.Kind.String()))
	ad.Set(attr.PartitionableSlot, ast.Bool(st.Kind == slots.Partitionable))
	if st.Kind == slots.Dynamic {
		ad.Set(attr.DynamicSlot, ast.Bool(true))
		ad.Set(attrParentSlot, ast.Str(s.fullName(st.Parent.Name())))
	}
}

func (s *Server) stateAttrs(ad *classad.Ad, st *slotState) {
	status := st.Status()
	ad.Set(attr.State, ast.Str(status.State.String()))
	ad.Set(attr.Activity, ast.Str(status.Activity.String()))
	ad.Set(attr.EnteredCurrentState, ast.Int(st.EnteredState().Unix()))
	ad.Set(attr.EnteredCurrentActivity, ast.Int(st.EnteredActivity().Unix()))
	ad.Set(attr.Draining, ast.Bool(s.draining))
}

func (s *Server) resourceAttrs(ad *classad.Ad, st *slotState) {
	have := st.Free
	ad.Set(attr.Cpus, ast.Int(have.Cpus))
	ad.Set(attr.Memory, ast.Int(have.Memory))
	ad.Set(attr.Disk, ast.Int(have.Disk))
	ad.Set(attr.TotalSlotCpus, ast.Int(st.Size.Cpus))
	ad.Set(attr.TotalSlotMemory, ast.Int(st.Size.Memory))
	ad.Set(attr.TotalSlotDisk, ast.Int(st.Size.Disk))
	ad.Set(attr.TotalCpus, ast.Int(s.machine.Cpus))
	ad.Set(attr.TotalMemory, ast.Int(s.machine.MemoryMiB))
	ad.Set(attr.TotalDisk, ast.Int(s.machine.DiskKiB))
	ad.Set(attr.SlotWeight, ast.Int(have.Cpus))
	s.deviceAttrs(ad, st)
}

// machineAttrs are the machine's description and what the sensors read.
func (s *Server) machineAttrs(ad *classad.Ad) {
	m := s.machine
	ad.Set(attr.Arch, ast.Str(m.Arch))
	ad.Set(attr.OpSys, ast.Str(m.OpSys))
	ad.Set(attr.OpSysName, ast.Str(m.OpSysName))
	ad.Set(attr.OpSysMajorVer, ast.Int(m.OpSysMajorVer))
	ad.Set(attr.OpSysVer, ast.Int(m.OpSysVer))
	ad.Set(attr.OpSysLongName, ast.Str(m.OpSysLongName))
	ad.Set(attr.OpSysAndVer, ast.Str(m.OpSysAndVer))
	ad.Set(attr.KernelVersion, ast.Str(m.KernelVersion))
	ad.Set(attr.LoadAvg, ast.Real(s.load))
	ad.Set(attr.TotalLoadAvg, ast.Real(s.load))
	ad.Set(attr.KeyboardIdle, ast.Int(s.keyboardIdle))
	ad.Set(attr.ConsoleIdle, ast.Int(s.consoleIdle))
	ad.Set(attr.KFlops, ast.Int(s.kflops))
	ad.Set(attr.Mips, ast.Int(s.mips))
	ad.Set(attr.LastBenchmark, ast.Int(s.lastBenchmark.Unix()))
	now := s.now().Local()
	ad.Set(attr.ClockMin, ast.Int(int64(now.Hour()*60+now.Minute())))
	ad.Set(attr.ClockDay, ast.Int(int64(now.Weekday())))
	ad.Set(attr.HasFileTransfer, ast.Bool(true))
	if s.plugins != nil {
		ad.Set(attr.HasFileTransferPluginMethods, ast.Str(strings.Join(s.plugins.Methods(), ",")))
		ad.Set(attr.HasJobTransferPlugins, ast.Bool(true))
	}
	s.javaAttrs(ad)
	s.containerAttrs(ad)
	ad.Set(attr.HasSelfCheckpointTransfers, ast.Bool(true))
	ad.Set(attr.FileSystemDomain, ast.Str(s.host))
	ad.Set(attr.UIDDomain, ast.Str(s.host))
	ad.Set(attr.MachineMaxVacateTime, ast.Int(int64(s.cfg.KillGrace.Seconds())))
	for _, a := range s.attrs {
		ad.Set(a.name, a.expr)
	}
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
	for _, name := range []string{attr.Owner, attr.User} {
		if e, ok := c.job.Lookup(name); ok {
			ad.Set(map[string]string{attr.Owner: attr.RemoteOwner, attr.User: attr.RemoteUser}[name], e)
		}
	}
	if c.run == nil {
		return
	}
	ad.Set(attr.JobID, ast.Str(c.jobID))
	ad.Set(attr.JobStart, ast.Int(c.activated.Unix()))
	u := c.run.Usage()
	ad.Set(attr.CondorLoadAvg, ast.Real(u.CPURate))
	ad.Set(attr.MemoryUsage, ast.Int((u.PeakMemoryBytes+1<<20-1)>>20))
}
