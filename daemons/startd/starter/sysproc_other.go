//go:build !linux

package starter

import (
	"os"
	"syscall"
)

func setDeathSignal(*syscall.SysProcAttr)       {}
func intoCgroup(*syscall.SysProcAttr, *os.File) {}
