//go:build !race

package classad_test

// raceDetector: see race_on_test.go.
const raceDetector = false
