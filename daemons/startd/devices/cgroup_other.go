//go:build !linux

package devices

import (
	"errors"
	"os/exec"
)

// GroupPrefix begins the name of every job's devices group.
const GroupPrefix = "kite_devices_"

// Confiner keeps jobs from other jobs' devices; only Linux has one.
type Confiner struct{}

// V1 reports that there is no cgroup v1 here.
func (c *Confiner) V1() bool { return false }

// BPF reports that there are no device programs here.
func (c *Confiner) BPF() bool { return false }

// DetectConfiner reports that device cgroups exist only on Linux.
func DetectConfiner() (*Confiner, error) {
	return nil, errors.New("device cgroups exist only on Linux")
}

// Group is one job's devices group.
type Group struct{}

// Create cannot make a group without Linux.
func (c *Confiner) Create(string, []string) (*Group, error) {
	return nil, errors.New("device cgroups exist only on Linux")
}

// Start starts cmd.
func (g *Group) Start(cmd *exec.Cmd) error { return cmd.Start() }

// Confine has no cgroup to confine.
func (g *Group) Confine(string) error { return nil }

// Remove has nothing to remove.
func (g *Group) Remove() error { return nil }
