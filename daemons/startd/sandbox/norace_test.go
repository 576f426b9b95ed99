//go:build !race

package sandbox

// raceEnabled: the race detector counts allocations of its own.
const raceEnabled = false
