package starter

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// CheckpointStore keeps a self-checkpointing job's checkpoints at its
// schedd (HTCondor's manual, "Self-Checkpointing Applications"): the
// files of checkpoint n go there before the checkpoint is reported, and
// a later run of the job fetches the committed one's.
type CheckpointStore interface {
	SendCheckpoint(ctx context.Context, n int, name string, r io.Reader, size int64, sum string) error
	FetchCheckpoint(ctx context.Context, n int, name string, w io.Writer) (sum string, err error)
}

// checkpointCode returns the exit code by which the job says it has
// written a checkpoint (SuccessCheckpointExitCode, honoured with
// WantFTOnCheckpoint as HTCondor's starter does), if the job has one and
// the machine keeps checkpoints.
func (s *Starter) checkpointCode() (int, bool) {
	ad := s.job.Ad
	code, ok := classad.EvalInt(ad, attr.SuccessCheckpointExitCode)
	if !ok || !classad.EvalBoolOr(ad, attr.WantFTOnCheckpoint, false) || s.cfg.Checkpoints == nil {
		return 0, false
	}
	return int(code), true
}

// waitCheckpointing waits for the job's process. Each time it exits with
// its checkpoint code, the checkpoint is sent and committed and the
// executable starts again in the same sandbox with the same arguments;
// the job finds its checkpoint itself. It returns when the process ends
// otherwise, or the event that ends the job when a checkpoint or a
// restart fails.
func (s *Starter) waitCheckpointing(p *plan, inputs map[string]fileState, started *startedReport) (time.Time, *wire.JobUpdate) {
	code, ok := s.checkpointCode()
	s.ckpt = int(classad.EvalIntOr(s.job.Ad, attr.CheckpointNumber, 0))
	for {
		end := s.wait()
		if !ok || s.cmd.ProcessState.ExitCode() != code || s.vacating() != "" {
			return end, nil
		}
		started.flush()
		if err := s.checkpoint(p, inputs); err != nil {
			if r := s.vacating(); r != "" {
				u := s.evicted(r)
				return end, &u
			}
			u := s.held(attr.HoldTransferOutput, fmt.Errorf("checkpoint: %w", err))
			return end, &u
		}
		s.mu.Lock()
		s.exited = false
		s.mu.Unlock()
		if err := s.spawn(p); err != nil {
			u := s.failed(attr.HoldStartingJob, fmt.Errorf("restarting after checkpoint %d: %w", s.ckpt, err))
			if r := s.vacating(); r != "" {
				u = s.evicted(r)
			}
			return end, &u
		}
	}
}

// checkpoint sends the job's next checkpoint and reports it: its files
// are TransferCheckpoint's, or the outputs the job would send at its end.
func (s *Starter) checkpoint(p *plan, inputs map[string]fileState) error {
	names, err := s.checkpointFiles(p, inputs)
	if err != nil {
		return err
	}
	n := s.ckpt + 1
	for _, name := range names {
		if err := s.sendCheckpointFile(n, name); err != nil {
			return err
		}
	}
	u := s.event(wire.EventCheckpointed)
	u.Checkpoint, u.CheckpointFiles = n, strings.Join(names, ",")
	if err := s.cfg.Report(s.ctx, u); err != nil {
		return fmt.Errorf("reporting checkpoint %d: %w", n, err)
	}
	s.ckpt = n
	s.log.Info("checkpoint taken", "job", s.job.ID, "checkpoint", n, "files", len(names))
	return nil
}

// checkpointFiles lists a checkpoint's files: top-level files of the
// sandbox, directories by their files.
func (s *Starter) checkpointFiles(p *plan, inputs map[string]fileState) ([]string, error) {
	listed := splitList(classad.EvalStringOr(s.job.Ad, attr.TransferCheckpoint, ""))
	if len(listed) == 0 {
		outs, err := s.outputsOf(p, inputs)
		if err != nil {
			return nil, err
		}
		for _, o := range outs {
			if o[1] != stdoutFile && o[1] != stderrFile {
				listed = append(listed, o[1])
			}
		}
	}
	var names []string
	for _, n := range listed {
		files, err := s.box.Files(n)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if strings.ContainsAny(f, "/,") {
				return nil, fmt.Errorf("file %q: a checkpoint holds files of the sandbox's top directory, without commas", f)
			}
			names = append(names, f)
		}
	}
	return names, nil
}

// sendCheckpointFile sends one file of checkpoint n with its checksum.
func (s *Starter) sendCheckpointFile(n int, name string) error {
	return s.sendWith(name, name, func(r io.Reader, size int64, sum string) error {
		return s.cfg.Checkpoints.SendCheckpoint(s.ctx, n, name, r, size, sum)
	})
}

// addCheckpoint adds the files of the job's committed checkpoint to its
// inputs: the job finds them in its sandbox, over any input of the same
// name.
func (p *plan) addCheckpoint(ad *classad.Ad) {
	n := classad.EvalIntOr(ad, attr.CheckpointNumber, 0)
	files := classad.EvalStringOr(ad, attr.CheckpointFiles, "")
	if n < 1 || files == "" {
		return
	}
	for _, name := range strings.Split(files, ",") {
		in := input{remote: name, local: name, ckpt: int(n)}
		replaced := false
		for i := range p.inputs {
			if p.inputs[i].local == name {
				in.exec = p.inputs[i].exec
				p.inputs[i], replaced = in, true
			}
		}
		if !replaced {
			p.inputs = append(p.inputs, in)
		}
	}
}
