package starter

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kite-sched/kite/daemons/startd/sandbox"
	"github.com/kite-sched/kite/internal/wire"
)

// ErrNoFiles says that the job has no files to read yet (its sandbox is
// being made) or any more (it is cleaned up).
var ErrNoFiles = errors.New("the job's files are not there: it has not started or has ended")

// ReadFile reads a range of one of the running job's files, condor_tail's
// read: its standard output or error output, or a file of its sandbox.
// The file is opened as the job's user, through the sandbox, so that
// neither a name (absolute, "..") nor a link the job made leads outside;
// a job on a shared file system has its files read in its own directory
// the same way. A refused name is a *sandbox.EscapeError.
func (s *Starter) ReadFile(r wire.FileRange) (wire.FileChunk, error) {
	if err := r.Check(); err != nil {
		return wire.FileChunk{}, err
	}
	open, err := s.opener(r)
	if err != nil {
		return wire.FileChunk{}, err
	}
	var f *os.File
	if s.cfg.User == nil {
		f, err = open()
	} else {
		err = s.cfg.User.account().Do(func() (err error) {
			f, err = open()
			return err
		})
	}
	if err != nil {
		return wire.FileChunk{}, err
	}
	defer f.Close()
	return readRange(f, r.Offset, r.Max)
}

// opener returns how to open the file a range names.
func (s *Starter) opener(r wire.FileRange) (func() (*os.File, error), error) {
	shared := s.sharedFS()
	p, err := planFiles(s.job.Ad)
	if shared {
		p, err = planShared(s.job.Ad)
	}
	if err != nil {
		return nil, err
	}
	if r.Name != "" {
		if err := sandbox.CheckName(r.Name); err != nil {
			return nil, err
		}
	}
	if shared {
		return sharedOpener(p, r)
	}
	s.mu.Lock()
	box := s.box
	s.mu.Unlock()
	if box == nil {
		return nil, ErrNoFiles
	}
	name := r.Name
	switch {
	case r.Stream == wire.StreamStdout && p.stdout == "", r.Stream == wire.StreamStderr && p.stderr == "":
		return nil, fmt.Errorf("the job's %s goes nowhere (its submit file names no file for it)", r.Stream)
	case r.Stream == wire.StreamStdout:
		name = stdoutFile
	case r.Stream == wire.StreamStderr:
		name = stderrFile
	}
	return func() (*os.File, error) { return box.Open(name) }, nil
}

// sharedOpener opens a file of a job that runs in its own directory: its
// standard files where it writes them, another name inside the directory
// (through an os.Root, so that links do not lead out).
func sharedOpener(p *plan, r wire.FileRange) (func() (*os.File, error), error) {
	path := p.stdout
	if r.Stream == wire.StreamStderr {
		path = p.stderr
	}
	if r.Stream != "" && path == "" {
		return nil, fmt.Errorf("the job's %s goes nowhere (its submit file names no file for it)", r.Stream)
	}
	return func() (*os.File, error) {
		if r.Stream != "" {
			return openRegular(os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0))
		}
		root, err := os.OpenRoot(p.dir)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		f, err := root.OpenFile(filepath.FromSlash(r.Name), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != nil && strings.Contains(err.Error(), "escapes") {
			err = &sandbox.EscapeError{Name: r.Name, Reason: "leads outside the job's directory"}
		}
		return openRegular(f, err)
	}, nil
}

// openRegular refuses what is not a regular file (a FIFO, a device).
func openRegular(f *os.File, err error) (*os.File, error) {
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &sandbox.EscapeError{Name: f.Name(), Reason: fmt.Sprintf("is not a regular file (%s)", fi.Mode().Type())}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readRange reads at most limit bytes of f from offset; -1, or an offset
// past the end (the file shrank), reads its last limit bytes.
func readRange(f *os.File, offset int64, limit int) (wire.FileChunk, error) {
	fi, err := f.Stat()
	if err != nil {
		return wire.FileChunk{}, err
	}
	size := fi.Size()
	if offset < 0 || offset > size {
		offset = size - int64(limit)
	}
	offset = min(max(offset, 0), size)
	buf := make([]byte, min(int64(limit), size-offset))
	n, err := f.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return wire.FileChunk{}, err
	}
	return wire.FileChunk{Offset: offset, Data: buf[:n], Size: size}, nil
}
