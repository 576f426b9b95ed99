package startd

import (
	"errors"
	"sync"
	"time"
)

// Kill stops the startd as a crash or a power cut would, for tests of how
// the pool copes with machines that vanish: at once, without vacating
// its jobs gracefully, telling their schedds, writing its node monitoring
// record, withdrawing its ads or leaving the gossip (the others find it
// dead). Its jobs' processes are killed, since they would die with the
// machine. Run returns nil soon after. Only Kill's caller ends a startd
// this way; a signal stops it gracefully.
func (s *Server) Kill() {
	if !s.crashed.CompareAndSwap(false, true) {
		return
	}
	s.mu.Lock()
	node, kill := s.node, s.kill
	s.mu.Unlock()
	if kill != nil {
		kill()
	}
	if node != nil {
		node.Shutdown()
	}
}

// errKilled is what a killed startd's job reports fail with: nothing
// leaves a dead machine.
var errKilled = errors.New("the startd was killed")

// crash ends Run after Kill: the jobs' processes die without a word to
// their schedds and the loops stop.
func (s *Server) crash(stopLoops func(), loops *sync.WaitGroup) {
	s.mu.Lock()
	s.stopping = true
	for _, st := range s.all() {
		if c := st.claim; c != nil && c.run != nil {
			c.run.Vacate(errKilled.Error(), true)
		}
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.jobs.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.log.Warn("killed jobs still stopping")
	}
	stopLoops()
	loops.Wait()
	s.files.CloseIdleConnections()
	if s.cgroups != nil {
		if err := s.cgroups.Close(); err != nil {
			s.log.Warn("removing the startd's cgroups", "err", err)
		}
	}
	s.log.Info("killed")
}
