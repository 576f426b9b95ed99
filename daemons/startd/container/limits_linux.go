package container

import "syscall"

// rlimitNproc is RLIMIT_NPROC, which package syscall does not name.
const rlimitNproc = 6

// ownLimits returns the process's own limits on open files and
// processes, which a container may always be given: a runtime's defaults
// may ask for more than the machine allows (podman's do on some hosts).
func ownLimits() []Ulimit {
	var out []Ulimit
	for _, l := range []struct {
		name string
		res  int
	}{{"nofile", syscall.RLIMIT_NOFILE}, {"nproc", rlimitNproc}} {
		var r syscall.Rlimit
		if syscall.Getrlimit(l.res, &r) != nil {
			continue
		}
		out = append(out, Ulimit{Name: l.name, Soft: limitValue(r.Cur), Hard: limitValue(r.Max)})
	}
	return out
}

// limitValue is a limit as runtimes write it: -1 for unlimited.
func limitValue(v uint64) int64 {
	if v == ^uint64(0) || v > 1<<62 {
		return -1
	}
	return int64(v)
}
