package dashboard

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/kite-sched/kite/classad"
)

// Machine is one execute host, summed over its slots.
type Machine struct {
	Name     string         `json:"name"`
	Slots    int            `json:"slots"`
	States   map[string]int `json:"states"`
	Cpus     float64        `json:"cpus"`
	CpusBusy float64        `json:"cpus_busy"`
	// MemoryMiB is the machine's memory the slots offer.
	MemoryMiB float64 `json:"memory_mib"`
	Load      float64 `json:"load"` // TotalLoadAvg (LoadAvg where not given)
	Arch      string  `json:"arch,omitempty"`
	OpSys     string  `json:"opsys,omitempty"`
	Addr      string  `json:"addr,omitempty"`
	// Sita is the machine's SITA-E interval (0: none).
	Sita   int  `json:"sita,omitempty"`
	Absent bool `json:"absent,omitempty"`
}

// Machines groups slot ads by machine, sorted by name.
func Machines(slots []*classad.Ad) []Machine {
	byName := map[string][]*classad.Ad{}
	for _, ad := range slots {
		m := MachineOf(ad)
		byName[m] = append(byName[m], ad)
	}
	out := make([]Machine, 0, len(byName))
	for name, ads := range byName {
		out = append(out, summarize(name, ads))
	}
	slices.SortFunc(out, func(a, b Machine) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// summarize sums one machine's slots.
func summarize(name string, ads []*classad.Ad) Machine {
	s := CountSlots(ads)
	m := Machine{Name: name, Slots: s.Total, States: s.States, Cpus: s.Cpus, CpusBusy: s.CpusBusy, MemoryMiB: s.MemoryMiB}
	for i, ad := range ads {
		if l, ok := numOK(ad, "TotalLoadAvg"); ok {
			m.Load = max(m.Load, l)
		} else {
			m.Load = max(m.Load, num(ad, "LoadAvg"))
		}
		m.Absent = m.Absent || boolean(ad, "Absent")
		if i > 0 && m.Arch != "" && m.OpSys != "" && m.Addr != "" {
			continue // the machine's attributes are the same in every slot
		}
		m.Arch = cmp.Or(m.Arch, str(ad, "Arch"))
		m.OpSys = cmp.Or(m.OpSys, str(ad, "OpSysAndVer"))
		m.OpSys = cmp.Or(m.OpSys, str(ad, "OpSys"))
		m.Addr = cmp.Or(m.Addr, str(ad, "MyAddress"))
	}
	for _, ad := range ads {
		if m.Sita = int(num(ad, "SitaInterval")); m.Sita != 0 {
			break
		}
	}
	return m
}

// MachineDetail is a machine's page: its slots' ads, the attributes that
// describe its reliability, and its history as the collector sampled it.
type MachineDetail struct {
	Machine Machine `json:"machine"`
	// Ads are the slots' ads in ClassAd JSON, without secrets.
	Ads []json.RawMessage `json:"ads"`
	// Reliability holds the attributes of the machine's ads that describe
	// how it behaves over time (failures, uptime, benchmark class,
	// reliability index, ...), by name, from its first slot that has them.
	Reliability map[string]any  `json:"reliability"`
	History     []MachineSample `json:"history"`
}

// reliabilityRE picks the attributes the reliability section shows: the
// node monitoring of JoSchKa (benchmark class, average work of failed
// and successful jobs, reliability index), uptime and failure counts, the
// benchmarks and the machine's clocks of idleness.
var reliabilityRE = regexp.MustCompile(`(?i)reliab|failure|failed|success|uptime|benchmark|kflops|mips|idle$|^Kite(Speed|Node|Class|Av)|DaemonStartTime|JobStarts|Recent`)

// Reliability picks the reliability attributes of a machine's ads, as
// JSON values (expressions as their text).
func Reliability(ads []*classad.Ad) map[string]any {
	out := map[string]any{}
	for _, ad := range ads {
		for name, e := range ad.All() {
			if _, seen := out[name]; seen || !reliabilityRE.MatchString(name) {
				continue
			}
			v, err := classad.EvalAttr(ad, name, nil)
			if err != nil {
				continue
			}
			if x, ok := v.NumberValue(); ok {
				out[name] = x
			} else if s, ok := v.StringValue(); ok {
				out[name] = s
			} else {
				out[name] = classad.String(e)
			}
		}
	}
	return out
}
