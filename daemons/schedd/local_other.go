//go:build !linux

package schedd

import (
	"os"
	"runtime"
	"syscall"

	"github.com/kite-sched/kite/internal/submit"
)

func dieWithSchedd(*syscall.SysProcAttr) {}

func peakMemoryMB(*os.ProcessState) int64 { return 0 }

type host struct {
	arch, opsys            string
	memoryMB, diskKB, cpus int64
}

// hostFacts describes this host; memory and disk are not measured here.
func hostFacts(string) host {
	h := submit.LocalHost()
	return host{arch: h.Arch, opsys: h.OpSys, cpus: int64(runtime.NumCPU())}
}
