//go:build race

package queue

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"sync"
)

// In race builds (CI runs every daemon's tests so) the queue checks how
// its lock is used, where a misuse would hang a schedd only under some
// interleaving: a goroutine that holds the lock (in a Read, or staging an
// Update's function) must not take it again (a writer waiting between
// the two holds out the second), and must not wait for commits (a
// barrier, an Update's wait), which may need the lock or a holder that
// waits for it. A misuse panics at once, with its stack.

// lockCheck records the goroutines that hold the queue's lock.
type lockCheck struct {
	mu   sync.Mutex
	held map[uint64]bool
}

// enter notes that the calling goroutine takes the lock (how: "Read").
func (c *lockCheck) enter(how string) {
	g := goid()
	c.mu.Lock()
	again := c.held[g]
	if c.held == nil {
		c.held = map[uint64]bool{}
	}
	c.held[g] = true
	c.mu.Unlock()
	if again {
		panic(fmt.Sprintf("job queue: %s by a goroutine that holds the queue's lock already", how))
	}
}

// exit notes that the calling goroutine released the lock.
func (c *lockCheck) exit() {
	g := goid()
	c.mu.Lock()
	delete(c.held, g)
	c.mu.Unlock()
}

// waits checks that the calling goroutine, about to wait for commits or
// for the lock (what, and why it waits), does not hold the lock.
func (c *lockCheck) waits(what string) {
	g := goid()
	c.mu.Lock()
	held := c.held[g]
	c.mu.Unlock()
	if held {
		panic(fmt.Sprintf("job queue: %s, called with the queue's lock held", what))
	}
}

// goid is the calling goroutine's number, from its stack's first line.
func goid() uint64 {
	var b [64]byte
	line := b[:runtime.Stack(b[:], false)]
	line, _ = bytes.CutPrefix(line, []byte("goroutine "))
	n, _ := strconv.ParseUint(string(line[:bytes.IndexByte(line, ' ')]), 10, 64)
	return n
}
