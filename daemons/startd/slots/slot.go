package slots

import (
	"fmt"
	"time"

	"github.com/kite-sched/kite/internal/fit"
)

// Kind says how a slot holds its resources.
type Kind uint8

// The kinds of slot.
const (
	Static        Kind = iota + 1 // a fixed share of the machine
	Partitionable                 // a share carved into dynamic slots
	Dynamic                       // carved from a partitionable slot for one claim
)

// String returns HTCondor's name for the kind (SlotType).
func (k Kind) String() string {
	switch k {
	case Static:
		return "Static"
	case Partitionable:
		return "Partitionable"
	case Dynamic:
		return "Dynamic"
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Resources are amounts of what a slot offers: the fit package's, whose
// rule sizes the dynamic slots.
type Resources = fit.Resources

// Slot is one slot: its size, its state and activity with the times
// they began, and for a partitionable slot what is left to carve.
type Slot struct {
	ID   int  // slot number: slot<ID>
	Sub  int  // dynamic slots: slot<ID>_<Sub>
	Kind Kind // static, partitionable or dynamic
	// Size is what the slot was given; Free is what a partitionable
	// slot has left (equal to Size for the others).
	Size, Free Resources
	// Devices are the slot's custom resources (GPUs, ...); FreeDevices
	// what a partitionable slot has left of them (equal for the others).
	Devices, FreeDevices Devices
	// User is the account the slot's jobs run as, when the startd is root.
	User string
	// Parent is a dynamic slot's partitionable slot.
	Parent *Slot

	status          Status
	enteredState    time.Time
	enteredActivity time.Time
	nextSub         int
}

// New returns a slot in Owner/Idle, as every slot begins.
func New(id int, kind Kind, size Resources, user string, now time.Time) *Slot {
	return &Slot{ID: id, Kind: kind, Size: size, Free: size, User: user,
		status: Status{Owner, Idle}, enteredState: now, enteredActivity: now}
}

// Name returns the slot's name without the host: slot1, or slot1_2 for a
// dynamic slot.
func (s *Slot) Name() string {
	if s.Kind == Dynamic {
		return fmt.Sprintf("slot%d_%d", s.ID, s.Sub)
	}
	return fmt.Sprintf("slot%d", s.ID)
}

// Status returns the slot's state and activity.
func (s *Slot) Status() Status { return s.status }

// EnteredState returns when the current state began.
func (s *Slot) EnteredState() time.Time { return s.enteredState }

// EnteredActivity returns when the current activity began.
func (s *Slot) EnteredActivity() time.Time { return s.enteredActivity }

// Apply makes event e happen at now. A change of state resets both
// timestamps; a change of activity alone resets EnteredActivity.
func (s *Slot) Apply(e Event, now time.Time) error {
	to, err := Next(s.status, e)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Name(), err)
	}
	if to.State != s.status.State {
		s.enteredState = now
	}
	if to != s.status {
		s.enteredActivity = now
	}
	s.status = to
	return nil
}

// Carve makes a dynamic slot for the request req from a partitionable
// slot, in Claimed/Idle, sized by fit.Carve: req rounded up when that
// still fits. It fails when s is not partitionable or req does not fit
// what is left.
func (s *Slot) Carve(req Resources, now time.Time) (*Slot, error) {
	return s.CarveDevices(req, nil, nil, now)
}

// CarveDevices is Carve for a job that also asks for custom resources:
// the dynamic slot gets exactly the amounts of custom, and of a resource
// of devices the first free ones that ok accepts.
func (s *Slot) CarveDevices(req Resources, custom fit.Counts, ok Eligible, now time.Time) (*Slot, error) {
	if s.Kind != Partitionable {
		return nil, fmt.Errorf("%s is %s, not partitionable", s.Name(), s.Kind)
	}
	if req.Cpus < 1 || req.Memory < 1 || req.Disk < 0 {
		return nil, fmt.Errorf("a dynamic slot needs at least 1 cpu and 1 MiB (asked: %s)", req)
	}
	size, fits := fit.Carve(req, s.Free)
	if !fits {
		return nil, fmt.Errorf("%s has %s left; the job asks for %s", s.Name(), s.Free, req)
	}
	if s.FreeDevices == nil {
		s.FreeDevices = Devices{}
	}
	devs, err := s.FreeDevices.take(custom, ok)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name(), err)
	}
	s.nextSub++
	s.Free = s.Free.Sub(size)
	d := New(s.ID, Dynamic, size, s.User, now)
	d.Devices, d.FreeDevices = devs, devs.Clone()
	d.Sub, d.Parent = s.nextSub, s
	d.status = Status{Claimed, Idle}
	return d, nil
}

// Release gives a dynamic slot's resources back to its partitionable
// slot.
func (s *Slot) Release() {
	if s.Kind == Dynamic && s.Parent != nil {
		s.Parent.Free = s.Parent.Free.Add(s.Size)
		s.Parent.FreeDevices.give(s.Devices, s.Parent.Devices)
		s.Parent = nil
	}
}
