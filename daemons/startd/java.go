package startd

import (
	"context"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/startd/javabench"
	"github.com/kite-sched/kite/daemons/startd/starter"
)

// detectJava probes the configured JVM once: a machine whose JVM is
// missing or broken runs no java universe jobs, and says why in its log,
// as HTCondor's startd leaves HasJava out.
func (s *Server) detectJava() error {
	if s.cfg.Java == "" {
		return nil
	}
	info, err := javabench.Probe(context.Background(), s.cfg.Java, s.cfg.ExecuteDir)
	if err != nil {
		s.log.Info("no java universe on this machine", "java", s.cfg.Java, "err", err)
		return nil
	}
	s.java = &info
	return nil
}

// javaAttrs publishes the JVM as HTCondor's startd does.
func (s *Server) javaAttrs(ad *classad.Ad) {
	if s.java == nil {
		return
	}
	ad.Set("HasJava", ast.Bool(true))
	ad.Set("JavaVendor", ast.Str(s.java.Vendor))
	ad.Set("JavaVersion", ast.Str(s.java.Version))
	ad.Set("JavaSpecificationVersion", ast.Str(s.java.SpecVersion))
	ad.Set("JavaMFlops", ast.Real(s.java.MFlops))
}

// jvm is the JVM jobs run with; nil without one.
func (s *Server) jvm() *starter.JVM {
	if s.java == nil {
		return nil
	}
	return &starter.JVM{Path: s.java.Path, Args: s.cfg.JavaArgs}
}
