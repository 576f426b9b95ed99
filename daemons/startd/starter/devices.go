package starter

import "os/exec"

// DeviceGroup keeps a job from the devices of other jobs
// (daemons/startd/devices.Group): Start starts its process in a cgroup v1
// devices group that denies them, Confine gives its cgroup v2 group a
// device program that denies them.
type DeviceGroup interface {
	Start(cmd *exec.Cmd) error
	Confine(v2group string) error
}

// startProcess starts the job's process, in its device group when it
// has one.
func (s *Starter) startProcess(cmd *exec.Cmd) error {
	if s.cfg.DeviceGroup == nil {
		return cmd.Start()
	}
	return s.cfg.DeviceGroup.Start(cmd)
}

// confineDevices denies the job's cgroup v2 group the devices of other
// jobs; a job that cannot be confined runs, with a warning.
func (s *Starter) confineDevices(v2group string) {
	if s.cfg.DeviceGroup == nil {
		return
	}
	if err := s.cfg.DeviceGroup.Confine(v2group); err != nil {
		s.log.Warn("the job is not kept from the devices of other jobs", "err", err)
	}
}
