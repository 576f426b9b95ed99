//go:build race

package classad_test

// raceDetector: sync.Pool drops items at random under the race detector,
// so counts of allocations are not exact.
const raceDetector = true
