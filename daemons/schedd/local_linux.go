package schedd

import (
	"os"
	"runtime"
	"syscall"

	"github.com/kite-sched/kite/internal/submit"
)

// dieWithSchedd kills a job's process if the schedd dies (a crash leaves
// no job of its own universes running unseen: the next start runs it
// again).
func dieWithSchedd(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// peakMemoryMB is a process's peak resident set size in MiB.
func peakMemoryMB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return (ru.Maxrss + 1023) / 1024 // KiB on Linux
	}
	return 0
}

// host is what the schedd's own universes' jobs see of this host.
type host struct {
	arch, opsys            string
	memoryMB, diskKB, cpus int64
}

// hostFacts describes this host: HTCondor's Arch and OpSys, physical
// memory, the free disk under dir, the CPUs.
func hostFacts(dir string) host {
	h := submit.LocalHost()
	out := host{arch: h.Arch, opsys: h.OpSys, cpus: int64(runtime.NumCPU())}
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		out.memoryMB = int64(si.Totalram) * int64(si.Unit) >> 20
	}
	var fs syscall.Statfs_t
	if syscall.Statfs(dir, &fs) == nil {
		out.diskKB = int64(fs.Bavail) * fs.Bsize >> 10
	}
	return out
}
