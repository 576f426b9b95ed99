package startd

import (
	"context"
	"path/filepath"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/container"
)

// detectContainers finds the container runtime that works here, once at
// start-up (docs/containers.md), and removes the containers an earlier
// run of this startd left behind. A machine without one runs no
// container jobs and says why in its log and its ad.
func (s *Server) detectContainers() error {
	cfg := s.cfg.Containers
	if cfg.ProbeDir == "" {
		cfg.ProbeDir = filepath.Join(s.cfg.StateDir, "container-check")
	}
	s.containers = container.Detect(context.Background(), cfg)
	for kind, why := range s.containers.Offline {
		s.log.Info("container runtime not usable", "runtime", kind, "reason", why)
	}
	r := s.containers.Runtime
	if r == nil {
		return nil
	}
	s.log.Info("container runtime", "runtime", r.Kind, "path", r.Path, "version", r.Version, "options", r.Global)
	gone, err := r.RemoveLeftovers(context.Background(), s.containerPrefix())
	if len(gone) > 0 {
		s.log.Info("removed containers left by an earlier run", "containers", gone)
	}
	if err != nil {
		s.log.Warn("removing containers left by an earlier run", "err", err)
	}
	return nil
}

// containerPrefix begins the names of this startd's containers.
func (s *Server) containerPrefix() string { return container.Prefix(s.cfg.ExecuteDir) }

// containerAttrs publishes the runtime as HTCondor's startd does.
func (s *Server) containerAttrs(ad *classad.Ad) { s.containers.Publish(ad) }
