//go:build !linux

package container

// ownLimits gives containers no limits of the process's own off Linux.
func ownLimits() []Ulimit { return nil }
