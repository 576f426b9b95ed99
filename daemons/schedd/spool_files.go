package schedd

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/daemons/schedd/transfer"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// maxSpoolFiles bounds the files of one spooled job's output archive.
const maxSpoolFiles = 10000

// makeSpoolDir makes a job's spool directory, the owner's: the schedd
// makes it in its own directories (the spool's root and the cluster's,
// which list job numbers only), and gives it to the owner, as HTCondor's
// schedd does; what is in it is written as the owner, reached from the
// spool's root (transfer.Files.AsOwner opens each directory on the way).
func (s *Server) makeSpoolDir(dir, account string) error {
	for _, d := range []string{s.spoolRoot(), filepath.Dir(dir)} {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := os.Chmod(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if !s.ids.Privileged {
		return nil
	}
	a, err := s.ids.Account(account)
	if err != nil {
		return err
	}
	return os.Lchown(dir, int(a.UID), int(a.GID))
}

// receiveInputs reads a tar archive of a job's input files into its spool
// directory, as the job's owner: each file is written beside its place,
// synced and renamed. Every input the job names must be in it.
func (s *Server) receiveInputs(body io.Reader, v *queue.View, dir string, inputs map[string]string) error {
	tr := tar.NewReader(body)
	got := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return s.bodyError(err, "spool input: job %s: the archive: %v", v.ID, err)
		}
		base, ok := inputs[h.Name]
		switch {
		case !ok:
			return wire.Forbidden("spool input: job %s does not name %q as an input file", v.ID, h.Name)
		case h.Typeflag != tar.TypeReg:
			return wire.BadRequest("spool input: job %s: %q is not a plain file", v.ID, h.Name)
		case got[base]:
			return wire.BadRequest("spool input: job %s: %q is in the archive twice", v.ID, h.Name)
		}
		if err := s.storeInput(tr, v, filepath.Join(dir, base), h.FileInfo().Mode().Perm()); err != nil {
			return err
		}
		got[base] = true
	}
	for name, base := range inputs {
		if !got[base] {
			return wire.BadRequest("spool input: job %s: the archive lacks its input %q", v.ID, name)
		}
	}
	return s.syncDir(v, dir)
}

// bodyError answers a request body that could not be read: too large,
// or broken.
func (s *Server) bodyError(err error, format string, args ...any) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return err
	}
	return wire.BadRequest(format, args...)
}

// storeInput writes one spooled input file as the job's owner.
func (s *Server) storeInput(r io.Reader, v *queue.View, path string, perm fs.FileMode) error {
	tmp, tmpPath, err := s.files.CreateTemp(v, path)
	if err != nil {
		return wire.Forbidden("spool input: job %s: %v (as %s)", v.ID, err, transfer.Account(v))
	}
	defer s.files.Remove(v, tmpPath)
	_, err = io.Copy(tmp, r)
	if err == nil {
		err = tmp.Chmod(perm | 0o400)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return s.bodyError(err, "spool input: job %s: %s: %v", v.ID, filepath.Base(path), err)
	}
	return s.files.Rename(v, tmpPath, path)
}

// syncDir makes the entries of a job's directory durable.
func (s *Server) syncDir(v *queue.View, dir string) error {
	d, err := s.files.OpenFile(v, dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// sendOutputs sends the files of a job's spool directory but its spooled
// inputs, as a tar archive, each opened as the job's owner.
func (s *Server) sendOutputs(w http.ResponseWriter, v *queue.View, dir string) error {
	files, err := s.outputFiles(v, dir)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", wire.ContentTypeTar)
	w.WriteHeader(http.StatusOK)
	tw := tar.NewWriter(w)
	for _, name := range files {
		if err := s.sendOutput(tw, v, dir, name); err != nil {
			s.log.Info("spooled output cut", "job", v.ID.String(), "file", name, "err", err)
			return nil // the archive lacks its end: the tool sees it cut
		}
	}
	if err := tw.Close(); err != nil {
		s.log.Info("spooled output cut", "job", v.ID.String(), "err", err)
	}
	return nil
}

// outputFiles lists the plain files of a spool directory, relative, but
// the job's inputs (by the names the spooled ad gives them).
func (s *Server) outputFiles(v *queue.View, dir string) ([]string, error) {
	inputs, err := spoolInputs(v)
	if err != nil {
		return nil, wire.Conflict("spool output: job %s: %v", v.ID, err)
	}
	var files []string
	walk := func(fsys fs.FS) error {
		return fs.WalkDir(fsys, ".", func(rel string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			if _, in := inputs[rel]; in {
				return nil
			}
			if len(files) == maxSpoolFiles {
				return fmt.Errorf("more than %d files", maxSpoolFiles)
			}
			files = append(files, rel)
			return nil
		})
	}
	err = s.files.AsOwner(v, dir, func(p string) error { return walk(os.DirFS(p)) },
		func(r *os.Root, rel string) error {
			sub, err := r.OpenRoot(rel)
			if err != nil {
				return err
			}
			defer sub.Close()
			return walk(sub.FS())
		})
	if err != nil {
		return nil, wire.Conflict("spool output: job %s: %v", v.ID, err)
	}
	slices.Sort(files)
	return files, nil
}

// sendOutput writes one output file into the archive.
func (s *Server) sendOutput(tw *tar.Writer, v *queue.View, dir, name string) error {
	f, err := s.files.OpenFile(v, filepath.Join(dir, filepath.FromSlash(name)), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is no longer a plain file", name)
	}
	h := &tar.Header{Name: name, Mode: int64(fi.Mode().Perm()), Size: fi.Size(), ModTime: fi.ModTime(), Typeflag: tar.TypeReg}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err = io.CopyN(tw, f, fi.Size())
	return err
}

// removeSpoolDir removes a job's spool directory (and its cluster's,
// once empty).
func (s *Server) removeSpoolDir(id queue.JobID) {
	dir := s.spoolDir(id)
	if err := os.RemoveAll(dir); err != nil {
		s.log.Error("spool directory not removed (again at the next sweep)", "job", id.String(), "err", err)
		return
	}
	os.Remove(filepath.Dir(dir)) // fails while other procs' are there
}

// spoolLoop, every periodic interval, lets completed jobs whose
// LeaveJobInQueue no longer holds leave the queue, and removes the spool
// directories of jobs no longer in it.
func (s *Server) spoolLoop(ctx context.Context) {
	every(ctx, s.cfg.PeriodicInterval, func() {
		if err := s.sweepSpool(); err != nil {
			s.log.Error("spool sweep", "err", err)
		}
	})
}

// sweepSpool is one round of spoolLoop.
func (s *Server) sweepSpool() error {
	var expired []queue.JobID
	s.q.Read(func(r *queue.Reader) {
		for c := range r.Clusters {
			for j := range c.Jobs {
				if j.Status() != attr.Completed {
					continue
				}
				if v := j.View(); !leaveInQueue(v.Ad()) {
					expired = append(expired, v.ID)
				}
			}
		}
	})
	if len(expired) > 0 {
		err := s.q.Update(func(tx *queue.Tx) error {
			for _, id := range expired {
				if j := tx.Job(id); j != nil && tx.Status(j) == attr.Completed && !keepCompleted(tx, j) {
					s.leave(tx, j)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		s.kickAds()
	}
	return s.sweepSpoolDirs()
}

// sweepSpoolDirs removes the spool directories of jobs not in the queue.
func (s *Server) sweepSpoolDirs() error {
	clusters, err := os.ReadDir(s.spoolRoot())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, c := range clusters {
		cluster, err := strconv.ParseInt(c.Name(), 10, 64)
		if err != nil {
			continue
		}
		procs, err := os.ReadDir(filepath.Join(s.spoolRoot(), c.Name()))
		if err != nil {
			return err
		}
		for _, p := range procs {
			proc, err := strconv.ParseInt(p.Name(), 10, 64)
			if err != nil {
				continue
			}
			id := queue.JobID{Cluster: cluster, Proc: proc}
			if _, found := s.view(id); !found {
				s.removeSpoolDir(id)
			}
		}
	}
	return nil
}
