package dashboard

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/wire"
)

// Slots counts slots by state and activity and sums their resources.
type Slots struct {
	Total      int            `json:"total"`
	States     map[string]int `json:"states"`
	Activities map[string]int `json:"activities"`
	// Pairs counts the slots of each state and activity, most first.
	Pairs []StateCount `json:"pairs"`
	// Cpus and MemoryMiB are the machines' totals; the Busy ones what
	// claimed slots hold.
	Cpus          float64 `json:"cpus"`
	CpusBusy      float64 `json:"cpus_busy"`
	MemoryMiB     float64 `json:"memory_mib"`
	MemoryBusyMiB float64 `json:"memory_busy_mib"`
	Machines      int     `json:"machines"`
}

// StateCount is how many slots are in one state and activity.
type StateCount struct {
	State    string `json:"state"`
	Activity string `json:"activity"`
	Count    int    `json:"count"`
}

// CountSlots summarizes slot ads. A partitionable slot's size counts
// towards the totals and its dynamic slots' towards the busy amounts, so
// that a machine's resources count once.
func CountSlots(slots []*classad.Ad) Slots {
	out := Slots{States: map[string]int{}, Activities: map[string]int{}}
	pairs := map[[2]string]int{}
	machines := map[string]bool{}
	for _, ad := range slots {
		state, activity := str(ad, "State"), str(ad, "Activity")
		out.Total++
		out.States[state]++
		out.Activities[activity]++
		pairs[[2]string{state, activity}]++
		machines[MachineOf(ad)] = true
		cpus, mem := slotSize(ad)
		if !boolean(ad, "DynamicSlot") {
			out.Cpus += cpus
			out.MemoryMiB += mem
		}
		if state == "Claimed" || state == "Preempting" {
			out.CpusBusy += num(ad, "Cpus")
			out.MemoryBusyMiB += num(ad, "Memory")
		}
	}
	out.Machines = len(machines)
	for p, n := range pairs {
		out.Pairs = append(out.Pairs, StateCount{p[0], p[1], n})
	}
	slices.SortFunc(out.Pairs, func(a, b StateCount) int {
		return cmp.Or(b.Count-a.Count, strings.Compare(a.State, b.State), strings.Compare(a.Activity, b.Activity))
	})
	return out
}

// slotSize is a slot's whole size: TotalSlotCpus and TotalSlotMemory
// where the startd says them (a partitionable slot's Cpus is what it has
// left), else Cpus and Memory.
func slotSize(ad *classad.Ad) (cpus, mem float64) {
	cpus, ok := numOK(ad, "TotalSlotCpus")
	if !ok {
		cpus = num(ad, "Cpus")
	}
	mem, ok = numOK(ad, "TotalSlotMemory")
	if !ok {
		mem = num(ad, "Memory")
	}
	return cpus, mem
}

// Owner is one submitter's share of the pool: its jobs, summed over the
// schedds, and its fair-share priority when the negotiator knows it.
type Owner struct {
	Name     string         `json:"name"`
	Running  int            `json:"running"`
	Idle     int            `json:"idle"`
	Held     int            `json:"held"`
	Schedds  []string       `json:"schedds"`
	Priority *wire.Priority `json:"priority,omitempty"`
}

// Owners joins submitter ads (summed by Name over schedds) with the
// negotiator's priorities (nil when it did not answer); users with a
// priority but no jobs are listed too. The busiest come first.
func Owners(submitters []*classad.Ad, prios []wire.Priority) []Owner {
	byName := map[string]*Owner{}
	get := func(name string) *Owner {
		k := strings.ToLower(name)
		if o := byName[k]; o != nil {
			return o
		}
		o := &Owner{Name: name, Schedds: []string{}}
		byName[k] = o
		return o
	}
	for _, ad := range submitters {
		o := get(str(ad, "Name"))
		o.Running += int(num(ad, "RunningJobs"))
		o.Idle += int(num(ad, "IdleJobs"))
		o.Held += int(num(ad, "HeldJobs"))
		if s := str(ad, "ScheddName"); s != "" && !slices.Contains(o.Schedds, s) {
			o.Schedds = append(o.Schedds, s)
		}
	}
	for i := range prios {
		get(prios[i].User).Priority = &prios[i]
	}
	out := make([]Owner, 0, len(byName))
	for _, o := range byName {
		slices.Sort(o.Schedds)
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b Owner) int {
		return cmp.Or(b.Running-a.Running, b.Idle-a.Idle, strings.Compare(a.Name, b.Name))
	})
	return out
}

// Daemon is one daemon's ad, as the overview lists it.
type Daemon struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	Addr    string `json:"addr"`
	Version string `json:"version,omitempty"`
	Absent  bool   `json:"absent,omitempty"`
	// Heard is when the collector last heard from it (Unix seconds).
	Heard int64 `json:"heard,omitempty"`
	// Role is a negotiator's Raft state when negotiators form a group
	// (Leader, Follower, Candidate).
	Role string `json:"role,omitempty"`
}

// Daemons lists the daemons of ads (schedds, negotiators, masters,
// collectors), by type and name.
func Daemons(ads []*classad.Ad) []Daemon {
	out := make([]Daemon, 0, len(ads))
	for _, ad := range ads {
		out = append(out, Daemon{
			Type: str(ad, "MyType"), Name: str(ad, "Name"), Addr: str(ad, "MyAddress"),
			Version: str(ad, "KiteVersion"), Absent: boolean(ad, "Absent"), Heard: int64(num(ad, "LastHeardFrom")),
			Role: str(ad, "RaftState"),
		})
	}
	slices.SortFunc(out, func(a, b Daemon) int {
		return cmp.Or(strings.Compare(a.Type, b.Type), strings.Compare(a.Name, b.Name))
	})
	return out
}

// Cycle is what the negotiator's ad says of its last cycle.
type Cycle struct {
	Negotiator string  `json:"negotiator"`
	Number     int64   `json:"number"`
	Time       int64   `json:"time"`
	Duration   float64 `json:"duration"`
	Matches    int64   `json:"matches"`
	Slots      int64   `json:"slots"`
	Submitters int64   `json:"submitters"`
}

// LastCycle reads the last cycle from a negotiator ad (nil without one).
func LastCycle(negotiator *classad.Ad) *Cycle {
	if negotiator == nil {
		return nil
	}
	return &Cycle{
		Negotiator: str(negotiator, "Name"),
		Number:     int64(num(negotiator, "LastNegotiationCycleNumber0")),
		Time:       int64(num(negotiator, "LastNegotiationCycleTime0")),
		Duration:   num(negotiator, "LastNegotiationCycleDuration0"),
		Matches:    int64(num(negotiator, "LastNegotiationCycleMatches0")),
		Slots:      int64(num(negotiator, "LastNegotiationCycleTotalSlots0")),
		Submitters: int64(num(negotiator, "LastNegotiationCycleActiveSubmitterCount0")),
	}
}

// Overview is the dashboard's first page.
type Overview struct {
	Pool    string   `json:"pool"`
	Time    int64    `json:"time"`
	Slots   Slots    `json:"slots"`
	Owners  []Owner  `json:"owners"`
	Daemons []Daemon `json:"daemons"`
	Cycle   *Cycle   `json:"cycle,omitempty"`
	// Errors says what could not be asked (the negotiator did not answer).
	Errors []string `json:"errors"`
}
