package queue

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kite-sched/kite/internal/attr"
)

// BenchmarkCrowdedWriters measures job updates from many writers at once
// while thousands of other goroutines keep the scheduler's run queues
// long, as in a pool of 10 000 simulated hosts in one process
// (docs/scale.md): "serial" takes the lock once per writer, as Stage did
// before writers were grouped, "grouped" is Stage. One op is one update.
//
//	go test -run '^$' -bench CrowdedWriters ./daemons/schedd/queue/
func BenchmarkCrowdedWriters(b *testing.B) {
	serial := func(q *Queue, fn func(tx *Tx) error) error {
		q.mu.Lock()
		wait, err := q.stageLocked(fn)
		q.mu.Unlock()
		if err != nil {
			return err
		}
		return wait()
	}
	grouped := func(q *Queue, fn func(tx *Tx) error) error { return q.Update(fn) }
	for _, mode := range []struct {
		name   string
		update func(q *Queue, fn func(tx *Tx) error) error
	}{{"serial", serial}, {"grouped", grouped}} {
		for _, crowd := range []int{0, 4096} {
			b.Run(fmt.Sprintf("%s/crowd=%d", mode.name, crowd), func(b *testing.B) {
				crowdedWriters(b, crowd, mode.update)
			})
		}
	}
}

// crowdedWriters runs b.N updates from 256 writers while crowd goroutines
// yield and allocate in a loop.
func crowdedWriters(b *testing.B, crowd int, update func(q *Queue, fn func(tx *Tx) error) error) {
	const writers = 256
	q := open(b, filepath.Join(b.TempDir(), "queue.db"), Options{NoSync: true})
	defer q.Close()
	c := submit(b, q, "alice", writers)
	var stop atomic.Bool
	var bg sync.WaitGroup
	for range crowd {
		bg.Go(func() {
			var sink []byte
			for !stop.Load() {
				sink = make([]byte, 256)
				runtime.Gosched()
			}
			_ = sink
		})
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			id := JobID{c, int64(w)}
			for n := int64(0); left.Add(-1) >= 0; n++ {
				err := update(q, func(tx *Tx) error {
					tx.SetInt(tx.Job(id), attr.NumJobStarts, n)
					return nil
				})
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	stop.Store(true)
	bg.Wait()
}
