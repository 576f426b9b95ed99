package starter

import "github.com/kite-sched/kite/daemons/startd/sandbox"

// A claim's jobs share a sandbox when they leave nothing in it but their
// ads (sandbox.Dir.Park): a job that runs in its submit directory costs
// no directory made or removed, and its ads are rewritten in place. A
// sandbox is named after its slot and job, renamed for each.

// sandbox returns the job's sandbox: the spare its claim's previous job
// parked, or a new one.
func (s *Starter) sandbox() (*sandbox.Dir, error) {
	tag := s.cfg.Slot + "_" + s.job.ID
	if sp := s.cfg.Spare; sp != nil {
		err := sp.Reuse(tag, s.owner())
		if err == nil {
			return sp, nil
		}
		s.log.Info("a new sandbox instead of the spare", "reason", err)
		if err := sp.Remove(); err != nil {
			s.log.Warn("removing a spare sandbox", "dir", sp.Path, "err", err)
		}
	}
	return sandbox.Create(s.cfg.ExecuteDir, tag, s.owner())
}

// park hands the sandbox of a job that is over to Config.Recycle when the
// job left nothing in it but its ads; otherwise cleanup removes it.
func (s *Starter) park() {
	s.mu.Lock()
	box := s.box
	s.mu.Unlock()
	if s.cfg.Recycle == nil || box == nil || box.Park(jobAdFile, machineAdFile) != nil {
		return
	}
	s.mu.Lock()
	s.box = nil
	s.mu.Unlock()
	s.cfg.Recycle(box)
}
