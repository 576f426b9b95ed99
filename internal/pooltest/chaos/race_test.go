//go:build race

package chaos

// raceEnabled: the test binary, and so every daemon of its pool, runs
// under the race detector.
const raceEnabled = true
