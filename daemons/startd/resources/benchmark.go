package resources

import (
	"sync"
	"time"
)

// benchTime is how long each of the two benchmarks runs.
const benchTime = 60 * time.Millisecond

var (
	benchOnce           sync.Once
	benchKFlops, benchM int64
	sink                float64
	isink               uint64
)

// Benchmark returns the machine's speed as HTCondor's KFlops (thousands
// of floating point operations per second, from a Linpack-like vector
// update) and Mips (millions of integer operations per second). It runs
// once per process, in about a tenth of a second, on one cpu; later
// calls return the same numbers.
func Benchmark() (kflops, mips int64) {
	benchOnce.Do(func() { benchKFlops, benchM = measureFlops(benchTime), measureMips(benchTime) })
	return benchKFlops, benchM
}

// measureFlops times y = a*x + y over a vector that fits in cache: two
// floating point operations per element.
func measureFlops(d time.Duration) int64 {
	const n = 1024
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = float64(i)*0.5, 1
	}
	a := 1.000001
	var ops int64
	start := time.Now()
	for time.Since(start) < d {
		for range 64 {
			for i := range x {
				y[i] += a * x[i]
			}
			a = -a
		}
		ops += 64 * 2 * n
	}
	sink = y[n/2]
	return ops * int64(time.Second) / int64(time.Since(start)) / 1000
}

// measureMips times a mix of integer additions, shifts, exclusive ors and
// comparisons, counted as one operation each.
func measureMips(d time.Duration) int64 {
	var ops int64
	h := uint64(88172645463325252)
	start := time.Now()
	for time.Since(start) < d {
		for i := range uint64(1 << 14) {
			h ^= h << 13
			h ^= h >> 7
			h ^= h << 17
			if h&1 == 0 {
				h += i
			}
		}
		ops += (1 << 14) * 8
	}
	isink = h
	return ops * int64(time.Second) / int64(time.Since(start)) / 1_000_000
}
