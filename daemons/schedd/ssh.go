package schedd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// shellDialTimeout bounds how long the startd may take to start a shell.
const shellDialTimeout = 10 * time.Second

// handleShell opens a shell or command in a running job's sandbox for
// its owner or an administrator (condor_ssh_to_job): the schedd checks
// who asks and that the job runs, asks the startd that runs it, with the
// job's claim, which only the schedd holds, to start the shell, and then
// passes the session's frames between the tool and the startd as they
// come. The startd bounds the shells of one job (starter.MaxShells), so
// the sessions here are bounded by the running jobs.
func (s *Server) handleShell(w http.ResponseWriter, r *wire.Request) error {
	if err := r.WantsUpgrade(wire.ShellProtocol); err != nil {
		return err
	}
	var req wire.ShellRequest
	if err := r.Decode(&req); err != nil {
		return err
	}
	id, err := queue.ParseJobID(req.Job)
	if err != nil {
		return wire.BadRequest("ssh_to_job: %v", err)
	}
	if err := req.Check(); err != nil {
		return wire.BadRequest("ssh_to_job %s: %v", id, err)
	}
	v, found := s.view(id)
	if !found {
		return wire.NotFound("ssh_to_job: job %s is not in the queue", id)
	}
	if !mayChange(r.Caller, v.Owner) {
		return wire.Forbidden("ssh_to_job: job %s is %s's: only its owner or an administrator may open a shell in it", id, v.Owner)
	}
	if v.Status != attr.Running {
		return wire.Conflict("ssh_to_job: job %s is not running (its status is %s)", id, attr.StatusLetter(v.Status))
	}
	c, started := s.claims.First(id)
	if c == nil || !started {
		return wire.Conflict("ssh_to_job: job %s has not started its process yet", id)
	}
	up, err := s.dialShell(r.HTTP.Context(), c, wire.ClaimShell{ClaimID: c.ID, ShellSpec: req.ShellSpec})
	var we *wire.Error
	switch {
	case errors.As(err, &we) && we.Code != wire.CodeInternal:
		return &wire.Error{Status: we.Status, Code: we.Code, Message: fmt.Sprintf("ssh_to_job %s on %s: %s", id, c.SlotName, we.Message)}
	case err != nil:
		return wire.Unavailable("ssh_to_job %s: %s, which runs it, did not start the shell: %v", id, c.SlotName, err)
	}
	defer up.Close()
	conn, err := r.Upgrade(w, wire.ShellProtocol)
	if err != nil {
		s.log.Warn("shell session not started", "job", id, "err", err)
		return nil // the answer may be half written: nothing more to say
	}
	defer conn.Close()
	s.log.Info("shell session", "job", id, "caller", r.Caller.Name, "slot", c.SlotName)
	splice(conn, up)
	return nil
}

// dialShell asks the startd for the shell, giving it shellDialTimeout to
// answer; the connection then lives as long as ctx.
func (s *Server) dialShell(ctx context.Context, c *claims.Claim, req wire.ClaimShell) (io.ReadWriteCloser, error) {
	ctx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(shellDialTimeout, cancel)
	up, err := s.startd(c).Upgrade(ctx, wire.PathClaimShell, wire.ShellProtocol, req)
	if !timer.Stop() {
		if err == nil {
			up.Close()
		}
		cancel()
		return nil, fmt.Errorf("no answer in %v", shellDialTimeout)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &cancelCloser{up, cancel}, nil
}

// cancelCloser is a connection that cancels its context when closed.
type cancelCloser struct {
	io.ReadWriteCloser
	cancel context.CancelFunc
}

func (c *cancelCloser) Close() error {
	err := c.ReadWriteCloser.Close()
	c.cancel()
	return err
}

// splice copies the tool's bytes to the startd and the startd's back
// until either side ends: the tool gone closes the startd's side (which
// ends the shell); the startd done (the shell's exit sent) closes the
// tool's.
func splice(tool, startd io.ReadWriteCloser) {
	go func() {
		io.Copy(startd, tool)
		startd.Close()
	}()
	io.Copy(tool, startd)
	tool.Close()
}
