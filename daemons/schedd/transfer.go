package schedd

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// File transfer: a startd fetches a job's input files and sends back its
// outputs, proving with the claim id that the job runs there. Only files
// the job ad names are served or accepted:
//
//	input:  the executable (Cmd), standard input (In), transfer_input_files
//	output: standard output and error (Out, Err), transfer_output_files,
//	        or, when the job names none, any plain file name (HTCondor
//	        returns the new files of the sandbox's top directory)
//
// Relative names resolve against the job's initial directory (Iwd). An
// output name with a directory part must be one the job named; ".." and
// absolute names the job did not name are refused.

// asOwner runs fn as the job's account (see runas): every file the
// schedd reads or writes for a job is opened so, and reaches only what
// the owner could reach.
func (s *Server) asOwner(v *queue.View, fn func() error) error {
	return s.ids.Do(jobAccount(v), fn)
}

// jobAccount is the account a job's files are opened as: its OsUser, or
// its Owner for a job queued before the schedd set OsUser.
func jobAccount(v *queue.View) string {
	return cmp.Or(stringAttr(v, attr.OsUser), stringAttr(v, attr.Owner))
}

// fileError answers a job file that could not be opened as its owner.
func fileError(v *queue.View, what string, err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return wire.Forbidden("%s of job %s: %v (as %s)", what, v.ID, err, jobAccount(v))
	case errors.Is(err, fs.ErrNotExist):
		return wire.NotFound("%s of job %s: %v", what, v.ID, err)
	}
	return wire.Conflict("%s of job %s: %v", what, v.ID, err)
}

// transferJob checks a transfer request and returns the job's view.
func (s *Server) transferJob(r *wire.Request) (queue.View, string, error) {
	q := r.HTTP.URL.Query()
	id, err := queue.ParseJobID(q.Get("job"))
	if err != nil {
		return queue.View{}, "", wire.BadRequest("%v", err)
	}
	file := q.Get("file")
	if file == "" {
		return queue.View{}, "", wire.BadRequest("no file named (query file=NAME)")
	}
	if s.jobs.instanceClaim(id, r.HTTP.Header.Get(wire.HeaderClaim)) == nil {
		return queue.View{}, "", wire.Forbidden("job %s does not run under that claim here", id)
	}
	v, found := s.view(id)
	if !found {
		return queue.View{}, "", wire.NotFound("no job %s", id)
	}
	return v, file, nil
}

// fileList splits a transfer list attribute (comma or space separated).
func fileList(v *queue.View, name string) []string {
	return strings.FieldsFunc(stringAttr(v, name), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// resolve makes a file name of the job absolute against its Iwd.
func resolve(v *queue.View, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(stringAttr(v, attr.Iwd), name)
}

// inputPath returns the file to serve for an input name, if the job names
// it.
func inputPath(v *queue.View, file string) (string, bool) {
	named := append([]string{stringAttr(v, attr.Cmd), stringAttr(v, attr.In)}, fileList(v, attr.TransferInput)...)
	for _, n := range named {
		if n != "" && n != "/dev/null" && n == file {
			return resolve(v, n), true
		}
	}
	return "", false
}

func (s *Server) handleInput(w http.ResponseWriter, r *wire.Request) error {
	v, file, err := s.transferJob(r)
	if err != nil {
		return err
	}
	path, ok := inputPath(&v, file)
	if !ok {
		return wire.Forbidden("job %s does not name %q as an input file", v.ID, file)
	}
	var f *os.File
	err = s.asOwner(&v, func() (err error) {
		// Not blocking: a FIFO named as an input must not hang the schedd.
		f, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		return err
	})
	if err != nil {
		return fileError(&v, "input file "+file, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return wire.BadRequest("input file %s of job %s is not a regular file", file, v.ID)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	w.Header().Set(wire.HeaderSHA256, hex.EncodeToString(h.Sum(nil)))
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", fmt.Sprint(fi.Size()))
	w.WriteHeader(http.StatusOK)
	n, err := io.Copy(w, f)
	s.extra.transferred("input", n, err)
	if err != nil {
		s.log.Info("input transfer cut", "job", v.ID.String(), "file", file, "err", err)
	}
	return nil
}

// outputPath returns where an output file goes, if the job may send it.
func outputPath(v *queue.View, file string) (string, error) {
	named := append([]string{stringAttr(v, attr.Out), stringAttr(v, attr.Err)}, fileList(v, attr.TransferOutput)...)
	for _, n := range named {
		if n != "" && n != "/dev/null" && n == file {
			return resolve(v, n), nil
		}
	}
	if _, listed := v.Lookup(attr.TransferOutput); listed {
		return "", fmt.Errorf("job %s does not name %q as an output file", v.ID, file)
	}
	if strings.ContainsAny(file, `/\`) || file == "." || file == ".." || strings.HasPrefix(file, ".") && strings.Trim(file, ".") == "" {
		return "", fmt.Errorf("output file %q of job %s would leave the job's directory", file, v.ID)
	}
	return resolve(v, file), nil
}

func (s *Server) handleOutput(w http.ResponseWriter, r *wire.Request) error {
	v, file, err := s.transferJob(r)
	if err != nil {
		return err
	}
	path, err := outputPath(&v, file)
	if err != nil {
		return wire.Forbidden("%v", err)
	}
	if err := s.jobs.claimOutputs(v.ID, r.HTTP.Header.Get(wire.HeaderClaim)); err != nil {
		return err
	}
	want := strings.ToLower(r.HTTP.Header.Get(wire.HeaderSHA256))
	if len(want) != 64 {
		return wire.BadRequest("output file %s: the %s header must hold the file's SHA-256 in hex", file, wire.HeaderSHA256)
	}
	var tmp *os.File
	err = s.asOwner(&v, func() (err error) {
		tmp, err = os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".kite-*")
		return err
	})
	if err != nil {
		return fileError(&v, "output file "+file, err)
	}
	defer s.asOwner(&v, func() error { return os.Remove(tmp.Name()) })
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), r.HTTP.Body)
	s.extra.transferred("output", n, err)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return err
	}
	if err != nil {
		return wire.BadRequest("output file %s: %v", file, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return wire.BadRequest("output file %s of job %s: checksum %s, but the header says %s", file, v.ID, got, want)
	}
	if err := s.asOwner(&v, func() error { return os.Rename(tmp.Name(), path) }); err != nil {
		return fileError(&v, "output file "+file, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
