//go:build linux && race

package ha

// raceEnabled: the test binary, and so every daemon of the pool, runs
// under the race detector, several times slower.
const raceEnabled = true
