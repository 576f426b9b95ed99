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
	Partitionable      bool
	User               string
}

// Equal is the layout of n slots sharing the machine equally.
func Equal(n int, partitionable bool, user string) []Type {
	return []Type{{Name: "default", Count: n, Partitionable: partitionable, User: user}}
}

// Layout divides a machine into slots of the given types, numbered from
// 1 in order, all in Owner/Idle at now. It fails when the shares ask for
// more than the machine has or leave a slot without a cpu or memory.
func Layout(machine Resources, types []Type, now time.Time) ([]*Slot, error) {
	var sizes [][3]int64
	totals := [3]int64{machine.Cpus, machine.Memory, machine.Disk}
	names := [3]string{"cpus", "MiB of memory", "KiB of disk"}
	for r := range 3 {
		amounts, err := divide(types, r, totals[r])
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
			out = append(out, New(i, kind, size, t.User, now))
		}
	}
	return out, nil
}

// divide returns every slot's amount of resource r (0 cpus, 1 memory,
// 2 disk) out of total; the error holds the amount asked when it is more
// than the total.
func divide(types []Type, r int, total int64) ([]int64, error) {
	var amounts []int64
	var asked, unset int64
	for _, t := range types {
		share := [3]Share{t.Cpus, t.Memory, t.Disk}[r]
		for range t.Count {
			a := int64(-1)
			if share != nil {
				a = share(total)
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
	for i, a := range amounts {
		if a < 0 {
			amounts[i] = (total - asked) / unset
		}
	}
	return amounts, nil
}
