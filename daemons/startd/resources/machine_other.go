//go:build !linux

package resources

import "errors"

var errUnknown = errors.New("not detected on this operating system: set it in the [startd] configuration")

func memoryMiB() (int64, error)         { return 0, errUnknown }
func freeDiskKiB(string) (int64, error) { return 0, errUnknown }
func kernelRelease() string             { return "" }

// LoadAvg returns the one-minute load average; it is not read here.
func LoadAvg() (float64, error) { return 0, errUnknown }
