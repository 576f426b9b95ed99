package schedd

import (
	"context"
	"strings"
	"time"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/transfer"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// maxCheckpointFiles bounds the files of one checkpoint.
const maxCheckpointFiles = 10000

// checkpointed commits a self-checkpointing job's checkpoint, whose files
// the startd stored first (transfer/checkpoint.go): CheckpointNumber and
// the file list in the job ad make it the checkpoint the job's next run
// starts from, wherever that is; older checkpoints are removed after.
func (s *Server) checkpointed(id queue.JobID, u *wire.JobUpdate, at time.Time) error {
	n := int64(u.Checkpoint)
	var files []string
	if u.CheckpointFiles != "" {
		files = strings.Split(u.CheckpointFiles, ",")
	}
	if n < 1 || len(files) > maxCheckpointFiles {
		return wire.BadRequest("job %s: checkpoint %d with %d files: want a number from 1 and at most %d files", id, n, len(files), maxCheckpointFiles)
	}
	for _, f := range files {
		if transfer.CheckName(f) != nil {
			return wire.BadRequest("job %s: checkpoint file %q is not a name in the sandbox", id, f)
		}
	}
	committed := false
	err := s.updateRunning(id, func(tx *queue.Tx, j *queue.Job, _ *eventBatch) {
		if v := tx.View(j); n <= v.Int(attr.CheckpointNumber, 0) {
			return // told again
		}
		tx.SetInt(j, attr.CheckpointNumber, n)
		tx.SetString(j, attr.CheckpointFiles, u.CheckpointFiles)
		tx.SetInt(j, attr.JobLastCheckpointTime, at.Unix())
		committed = true
	})
	if err != nil {
		return unavailable(err)
	}
	if committed {
		s.pruneCheckpoints(id, n)
	}
	return nil
}

// pruneCheckpoints removes a job's checkpoints but keep (0: all of them,
// once the job has left the queue), in the background.
func (s *Server) pruneCheckpoints(id queue.JobID, keep int64) {
	s.goBackground(func(context.Context) {
		if err := transfer.PruneCheckpoints(s.files.Checkpoints, id, keep); err != nil {
			s.log.Warn("old checkpoints not removed", "job", id.String(), "err", err)
		}
	})
}
