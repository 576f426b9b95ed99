package startd

import (
	"context"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/eval"
	"github.com/kite-sched/kite/daemons/startd/devices"
	"github.com/kite-sched/kite/daemons/startd/slots"
	"github.com/kite-sched/kite/daemons/startd/starter"
	"github.com/kite-sched/kite/internal/fit"
)

// attrMachineResources lists the resources a slot has, HTCondor's
// MachineResources ("Cpus Memory Disk GPUs").
const attrMachineResources = "MachineResources"

// detectDevices finds the custom machine resources, GPUs among them
// (devices.Discover: a discovery tool that fails leaves its resource
// empty), and makes the slots' WithinResourceLimits cover them.
func (s *Server) detectDevices() error {
	found, err := devices.Discover(context.Background(), s.cfg.Resources, s.log)
	if err != nil {
		return err
	}
	s.devices = found
	for i := range found {
		s.log.Info("custom machine resource", "resource", found[i].String())
	}
	s.withinLimits, err = classad.ParseExpr(fit.WithinLimitsFor(devices.Names(found)))
	if err != nil {
		return err
	}
	if g := devices.Find(found, devices.GPUs); g != nil && len(g.Minor) > 0 {
		if s.confiner, err = devices.DetectConfiner(); err != nil {
			s.log.Warn("jobs are not kept from the GPUs they were not given", "err", err)
		}
	}
	return nil
}

// machineDevices is what the layout divides among the slots.
func (s *Server) machineDevices() slots.Devices {
	out := slots.Devices{}
	for _, r := range s.devices {
		out[r.Name] = slots.Units{N: r.Count, IDs: r.IDs}
	}
	return out
}

// deviceAttrs publishes a slot's custom resources (devices.Publish) and
// MachineResources.
func (s *Server) deviceAttrs(ad *classad.Ad, st *slotState) {
	names := []string{"Cpus", "Memory", "Disk"}
	for i := range s.devices {
		r := &s.devices[i]
		total, free := st.Devices[r.Name], st.FreeDevices[r.Name]
		r.Publish(ad, devices.Share{TotalN: total.N, FreeN: free.N, TotalIDs: total.IDs, FreeIDs: free.IDs})
		names = append(names, r.Name)
	}
	ad.Set(attrMachineResources, ast.Str(strings.Join(names, " ")))
}

// carveFor makes a dynamic slot of partitionable slot p for a job: its
// cpus, memory and disk by the fit rule, exactly the custom resources the
// job asks for, and of those that are devices the first that meet the
// job's Require<name> (RequireGPUs), evaluated in each device's
// property ad with the job as TARGET.
func (s *Server) carveFor(p *slotState, slot, job *classad.Ad) (*slots.Slot, error) {
	custom := fit.RequestedCounts(job, slot, devices.Names(s.devices))
	eligible := func(resource, id string) bool {
		if _, ok := job.Lookup("Require" + resource); !ok {
			return true
		}
		r := devices.Find(s.devices, resource)
		if r == nil {
			return false
		}
		return eval.NewState(job, r.Device(id)).EvalAttr("Require" + resource).IsTrue()
	}
	return p.CarveDevices(fit.Requested(job, slot), custom, eligible, s.now())
}

// deviceGroup makes the devices group a job on slot st starts in, which
// denies it the machine's GPUs it was not given; nil when there are none
// to deny or no devices controller (the job then runs unconfined, as the
// startd logged). done removes the group once the job is gone.
func (s *Server) deviceGroup(st *slotState, jobID string, assigned map[string][]string) (group starter.DeviceGroup, done func()) {
	dev := s.cfg.DeviceDir
	if dev == "" {
		dev = "/dev"
	}
	deny := devices.DeniedFiles(s.devices, assigned, dev)
	if s.confiner == nil || len(deny) == 0 {
		return nil, func() {}
	}
	g, err := s.confiner.Create(strings.NewReplacer("@", "_", ".", "_").Replace(st.name+"_"+jobID), deny)
	if err != nil {
		s.log.Warn("job not kept from the GPUs it was not given", "slot", st.name, "job", jobID, "err", err)
		return nil, func() {}
	}
	return g, func() {
		if err := g.Remove(); err != nil {
			s.log.Warn("a job's devices group is left behind", "job", jobID, "err", err)
		}
	}
}

// jobDevices returns what a job on slot st is given of the custom
// resources: the device ids by resource, the environment naming them
// (devices.Environment) and the device files of its GPUs.
func (s *Server) jobDevices(st *slotState) (map[string][]string, map[string]string, []string) {
	assigned := map[string][]string{}
	for name, u := range st.Devices {
		if u.IDs != nil {
			assigned[name] = u.IDs
		}
	}
	return assigned, devices.Environment(s.devices, assigned), devices.DeviceFiles(s.devices, assigned)
}
