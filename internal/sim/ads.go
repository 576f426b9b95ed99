package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/sita"
)

// The ads a run matches: one per simulated slot, built from its group's
// template, and one per autocluster of idle jobs, showing its first job,
// as a schedd sends it.

// epoch is virtual time 0: ads see QDate, DaemonStartTime and time() as
// seconds since the Unix epoch, starting 2025-01-01.
const epoch = 1735689600

// slotState is one simulated slot.
type slotState struct {
	ad      *classad.Ad
	name    string
	machine int32
	weight  float64
	job     int32  // pull mode: the job it runs, -1 none
	rep     int32  // pull mode: the replica run it runs, -1 none
	shown   uint32 // the machine counters' version the ad shows
}

// sitaPlan is a policy's SITA-E setting resolved for a run.
type sitaPlan struct {
	cfg       sita.HostConfig
	intervals []int // per machine
}

// planSita resolves the policy's SITA-E parameters and intervals.
func planSita(spec *SitaSpec, st *Setup, w *workload, ms []*machine) (*sitaPlan, error) {
	if spec == nil {
		return nil, nil
	}
	d := sita.Pareto{K: spec.K, P: spec.P, A: spec.A}
	switch spec.Fit {
	case "workload":
		d = *workloadPareto(st)
	case sita.Moments, sita.MLE:
		sizes := make([]float64, len(w.jobs))
		for i := range w.jobs {
			sizes[i] = w.jobs[i].work
		}
		if spec.Attribute != attr.KiteWork {
			for i := range w.jobs {
				if wg := &st.Workload[w.jobs[i].group]; wg.File != "" {
					sizes[i] = classad.EvalNumberOr(wg.ads[w.jobs[i].index].ad, spec.Attribute, math.NaN())
				}
			}
		}
		fit, err := sita.FitSizes(spec.Fit, sizes)
		if err != nil {
			return nil, fmt.Errorf("fitting B(k, p, a) to the workload's sizes: %w", err)
		}
		d = fit.Pareto
	}
	plan := &sitaPlan{cfg: sita.HostConfig{Attribute: spec.Attribute, Intervals: spec.Intervals, Source: spec.Source,
		K: d.K, P: d.P, A: d.A}}
	var spread []int
	for k, m := range ms {
		if pin := st.Machines[m.group].SitaInterval; pin > 0 {
			if pin > spec.Intervals {
				return nil, fmt.Errorf("machines %q: sita_interval %d exceeds the policy's %d intervals", st.Machines[m.group].Name, pin, spec.Intervals)
			}
			plan.intervals = append(plan.intervals, pin)
			continue
		}
		plan.intervals = append(plan.intervals, 0)
		spread = append(spread, k)
	}
	for n, k := range spread {
		plan.intervals[k] = n*spec.Intervals/len(spread) + 1
	}
	return plan, nil
}

// buildSlots makes every machine's slot ads. In queue mode a machine has
// one slot, whatever its cores.
func buildSlots(st *Setup, ms []*machine, dispatch string, plan *sitaPlan) ([]*slotState, error) {
	var out []*slotState
	templates := make([]*classad.Ad, len(st.Machines))
	affinities := slices.ContainsFunc(st.Machines, func(mg MachineGroup) bool { return mg.affinity != nil })
	for g := range st.Machines {
		templates[g] = slotTemplate(&st.Machines[g])
		if affinities && st.Machines[g].affinity == nil {
			// Every slot shows a power when some do: a factor of 1.
			templates[g].Set(attr.KitePower, &ast.Select{At: ast.NoPos, X: &ast.AttrRef{At: ast.NoPos, Name: "MY"}, Name: attr.KiteSpeed})
		}
	}
	for k, m := range ms {
		mg := &st.Machines[m.group]
		n := mg.Slots
		if dispatch == Queue {
			n = 1
		}
		for s := 1; s <= n; s++ {
			ad := templates[m.group].Clone()
			name := fmt.Sprintf("slot%d@%s", s, m.name)
			ad.Set(attr.Name, ast.Str(name))
			ad.Set(attr.Machine, ast.Str(m.name))
			ad.Set(attr.SlotID, ast.Int(int64(s)))
			setNumber(ad, attr.KiteSpeed, m.speed)
			if m.bench > 0 {
				setNumber(ad, attr.KiteBenchmark, m.bench)
			}
			cpus := 1.0
			if dispatch == Queue {
				cpus = float64(mg.Slots)
				setNumber(ad, attr.Cpus, cpus)
				setNumber(ad, attr.Memory, mg.Memory*cpus)
				setNumber(ad, attr.Disk, mg.Disk*cpus)
				ad.Set(attr.KiteWorkLeft, ast.Int(0))
				ad.Set(attr.KiteQueueLength, ast.Int(0))
			}
			if plan != nil {
				cfg := plan.cfg
				cfg.Interval = plan.intervals[k]
				attrs, clause, err := sita.HostAd(cfg, m.name, name)
				if err != nil {
					return nil, fmt.Errorf("SITA-E for %s: %w", name, err)
				}
				for _, a := range attrs {
					ad.Set(a.Name, a.Expr)
				}
				e, err := classad.ParseExpr("(" + attr.Start + ") && (" + clause + ")")
				if err != nil {
					return nil, fmt.Errorf("SITA-E for %s: %w", name, err)
				}
				ad.Set(attr.Requirements, e)
			}
			m.slots = append(m.slots, int32(len(out)))
			out = append(out, &slotState{ad: ad, name: name, machine: int32(k), weight: cpus, job: -1})
		}
	}
	return out, nil
}

// slotTemplate is what a group's slots share.
func slotTemplate(mg *MachineGroup) *classad.Ad {
	ad := classad.NewAd()
	ad.Set(attr.MyType, ast.Str(attr.TypeSlot))
	ad.Set(attr.TargetType, ast.Str(attr.TypeJob))
	ad.Set(attr.State, ast.Str("Unclaimed"))
	ad.Set(attr.Activity, ast.Str("Idle"))
	ad.Set(attr.SlotType, ast.Str("Static"))
	ad.Set(attr.Cpus, ast.Int(1))
	setNumber(ad, attr.Memory, mg.Memory)
	setNumber(ad, attr.Disk, mg.Disk)
	ad.Set(attr.Arch, ast.Str("X86_64"))
	ad.Set(attr.OpSys, ast.Str("LINUX"))
	ad.Set(attr.HasFileTransfer, ast.Bool(true))
	ad.Set(attr.DaemonStartTime, ast.Int(epoch))
	start := ast.Expr(ast.Bool(true))
	if mg.Start != "" {
		start, _ = classad.ParseExpr(mg.Start) // checked when the scenario was read
	}
	ad.Set(attr.Start, start)
	ad.Set(attr.Requirements, &ast.AttrRef{At: ast.NoPos, Name: attr.Start})
	rank := ast.Expr(ast.Int(0))
	if mg.Rank != "" {
		rank, _ = classad.ParseExpr(mg.Rank)
	}
	ad.Set(attr.Rank, rank)
	if mg.affinity != nil {
		ad.Set(attr.KitePower, powerExpr(mg.affinity))
	}
	for _, a := range mg.Attrs {
		ad.Set(a.Name, a.Expr)
	}
	return ad
}

// setNumber sets a number attribute: an integer when whole, else a real.
func setNumber(ad *classad.Ad, name string, v float64) { ad.Set(name, ast.Number(v)) }

// jobTemplate is what a generated group's jobs share; each job adds its
// ProcId, QDate, KiteWork (and size attribute) and KiteBatch.
func jobTemplate(wg *WorkloadGroup, g int, typ string, sitaJob *sitaPlan) *classad.Ad {
	ad := classad.NewAd()
	ad.Set(attr.MyType, ast.Str(attr.TypeJob))
	ad.Set(attr.TargetType, ast.Str(attr.TypeSlot))
	ad.Set(attr.ClusterID, ast.Int(int64(g+1)))
	ad.Set(attr.ProcID, ast.Int(0))
	ad.Set(attr.Owner, ast.Str(wg.Owner))
	ad.Set(attr.User, ast.Str(wg.Owner+"@sim"))
	ad.Set(attr.JobUniverse, ast.Int(attr.UniverseVanilla))
	ad.Set(attr.JobStatus, ast.Int(attr.Idle))
	ad.Set(attr.JobPrio, ast.Int(int64(wg.Prio)))
	ad.Set(attr.QDate, ast.Int(epoch))
	setNumber(ad, attr.RequestCpus, wg.RequestCpus)
	setNumber(ad, attr.RequestMemory, wg.RequestMemory)
	setNumber(ad, attr.RequestDisk, wg.RequestDisk)
	ad.Set(attr.KiteJobType, ast.Str(typ))
	ad.Set(attr.KiteWork, ast.Int(0))
	req := "TARGET.Cpus >= RequestCpus && TARGET.Memory >= RequestMemory && TARGET.Disk >= RequestDisk"
	if wg.Requirements != "" {
		req = wg.Requirements
	}
	e, _ := classad.ParseExpr(req) // checked when the scenario was read
	ad.Set(attr.Requirements, e)
	rank := ast.Expr(ast.Int(0))
	if wg.Rank != "" {
		rank, _ = classad.ParseExpr(wg.Rank)
	}
	ad.Set(attr.Rank, rank)
	for _, a := range wg.Attrs {
		ad.Set(a.Name, a.Expr)
	}
	if sitaJob != nil {
		setSitaJob(ad, sitaJob)
	}
	return ad
}

// setSitaJob writes a job set's B(k, p, a) into a job, as kite submit's
// sita_fit does, for hosts that read them from the job.
func setSitaJob(ad *classad.Ad, p *sitaPlan) {
	ad.Set(sita.JobMinSize, ast.Real(p.cfg.K))
	ad.Set(sita.JobMaxSize, ast.Real(p.cfg.P))
	ad.Set(sita.JobVariability, ast.Real(p.cfg.A))
}

// showJob writes a generated job's own values into its autocluster's ad.
func showJob(ad *classad.Ad, j *job, sizeAttr string, batch string) {
	ad.Set(attr.ProcID, ast.Int(int64(j.index)))
	ad.Set(attr.QDate, ast.Int(int64(epoch+math.Floor(j.arrival))))
	setNumber(ad, attr.KiteWork, j.work)
	if sizeAttr != "" {
		setNumber(ad, sizeAttr, j.work)
	}
	if batch != "" {
		ad.Set(attr.KiteBatch, ast.Str(batch))
	}
}
