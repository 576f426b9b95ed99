package schedd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kite-sched/kite/internal/dag"
)

// Scripts run on the schedd's host as the DAG's owner (the account the
// schedd maps the submitter to, as for the owner's files),
// in the node's directory, with a small environment: PATH, HOME, USER
// and the DAG's ENV SET. A script that cannot start exits 1 for DAGMan's
// purposes; one killed by signal N returns -N. SCRIPT DEFER runs a
// script again after its delay when it exits with the DEFER status.

// runDAGScript runs a node's PRE or POST script and returns its exit
// status.
func (s *Server) runDAGScript(ctx context.Context, w nodeWork) int {
	rec := &w.st.rec
	kind := dag.Pre
	if w.step == dag.StepPost {
		kind = dag.Post
	}
	return s.runScript(ctx, rec, rec.DAG.Nodes[w.node], kind, w.argv)
}

// runScript runs a node's script of a kind with its arguments expanded,
// again after its DEFER delay while it exits with its DEFER status, and
// returns its exit status.
func (s *Server) runScript(ctx context.Context, rec *dagRecord, n *dag.Node, kind dag.ScriptKind, argv []string) int {
	sc := n.Scripts[kind]
	for {
		rc, out, err := s.execScript(ctx, rec, nodeDir(rec, n), argv)
		if err != nil {
			s.log.Warn("DAG script did not run", "dag", rec.ID, "node", n.Name, "script", kind, "err", err)
		}
		if sc.Debug != "" {
			s.appendDebug(rec, nodeDir(rec, n), sc, n.Name, kind, out)
		}
		if sc.DeferStatus == 0 || rc != sc.DeferStatus {
			return rc
		}
		// DEFER 0 runs it again at once in DAGMan's next cycle; at
		// least a second here, so that it does not spin
		select {
		case <-ctx.Done():
			return rc
		case <-time.After(time.Duration(max(sc.DeferSecs, 1)) * time.Second):
		}
	}
}

// execScript runs argv in dir as the DAG's owner and returns its status
// and what it wrote.
func (s *Server) execScript(ctx context.Context, rec *dagRecord, dir string, argv []string) (int, []byte, error) {
	exe := argv[0]
	if !filepath.IsAbs(exe) {
		exe = filepath.Join(dir, exe)
	}
	cmd := exec.CommandContext(ctx, exe, argv[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if s.ids.Privileged {
		a, err := s.ids.Account(rec.Account)
		if err != nil {
			return 1, nil, err
		}
		if a.UID != uint32(os.Geteuid()) {
			cmd.SysProcAttr.Credential = &syscall.Credential{Uid: a.UID, Gid: a.GID, Groups: append([]uint32{}, a.Groups...)}
		}
		cmd.Env = append(cmd.Env, "HOME="+a.Home, "USER="+a.Name)
	}
	cmd.Env = append(cmd.Env, rec.DAG.EnvSet...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.Bytes(), nil
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal()), out.Bytes(), nil
		}
		return exit.ExitCode(), out.Bytes(), nil
	}
	return 1, out.Bytes(), err
}

// appendDebug appends a script's output to its DEBUG file, as the owner.
func (s *Server) appendDebug(rec *dagRecord, dir string, sc *dag.Script, node string, kind dag.ScriptKind, out []byte) {
	path := sc.Debug
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	err := s.ids.Do(rec.Account, func() error {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(f, "*** Node %s %s script output (%s) ***\n%s", node, kind, time.Now().UTC().Format(time.RFC3339), out)
		return errors.Join(err, f.Close())
	})
	if err != nil {
		s.log.Warn("DAG script: writing its DEBUG file", "dag", rec.ID, "err", err)
	}
}
