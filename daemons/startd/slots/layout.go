package slots

import (
	"fmt"
	"time"
)

// Share computes one slot's amount of a resource from the machine's
// total. A nil Share takes an equal part of what the other slots leave.
type Share func(total int64) int64

// Type is a kind of slot and each such slot's share of the machine.
type Type struct {
	Name               string
	Count              int
	Cpus, Memory, Disk Share
	// Custom are the shares of the machine's custom resources, by name;
	// a resource not named takes an equal part of what the others leave.
	Custom        map[string]Share
	Partitionable bool
	User          string
}

// Equal is the layout of n slots sharing the machine equally.
func Equal(n int, partitionable bool, user string) []Type {
	return []Type{{Name: "default", Count: n, Partitionable: partitionable, User: user}}
}

// Layout divides a machine, with its custom resources, into slots of the
// given types, numbered from 1 in order, all in Owner/Idle at now. Each
// slot gets its share of every custom resource, devices in the machine's
// order. It fails when the shares ask for more than the machine has or
// leave a slot without a cpu or memory.
func Layout(machine Resources, devices Devices, types []Type, now time.Time) ([]*Slot, error) {
	var sizes [][3]int64
	totals := [3]int64{machine.Cpus, machine.Memory, machine.Disk}
	names := [3]string{"cpus", "MiB of memory", "KiB of disk"}
	for r := range 3 {
		amounts, err := divide(types, func(t Type) Share { return [3]Share{t.Cpus, t.Memory, t.Disk}[r] }, totals[r], false)
		if err != nil {
			return nil, fmt.Errorf("slot types ask for %s %s; the machine has %d", err, names[r], totals[r])
		}
		for i, a := range amounts {
			if r == 0 {
				sizes = append(sizes, [3]int64{})
			}
			sizes[i][r] = a
		}
	}
	custom := make([]map[string]int64, len(sizes))
	for i := range custom {
		custom[i] = map[string]int64{}
	}
	for _, name := range devices.Names() {
		total := devices[name].N
		amounts, err := divide(types, func(t Type) Share { return t.Custom[name] }, total, true)
		if err != nil {
			return nil, fmt.Errorf("slot types ask for %s %s; the machine has %d", err, name, total)
		}
		for i, a := range amounts {
			custom[i][name] = a
		}
	}
	dealt := deal(devices, custom)
	var out []*Slot
	i := 0
	for _, t := range types {
		for range t.Count {
			size := Resources{Cpus: sizes[i][0], Memory: sizes[i][1], Disk: sizes[i][2]}
			i++
			if size.Cpus < 1 || size.Memory < 1 {
				return nil, fmt.Errorf("slot%d (type %s) would get %s: each slot needs a cpu and some memory", i, t.Name, size)
			}
			kind := Static
			if t.Partitionable {
				kind = Partitionable
			}
			s := New(i, kind, size, t.User, now)
			s.Devices, s.FreeDevices = dealt[i-1], dealt[i-1].Clone()
			out = append(out, s)
		}
	}
	return out, nil
}

// divide returns every slot's amount of a resource out of total, each
// type's share given by share; the slots without one divide what is left
// equally, and with spread the units that do not divide go one each to
// the first of them (two GPUs over three slots: 1, 1, 0). The error
// holds the amount asked when it is more than the total.
func divide(types []Type, share func(Type) Share, total int64, spread bool) ([]int64, error) {
	var amounts []int64
	var asked, unset int64
	for _, t := range types {
		sh := share(t)
		for range t.Count {
			a := int64(-1)
			if sh != nil {
				a = sh(total)
				asked += a
			} else {
				unset++
			}
			amounts = append(amounts, a)
		}
	}
	if asked > total {
		return nil, fmt.Errorf("%d", asked)
	}
	var extra int64
	if spread && unset > 0 {
		extra = (total - asked) % unset
	}
	for i, a := range amounts {
		if a < 0 {
			amounts[i] = (total - asked) / unset
			if extra > 0 {
				amounts[i]++
				extra--
			}
		}
	}
	return amounts, nil
}
