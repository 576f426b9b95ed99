package schedd

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/dag"
)

// A DAG's informational files, which condor_dagman writes and users read
// (the HTCondor manual, dagman-information-files.rst):
//
//   - FILE.dagman.out (in -outfile_dir when given): a line per node
//     event, condor_dagman's table of the nodes by state when they
//     change (at most every dagOutTableEvery, and at the start and the
//     end), the hold and release, the restarts;
//   - the JOBSTATE_LOG: the same events in the manual's machine-readable
//     format ("Machine-Readable Event History");
//   - the NODE_STATUS_FILE, rewritten while the DAG runs when its nodes
//     changed, at most every MinSecs (every MinSecs with ALWAYS-UPDATE),
//     and at the end.
//
// Lines are rendered with the queue locked, in the transaction of the
// change they tell, and written as the DAG's owner by one writer once
// that transaction is durable. They inform, and decide nothing: a
// schedd that stops between a commit and the write loses those lines.

// dagOutTableEvery spaces the node tables of .dagman.out.
const dagOutTableEvery = 10 * time.Second

// dagDotEvery spaces the rewrites of a DOT file with UPDATE (DAGMan
// rewrites it as it reads its node jobs' logs, every 5 s by default).
const dagDotEvery = 5 * time.Second

// dagJournal is what a DAG has rendered and not yet handed to the writer,
// and when it last wrote what.
type dagJournal struct {
	out, jobstate []byte
	lastTable     time.Time
	status, dot   rewrite
	dotWritten    bool // since the schedd started
}

// rewrite paces the rewrites of a file a running DAG keeps current.
type rewrite struct {
	next  time.Time // not rewritten before
	dirty bool      // the nodes changed since it was written
	wake  time.Time // a wake-up of the pump is set for then
}

// due reports whether the file is to be written now (noting it): the
// nodes changed since it was written, or always, and every has passed
// since. It sets a wake-up of the pump for when it will be due.
func (r *rewrite) due(now time.Time, changed, always bool, every time.Duration, wake func()) bool {
	r.dirty = r.dirty || changed
	due := false
	if (r.dirty || always) && !now.Before(r.next) {
		r.next, r.dirty, due = now.Add(every), false, true
	}
	if (r.dirty || always) && every > 0 && !r.wake.After(now) {
		r.wake = r.next
		time.AfterFunc(r.next.Sub(now), wake)
	}
	return due
}

// fileWrite is one write of the writer: an append, or a whole file
// (replace), perhaps under the first free name path.N (numbered), perhaps
// with a file's text put after its first line (insert).
type fileWrite struct {
	seq           uint64 // the order of the transactions that rendered them
	account, path string
	data          []byte
	replace       bool
	numbered      bool
	insert        string
	save          bool // a save point file: its directory made, an old one renamed .old
}

// appends reports whether w appends to its file: appends to one file in
// a row are joined into one write; a file written whole (replaced, a save
// point, a numbered DOT picture) is written once for each.
func (w fileWrite) appends() bool {
	return !w.replace && !w.numbered && !w.save && w.insert == ""
}

// dagFiles is the writer's queue.
type dagFiles struct {
	mu      sync.Mutex
	pending []fileWrite
	kick    chan struct{}
}

func newDAGFiles() *dagFiles { return &dagFiles{kick: make(chan struct{}, 1)} }

func (f *dagFiles) add(ws []fileWrite) {
	f.mu.Lock()
	f.pending = append(f.pending, ws...)
	f.mu.Unlock()
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// nodeEvent renders a node's event. Call it with the queue locked.
func (s *Server) nodeEvent(st *dagState, node int, name, id, note string) {
	ns := &st.run.Nodes[node]
	e := dag.Event{Node: st.rec.DAG.Nodes[node].Name, Name: name, ID: id, Tag: ns.Tag, Seq: ns.Seq, Note: note}
	now := s.now()
	st.j.out = dag.AppendOutEvent(st.j.out, now, e)
	if st.rec.DAG.JobstateLog != "" {
		st.j.jobstate = dag.AppendJobstate(st.j.jobstate, now, e)
	}
}

// dagNote renders a line of .dagman.out and, when meta is set, the
// jobstate log's meta event.
func (s *Server) dagNote(st *dagState, meta, line string) {
	now := s.now()
	if line != "" {
		st.j.out = dag.AppendOut(st.j.out, now, "%s", line)
	}
	if meta != "" && st.rec.DAG.JobstateLog != "" {
		st.j.jobstate = dag.AppendJobstateMeta(st.j.jobstate, now, meta)
	}
}

// flushJournal hands what a DAG rendered in tx to the writer once tx is
// durable, with the node table when nodes changed (table forces it) and
// the node status file when it is due.
func (s *Server) flushJournal(tx *queue.Tx, st *dagState, changed, table bool) {
	now := s.now()
	j := &st.j
	if table || changed && now.Sub(j.lastTable) >= dagOutTableEvery {
		j.out = dag.AppendOutStatus(j.out, now, st.run)
		j.lastTable = now
	}
	rec := &st.rec
	var ws []fileWrite
	out, jobstate := j.out, j.jobstate
	if len(out) > 0 {
		ws = append(ws, fileWrite{account: rec.Account, path: dagOutPath(rec), data: out})
	}
	if len(jobstate) > 0 {
		ws = append(ws, fileWrite{account: rec.Account, path: inDir(rec.Dir, rec.DAG.JobstateLog), data: jobstate})
	}
	j.out, j.jobstate = nil, nil
	if w, ok := s.nodeStatusDue(st, now, changed); ok {
		ws = append(ws, w)
	}
	if w, ok := s.dotDue(st, now, changed); ok {
		ws = append(ws, w)
	}
	if len(ws) == 0 {
		return
	}
	tx.OnRollback(func() {
		j.out, j.jobstate = append(out, j.out...), append(jobstate, j.jobstate...)
	})
	s.dags.writes++
	for k := range ws {
		ws[k].seq = s.dags.writes
	}
	tx.AfterCommit(func() { s.dags.files.add(ws) })
}

// nodeStatusDue renders the node status file when it is due: while the
// DAG runs, as its rewrite paces it; once more when it is over.
func (s *Server) nodeStatusDue(st *dagState, now time.Time, changed bool) (fileWrite, bool) {
	f := st.rec.DAG.NodeStatusFile
	if f == nil || st.ending {
		return fileWrite{}, false
	}
	every := time.Duration(f.MinSecs) * time.Second
	if !st.rec.Finished && !st.j.status.due(now, changed, f.Always, every, s.dags.wake) {
		return fileWrite{}, false
	}
	var b bytes.Buffer
	_ = dag.WriteNodeStatus(&b, st.run, now, st.j.status.next) // a buffer: cannot fail
	return fileWrite{account: st.rec.Account, path: inDir(st.rec.Dir, f.File), data: b.Bytes(), replace: true}, true
}

// dotDue renders the DOT file when it is due (dagman-advance-functionality.rst
// "Visualizing DAGs"): when the DAG starts (and the schedd restarts), and
// with UPDATE as its nodes change (at most every dagDotEvery) and once
// more when it is over. DONT-OVERWRITE writes FILE.0, FILE.1, ...;
// INCLUDE's file goes after the graph's first line.
func (s *Server) dotDue(st *dagState, now time.Time, changed bool) (fileWrite, bool) {
	d := st.rec.DAG.Dot
	if d == nil || st.ending {
		return fileWrite{}, false
	}
	first := !st.j.dotWritten
	update := d.Update && (st.rec.Finished || st.j.dot.due(now, changed, false, dagDotEvery, s.dags.wake))
	if !first && !update {
		return fileWrite{}, false
	}
	st.j.dotWritten = true
	var b bytes.Buffer
	_ = dag.WriteDOT(&b, st.rec.DAG, st.run, nil) // a buffer: cannot fail
	w := fileWrite{account: st.rec.Account, path: inDir(st.rec.Dir, d.File), data: b.Bytes(), replace: true, numbered: !d.Overwrite}
	if d.Include != "" {
		w.insert = inDir(st.rec.Dir, d.Include)
	}
	return w, true
}

// dagOutPath is the DAG's .dagman.out: beside its file, or in -outfile_dir.
func dagOutPath(rec *dagRecord) string {
	if rec.OutDir != "" {
		return filepath.Join(inDir(rec.Dir, rec.OutDir), filepath.Base(rec.DAG.File)+".dagman.out")
	}
	return rec.DAG.File + ".dagman.out"
}

// jobTag is a node job's tag in the jobstate log: the attribute that
// job_tag_name names, or pegasus_site (dagman-information-files.rst).
func jobTag(ad *classad.Ad) string {
	if name, ok := classad.EvalString(ad, "job_tag_name"); ok {
		if tag, ok := classad.EvalString(ad, trimPlus(name)); ok {
			return tag
		}
	}
	if tag, ok := classad.EvalString(ad, "pegasus_site"); ok {
		return tag
	}
	return ""
}

func trimPlus(s string) string {
	if len(s) > 0 && s[0] == '+' {
		return s[1:]
	}
	return s
}

// dagFileLoop writes what the DAGs rendered until ctx is done, then what
// is left.
func (s *Server) dagFileLoop(done <-chan struct{}) {
	for {
		select {
		case <-done:
			s.writeDAGFiles()
			return
		case <-s.dags.files.kick:
			s.writeDAGFiles()
		}
	}
}

// writeDAGFiles writes the pending writes in their transactions' order,
// each as its DAG's owner; appends to one file in a row are one write.
func (s *Server) writeDAGFiles() {
	f := s.dags.files
	f.mu.Lock()
	ws := f.pending
	f.pending = nil
	f.mu.Unlock()
	slices.SortStableFunc(ws, func(a, b fileWrite) int { return cmp.Compare(a.seq, b.seq) })
	for k := 0; k < len(ws); {
		w := ws[k]
		k++
		for w.appends() && k < len(ws) && ws[k].appends() && ws[k].path == w.path && ws[k].account == w.account {
			w.data = append(slices.Clip(w.data), ws[k].data...)
			k++
		}
		err := s.ids.Do(w.account, func() error { return writeDAGFile(w) })
		if err != nil {
			s.log.Warn("DAG: writing an informational file", "file", w.path, "err", err)
		}
	}
}

func writeDAGFile(w fileWrite) error {
	if w.insert != "" {
		text, err := os.ReadFile(w.insert)
		if err != nil {
			return err
		}
		first, rest, _ := bytes.Cut(w.data, []byte("\n"))
		w.data = slices.Concat(first, []byte("\n"), text, rest)
	}
	if w.numbered {
		return writeNumbered(w.path, w.data)
	}
	if w.save {
		return writeSavePoint(w.path, w.data)
	}
	if w.replace {
		tmp := w.path + ".tmp" + strconv.Itoa(os.Getpid())
		if err := os.WriteFile(tmp, w.data, 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, w.path)
	}
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(w.data)
	return errors.Join(err, f.Close())
}

// nodeJobEvent renders, in the hook, what happened to a node's job in tx:
// it started running, was held or released, or left the queue.
func (s *Server) nodeJobEvent(tx *queue.Tx, st *dagState, node int, j *queue.Job) {
	was, is := j.Status(), int64(attr.Removed)
	if tx.Job(j.ID) != nil {
		is = tx.Status(j)
	} else if v := tx.View(j); v.Status == attr.Completed {
		is = attr.Completed
	}
	name := ""
	switch {
	case is == was:
		return
	case is == attr.Running:
		name = "EXECUTE"
	case is == attr.Held:
		name = "JOB_HELD"
	case was == attr.Held && is == attr.Idle:
		name = "JOB_RELEASED"
	case is == attr.Completed:
		name = "JOB_TERMINATED"
	case is == attr.Removed:
		name = "JOB_ABORTED"
	default:
		return
	}
	s.nodeEvent(st, node, name, j.ID.String(), "")
}

// nodeJobsDone ends a node's jobs with their return value: JOB_SUCCESS or
// JOB_FAILURE, then what follows (the POST script, the node's end).
func (s *Server) nodeJobsDone(st *dagState, node, rc int) {
	name := "JOB_SUCCESS"
	if rc != 0 {
		name = "JOB_FAILURE"
	}
	s.nodeEvent(st, node, name, strconv.Itoa(rc), "")
	st.run.JobDone(node, rc)
}

// resumeDAGs starts the journal of the DAGs a restart found running (the
// jobstate log's recovery events) and retires those the store holds as
// finished (stores written before DAGs were retired).
func (s *Server) resumeDAGs() error {
	return s.q.Update(func(tx *queue.Tx) error {
		for _, st := range s.dags.m {
			if st.rec.Finished {
				s.retireDAG(tx, st)
				continue
			}
			s.dagNote(st, "RECOVERY_STARTED", "The schedd restarted: the DAG goes on where it was")
			s.dagNote(st, "RECOVERY_FINISHED", "")
			s.flushJournal(tx, st, false, true)
		}
		return nil
	})
}

// writeNumbered writes data as path.N, the first N from 0 that is free.
func writeNumbered(path string, data []byte) error {
	for n := 0; n < 10000; n++ {
		f, err := os.OpenFile(path+"."+strconv.Itoa(n), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return errors.Join(err, f.Close())
	}
	return fmt.Errorf("%s.0 to %s.9999 exist", path, path)
}
