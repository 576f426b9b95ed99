package starter

import (
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
)

// stackInUse returns how much more stack n goroutines that are blocked
// hold than none, each having called growStack first when grow is set.
func stackInUse(n int, grow bool) int64 {
	var before, after runtime.MemStats
	release := make(chan struct{})
	var ready, done sync.WaitGroup
	runtime.ReadMemStats(&before)
	for range n {
		ready.Add(1)
		done.Go(func() {
			if grow {
				growStack()
			}
			ready.Done()
			<-release
		})
	}
	ready.Wait()
	runtime.ReadMemStats(&after)
	close(release)
	done.Wait()
	return int64(after.StackInuse) - int64(before.StackInuse)
}

// TestGrowStack checks that growStack leaves a goroutine a stack of 16
// KiB, where one that did not call it keeps its small one: the compiler
// kept the frame that nothing reads. (The runtime's stack caches blur the
// count by a few KiB a goroutine.)
func TestGrowStack(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no collection shrinks them meanwhile
	const n = 64
	plain, grown := stackInUse(n, false), stackInUse(n, true)
	if grown < plain+n*8<<10 {
		t.Errorf("%d goroutines hold %d bytes of stack after growStack, %d without: want 8 KiB more each at least", n, grown, plain)
	}
}
