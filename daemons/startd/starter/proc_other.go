//go:build !linux

package starter

import (
	"os"
	"time"
)

// Processes are not read portably: usage comes from the process's own
// accounting when it ends.

func groupPids(int) []int           { return nil }
func rssBytes(int) int64            { return 0 }
func cpuTime(int) time.Duration     { return 0 }
func maxRSS(*os.ProcessState) int64 { return 0 }
