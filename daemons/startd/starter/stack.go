package starter

// A starter's goroutine is new for each job, and starts with a small
// stack. Formatting the job's ads and parsing the end report's answer (the
// claim's next job) are deep, recursive work: the stack would grow several
// times, each time by copying every frame on it, deep in that work. A
// short job spent more on those copies than on writing its ads. Growing
// the stack once at the start, while it holds a frame or two, costs one
// allocation and next to no copying; the work then runs without growth.
// The garbage collector may shrink the stack of a goroutine that waits
// (on the job's process, say), so the report grows it again first, which
// costs nothing when it was left as it was.

// stackFrame is the frame that grows the stack: the runtime doubles a
// stack until the frame fits on top of what it holds, so a goroutine that
// began small gets 16 KiB, enough for all of a short job's run and report
// (internal/pooltest/e2e BenchmarkThroughput10k: no stack growth under
// Starter.run but this one). A deeper ad grows it further, as any
// goroutine's.
const stackFrame = 12 << 10

// growStackUse is never set: the frame growStack reserves is neither
// zeroed nor written, and the compiler still keeps it.
var growStackUse bool

// growStack makes the calling goroutine's stack large enough for a frame
// of stackFrame bytes on top of what it holds, unless it is already.
//
//go:noinline
func growStack() {
	if growStackUse {
		var frame [stackFrame]byte // zeroed only here, where it is used
		touchFrame(&frame)
	}
}

// touchFrame uses growStack's frame, without it leaving the stack.
//
//go:noinline
func touchFrame(frame *[stackFrame]byte) { frame[0] = 1 }
