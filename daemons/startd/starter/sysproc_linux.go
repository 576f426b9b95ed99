package starter

import (
	"os"
	"syscall"
)

// setDeathSignal kills the job if the startd dies.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// intoCgroup starts the process straight inside the cgroup opened as f.
func intoCgroup(a *syscall.SysProcAttr, f *os.File) {
	a.UseCgroupFD = true
	a.CgroupFD = int(f.Fd())
}
