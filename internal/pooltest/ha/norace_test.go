//go:build linux && !race

package ha

const raceEnabled = false
