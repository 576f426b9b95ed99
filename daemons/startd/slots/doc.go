// Package slots is the startd's model of its slots: how the machine is
// divided (static slots, partitionable slots carved into dynamic ones as
// internal/fit sizes them), and each slot's state and activity with
// HTCondor's transitions.
//
//	Owner/Idle ⇄ Unclaimed/Idle ⇄ Unclaimed/Benchmarking
//	     │             │ └──▶ Matched/Idle ──┐
//	     └─────────────┴──────────────────────┴─▶ Claimed/Idle ⇄ Claimed/Busy ⇄ Claimed/Suspended
//	                                                   │              │ └▶ Claimed/Retiring
//	                                                   └──────────────┴──▶ Preempting/Vacating ─▶ Preempting/Killing
//	                                                                         └─▶ Unclaimed, Owner or Drained
//
// The state machine is a pure table (Next): a Status and an Event give the
// next Status or ErrRefused; a Slot applies events with the time they
// happen and keeps EnteredCurrentState and EnteredCurrentActivity. Nothing
// here reads a clock or does I/O: the startd decides which event happens
// and when.
package slots
