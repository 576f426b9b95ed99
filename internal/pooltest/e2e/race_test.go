//go:build race

package e2e

// raceEnabled: the test binary, and so every daemon of its pools, runs
// under the race detector.
const raceEnabled = true
