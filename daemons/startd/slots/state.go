package slots

import (
	"errors"
	"fmt"
)

// State is a slot's state, as HTCondor names them.
type State uint8

// The states. Backfill is not modelled: Kite has no backfill manager.
const (
	Owner      State = iota + 1 // the machine's owner is using it (IS_OWNER)
	Unclaimed                   // free to match
	Matched                     // matched, waiting for the schedd's claim
	Claimed                     // a schedd holds the slot
	Preempting                  // the claim is ending: its job is being stopped
	Drained                     // draining: no new claims
)

var stateNames = [...]string{Owner: "Owner", Unclaimed: "Unclaimed", Matched: "Matched", Claimed: "Claimed", Preempting: "Preempting", Drained: "Drained"}

// String returns the state's name as slot ads show it.
func (s State) String() string {
	if int(s) < len(stateNames) && stateNames[s] != "" {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", s)
}

// Activity is what a slot does in its state.
type Activity uint8

// The activities.
const (
	Idle         Activity = iota + 1 // nothing runs
	Benchmarking                     // measuring KFlops and Mips
	Busy                             // a job runs
	Suspended                        // the job is stopped (SIGSTOP)
	Retiring                         // the job may finish before the claim ends
	Vacating                         // the job was asked to stop (SIGTERM)
	Killing                          // the job is being killed (SIGKILL)
)

var activityNames = [...]string{Idle: "Idle", Benchmarking: "Benchmarking", Busy: "Busy", Suspended: "Suspended", Retiring: "Retiring", Vacating: "Vacating", Killing: "Killing"}

// String returns the activity's name as slot ads show it.
func (a Activity) String() string {
	if int(a) < len(activityNames) && activityNames[a] != "" {
		return activityNames[a]
	}
	return fmt.Sprintf("Activity(%d)", a)
}

// Status is a state and its activity.
type Status struct {
	State    State
	Activity Activity
}

// String returns "State/Activity".
func (s Status) String() string { return s.State.String() + "/" + s.Activity.String() }

// Statuses lists every state/activity pair a slot can be in.
var Statuses = []Status{
	{Owner, Idle},
	{Unclaimed, Idle}, {Unclaimed, Benchmarking},
	{Matched, Idle},
	{Claimed, Idle}, {Claimed, Busy}, {Claimed, Suspended}, {Claimed, Retiring},
	{Preempting, Vacating}, {Preempting, Killing},
	{Drained, Idle}, {Drained, Retiring},
}

// Event is something that happens to a slot.
type Event uint8

// The events. The startd decides which happens: the policy expressions,
// the schedd's requests, the job's end, leases and draining.
const (
	OwnerGone      Event = iota + 1 // IS_OWNER became false
	OwnerBack                       // IS_OWNER became true (START false without a job)
	Benchmark                       // benchmarks begin
	BenchmarkDone                   // benchmarks end
	Match                           // the negotiator matched the slot
	MatchTimeout                    // the match was not claimed in time
	Claim                           // a schedd claimed the slot
	Activate                        // a job starts on the claim
	JobExit                         // the claim's job is gone (exited, held, evicted)
	Suspend                         // SUSPEND became true
	Continue                        // CONTINUE became true
	Retire                          // PREEMPT or draining, with retirement time left
	Vacate                          // the claim ends: the job gets its soft kill signal
	Kill                            // KILL, a fast vacate, or the vacate grace is over
	Freed                           // the claim is over; the slot is free
	FreedToOwner                    // the claim is over and the owner is back
	FreedToDrained                  // the claim is over while the machine drains
	Drain                           // draining begins
	DrainDone                       // every slot is drained
	DrainCancel                     // draining is cancelled
)

var eventNames = [...]string{
	OwnerGone: "OwnerGone", OwnerBack: "OwnerBack", Benchmark: "Benchmark", BenchmarkDone: "BenchmarkDone",
	Match: "Match", MatchTimeout: "MatchTimeout", Claim: "Claim", Activate: "Activate", JobExit: "JobExit",
	Suspend: "Suspend", Continue: "Continue", Retire: "Retire", Vacate: "Vacate", Kill: "Kill",
	Freed: "Freed", FreedToOwner: "FreedToOwner", FreedToDrained: "FreedToDrained",
	Drain: "Drain", DrainDone: "DrainDone", DrainCancel: "DrainCancel",
}

// String returns the event's name.
func (e Event) String() string {
	if int(e) < len(eventNames) && eventNames[e] != "" {
		return eventNames[e]
	}
	return fmt.Sprintf("Event(%d)", e)
}

// Events lists every event.
var Events = func() []Event {
	var out []Event
	for e := OwnerGone; e <= DrainCancel; e++ {
		out = append(out, e)
	}
	return out
}()

type edge struct {
	from  Status
	event Event
}

// transitions is the state machine. Numbers in comments are HTCondor's
// transition numbers (admin manual, "State and Activity Transitions").
var transitions = map[edge]Status{
	{Status{Owner, Idle}, OwnerGone}: {Unclaimed, Idle},   // 1
	{Status{Owner, Idle}, Claim}:     {Claimed, Idle},     // START may still accept a job
	{Status{Owner, Idle}, Drain}:     {Drained, Retiring}, // 36

	{Status{Unclaimed, Idle}, OwnerBack}:             {Owner, Idle},             // 2
	{Status{Unclaimed, Idle}, Benchmark}:             {Unclaimed, Benchmarking}, // 3
	{Status{Unclaimed, Benchmarking}, BenchmarkDone}: {Unclaimed, Idle},         // 4
	{Status{Unclaimed, Idle}, Claim}:                 {Claimed, Idle},           // 5
	{Status{Unclaimed, Idle}, Match}:                 {Matched, Idle},           // 6
	{Status{Unclaimed, Idle}, Drain}:                 {Drained, Retiring},       // 37
	{Status{Matched, Idle}, OwnerBack}:               {Owner, Idle},             // 8
	{Status{Matched, Idle}, MatchTimeout}:            {Owner, Idle},             // 8
	{Status{Matched, Idle}, Claim}:                   {Claimed, Idle},           // 9
	{Status{Matched, Idle}, Drain}:                   {Drained, Retiring},       // the match is dropped

	{Status{Claimed, Idle}, Vacate}:        {Preempting, Vacating}, // 10
	{Status{Claimed, Idle}, Kill}:          {Preempting, Killing},  // 10, without vacating
	{Status{Claimed, Idle}, Activate}:      {Claimed, Busy},        // 11
	{Status{Claimed, Busy}, JobExit}:       {Claimed, Idle},        // 12
	{Status{Claimed, Busy}, Retire}:        {Claimed, Retiring},    // 13
	{Status{Claimed, Busy}, Suspend}:       {Claimed, Suspended},   // 14
	{Status{Claimed, Busy}, Vacate}:        {Preempting, Vacating}, // 13+18 with no retirement time
	{Status{Claimed, Busy}, Kill}:          {Preempting, Killing},
	{Status{Claimed, Suspended}, Continue}: {Claimed, Busy},        // 15
	{Status{Claimed, Suspended}, Retire}:   {Claimed, Retiring},    // 16
	{Status{Claimed, Suspended}, Vacate}:   {Preempting, Vacating}, // 17
	{Status{Claimed, Suspended}, Kill}:     {Preempting, Killing},
	{Status{Claimed, Suspended}, JobExit}:  {Claimed, Idle},        // held or killed while stopped
	{Status{Claimed, Retiring}, JobExit}:   {Preempting, Vacating}, // 18: the job finished
	{Status{Claimed, Retiring}, Vacate}:    {Preempting, Vacating}, // 18: retirement is over
	{Status{Claimed, Retiring}, Kill}:      {Preempting, Killing},

	{Status{Preempting, Vacating}, Kill}:           {Preempting, Killing}, // 21
	{Status{Preempting, Vacating}, Freed}:          {Unclaimed, Idle},
	{Status{Preempting, Vacating}, FreedToOwner}:   {Owner, Idle}, // 22
	{Status{Preempting, Vacating}, FreedToDrained}: {Drained, Retiring},
	{Status{Preempting, Killing}, Freed}:           {Unclaimed, Idle},
	{Status{Preempting, Killing}, FreedToOwner}:    {Owner, Idle}, // 25
	{Status{Preempting, Killing}, FreedToDrained}:  {Drained, Retiring},

	{Status{Drained, Retiring}, DrainDone}:   {Drained, Idle}, // 33
	{Status{Drained, Idle}, DrainCancel}:     {Owner, Idle},   // 34
	{Status{Drained, Retiring}, DrainCancel}: {Owner, Idle},   // 35
}

// ErrRefused is the error of an event a status does not allow.
var ErrRefused = errors.New("transition refused")

// Next returns the status an event leads to from s, or an error wrapping
// ErrRefused.
func Next(s Status, e Event) (Status, error) {
	if to, ok := transitions[edge{s, e}]; ok {
		return to, nil
	}
	return s, fmt.Errorf("%w: %s cannot take %s", ErrRefused, s, e)
}

// Allows reports whether e may happen in s.
func Allows(s Status, e Event) bool {
	_, ok := transitions[edge{s, e}]
	return ok
}
