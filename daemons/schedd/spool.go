package schedd

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/transfer"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/spool"
	"github.com/kite-sched/kite/internal/wire"
)

// Spooled jobs (condor_submit -spool, condor_transfer_data; HTCondor's
// manual, "Submitting jobs to a remote schedd", and the man pages). The
// tool queues the jobs held, HoldReasonCode 16 ("Spooling input data
// files"), then sends each job's input files as a tar archive. The
// schedd keeps them in the job's spool directory,
// <spool>/spooled/<cluster>/<proc>, made for the job's owner and written
// as the owner, rewrites the job to run from there (Iwd is the spool
// directory, SUBMIT_Iwd the submit directory, inputs by base name) and
// releases it. The job's output lands in the spool directory; a
// completed job stays in the queue while its LeaveJobInQueue holds (the
// tool sets HTCondor's: ten days, or until its output is fetched), and
// kite transfer_data fetches the output, as a tar archive, and then
// tells the schedd, which lets the job leave. spoolLoop lets expired
// jobs leave and removes spool directories whose job left.

// spooledDir is the directory of the jobs' spool directories, in the
// schedd's spool.
const spooledDir = "spooled"

// spoolRoot is the directory of the jobs' spool directories.
func (s *Server) spoolRoot() string { return s.files.Spool }

// spoolDir is a job's spool directory.
func (s *Server) spoolDir(id queue.JobID) string {
	return filepath.Join(s.spoolRoot(), strconv.FormatInt(id.Cluster, 10), strconv.FormatInt(id.Proc, 10))
}

// spooledJob reads the job of a spool request and checks that the caller
// may act on it.
func (s *Server) spooledJob(r *wire.Request, what string) (queue.View, error) {
	id, err := queue.ParseJobID(r.HTTP.URL.Query().Get("job"))
	if err != nil {
		return queue.View{}, wire.BadRequest("%s: %v", what, err)
	}
	v, found := s.view(id)
	if !found {
		return queue.View{}, wire.NotFound("%s: job %s is not in the queue", what, id)
	}
	if !mayChange(r.Caller, v.Owner) {
		return queue.View{}, wire.Forbidden("%s: job %s is %s's: only its owner or an administrator may reach its spooled files", what, id, v.Owner)
	}
	return v, nil
}

// spooling reports whether a job waits for its input to be spooled.
func spooling(v *queue.View) bool {
	return v.Status == attr.Held && v.Int(attr.HoldReasonCode, 0) == attr.HoldSpoolingInput
}

// handleSpoolInput takes a held spooled job's input files and releases
// the job once every one is in.
func (s *Server) handleSpoolInput(w http.ResponseWriter, r *wire.Request) error {
	v, err := s.spooledJob(r, "spool input")
	if err != nil {
		return err
	}
	if !spooling(&v) {
		return wire.Conflict("spool input: job %s is not held waiting for its input (HoldReasonCode %d)", v.ID, attr.HoldSpoolingInput)
	}
	inputs, err := spoolInputs(&v)
	if err != nil {
		return wire.BadRequest("spool input: job %s: %v", v.ID, err)
	}
	start := s.now().Unix()
	dir := s.spoolDir(v.ID)
	if err := s.makeSpoolDir(dir, transfer.Account(&v)); err != nil {
		return wire.Unavailable("spool input: job %s: %v", v.ID, err)
	}
	if err := s.receiveInputs(r.HTTP.Body, &v, dir, inputs); err != nil {
		return err
	}
	err = s.q.Update(func(tx *queue.Tx) error {
		j := tx.Job(v.ID)
		if j == nil {
			return wire.NotFound("spool input: job %s left the queue", v.ID)
		}
		if cur := tx.View(j); !spooling(&cur) {
			return wire.Conflict("spool input: job %s is no longer waiting for its input", v.ID)
		}
		spooledAd(tx, j, dir, inputs)
		tx.SetInt(j, attr.StageInStart, start)
		tx.SetInt(j, attr.StageInFinish, s.now().Unix())
		ev := s.newEvents()
		s.release(tx, j, "Data files spooled", ev)
		ev.after(tx)
		return nil
	})
	if err != nil {
		return err
	}
	s.kickAds()
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// spooledAd makes a job run from its spool directory: Iwd is the spool
// directory (SUBMIT_Iwd the submit side's), the inputs are named by the
// base names they are kept under, and an Out or Err in another directory
// by its base name (SUBMIT_Out, SUBMIT_Err keep the path transfer_data
// writes to, relative to SUBMIT_Iwd unless absolute).
func spooledAd(tx *queue.Tx, j *queue.Job, dir string, inputs map[string]string) {
	v := tx.View(j)
	tx.SetString(j, attr.SubmitIwd, v.String(attr.Iwd))
	tx.SetString(j, attr.Iwd, dir)
	for _, name := range []string{attr.Cmd, attr.In} {
		if base, ok := inputs[v.String(name)]; ok {
			tx.SetString(j, name, base)
		}
	}
	if list := spool.TransferList(v.String(attr.TransferInput)); len(list) > 0 {
		for i, f := range list {
			if base, ok := inputs[f]; ok {
				list[i] = base
			}
		}
		tx.SetString(j, attr.TransferInput, strings.Join(list, ","))
	}
	for _, p := range [][2]string{{attr.Out, attr.SubmitOut}, {attr.Err, attr.SubmitErr}} {
		if path := v.String(p[0]); strings.Contains(path, "/") && path != os.DevNull {
			tx.SetString(j, p[1], path)
			tx.SetString(j, p[0], filepath.Base(path))
		}
	}
}

// spoolInputs maps the input files a job spools (package spool) to the
// base names they are kept under.
func spoolInputs(v *queue.View) (map[string]string, error) {
	list, err := spool.Inputs(v.Ad())
	if err != nil {
		return nil, err
	}
	inputs := make(map[string]string, len(list))
	for _, in := range list {
		inputs[in.Name] = in.Base
	}
	return inputs, nil
}

// handleSpoolOutput sends a completed spooled job's output files.
func (s *Server) handleSpoolOutput(w http.ResponseWriter, r *wire.Request) error {
	v, err := s.spooledJob(r, "spool output")
	if err != nil {
		return err
	}
	if v.String(attr.SubmitIwd) == "" {
		return wire.Conflict("spool output: job %s was not spooled (kite submit -spool)", v.ID)
	}
	if v.Status != attr.Completed {
		return wire.Conflict("spool output: job %s has not completed (its status is %s)", v.ID, attr.StatusLetter(v.Status))
	}
	return s.sendOutputs(w, &v, s.spoolDir(v.ID))
}

// handleSpoolDone lets completed spooled jobs whose output the tool
// fetched leave the queue, as condor_transfer_data does: StageOutStart
// and StageOutFinish are set, which ends LeaveJobInQueue.
func (s *Server) handleSpoolDone(ctx context.Context, r *wire.Request) (any, error) {
	var req wire.SpoolDone
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	ids := make([]queue.JobID, len(req.IDs))
	for i, text := range req.IDs {
		id, err := queue.ParseJobID(text)
		if err != nil {
			return nil, wire.BadRequest("spool done: %v", err)
		}
		ids[i] = id
	}
	var res wire.ActResult
	var gone []queue.JobID
	err := s.q.Update(func(tx *queue.Tx) error {
		res, gone = wire.ActResult{}, gone[:0]
		now := s.now().Unix()
		for _, id := range ids {
			j := tx.Job(id)
			if j == nil {
				continue
			}
			v := tx.View(j)
			if v.String(attr.SubmitIwd) == "" || v.Status != attr.Completed {
				continue
			}
			res.Matched++
			if !mayChange(r.Caller, v.Owner) {
				res.Denied++
				continue
			}
			tx.SetInt(j, attr.StageOutStart, now)
			tx.SetInt(j, attr.StageOutFinish, now)
			s.leave(tx, j)
			res.Changed++
			gone = append(gone, id)
		}
		return nil
	})
	if err != nil {
		return nil, wire.Unavailable("spool done: %v", err)
	}
	for _, id := range gone {
		s.removeSpoolDir(id)
	}
	s.kickAds()
	return res, nil
}

// keepCompleted reports whether a job that just completed stays in the
// queue: its LeaveJobInQueue is true (condor_submit -spool sets one that
// keeps it until its output is fetched).
func keepCompleted(tx *queue.Tx, j *queue.Job) bool {
	v := tx.View(j)
	e, ok := v.Lookup(attr.LeaveJobInQueue)
	if l, lit := e.(*ast.Literal); !ok || lit && l.Kind == ast.BoolLit && !l.Bool {
		return false // condor_submit's default: no ad to build at each completion
	}
	return leaveInQueue(v.Ad())
}

// leaveInQueue evaluates a job's LeaveJobInQueue.
func leaveInQueue(ad *classad.Ad) bool {
	if _, ok := ad.Lookup(attr.LeaveJobInQueue); !ok {
		return false
	}
	v, _ := classad.EvalAttr(ad, attr.LeaveJobInQueue, nil)
	return v.IsTrue()
}
