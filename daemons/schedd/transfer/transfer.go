// Package transfer serves a job's files to the startd that runs it and
// takes back its outputs: a startd fetches a job's input files and sends back its
// outputs, proving with the claim id that the job runs there. Only files
// the job ad names are served or accepted:
//
//	input:  the executable (Cmd), standard input (In), transfer_input_files
//	output: standard output and error (Out, Err), transfer_output_files
//	        (files, and the files below a directory), or, when the job
//	        names none, any plain file name (HTCondor returns the new
//	        files of the sandbox's top directory)
//
// Relative names resolve against the job's initial directory (Iwd).
// Outputs land on the submit side as HTCondor's shadow writes them
// (names.go): output = /abs/dir/out at that path, a listed file under its
// base name, a remapped one (TransferOutputRemaps, package remap) at its
// target, made directories included. Remap targets count as named by the
// job; ".." and absolute names the job did not name are refused.
//
// Every file is opened as the job's owner (package runas): it reaches only
// what the owner could reach, and the kernel checks at the open itself.
package transfer

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/runas"
	"github.com/kite-sched/kite/internal/wire"
	"github.com/kite-sched/kite/internal/xferplugin"
)

// Files serves and takes job files.
type Files struct {
	// Job returns the job an instance of which claimID runs (a wire
	// error when none does).
	Job func(id queue.JobID, claimID string) (queue.View, error)
	// SendOutputs lets one instance of a job send its outputs (a wire
	// error when another instance sends them).
	SendOutputs func(id queue.JobID, claimID string) error
	// Accounts opens the files as the jobs' owners.
	Accounts *runas.Map
	// Moved counts the bytes of a file moved in a direction (input or
	// output), and whether it moved whole (err nil).
	Moved func(direction string, n int64, err error)
	Log   *slog.Logger
	// Checkpoints is the directory self-checkpointing jobs' checkpoints
	// are kept in (checkpoint.go).
	Checkpoints string
	// Spool is the directory of spooled jobs' directories (spooled.go).
	Spool string
}

// asOwner runs fn as the job's account.
func (f *Files) asOwner(v *queue.View, fn func() error) error {
	return f.Accounts.Do(Account(v), fn)
}

// Account is the account a job's files are opened as: its OsUser, or its
// Owner for a job queued before the schedd set OsUser.
func Account(v *queue.View) string {
	return cmp.Or(v.String(attr.OsUser), v.String(attr.Owner))
}

// fileError answers a job file that could not be opened as its owner.
func fileError(v *queue.View, what string, err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return wire.Forbidden("%s of job %s: %v (as %s)", what, v.ID, err, Account(v))
	case errors.Is(err, fs.ErrNotExist):
		return wire.NotFound("%s of job %s: %v", what, v.ID, err)
	}
	return wire.Conflict("%s of job %s: %v", what, v.ID, err)
}

// job checks a transfer request and returns the job's view.
func (f *Files) job(r *wire.Request) (queue.View, string, error) {
	q := r.HTTP.URL.Query()
	id, err := queue.ParseJobID(q.Get("job"))
	if err != nil {
		return queue.View{}, "", wire.BadRequest("%v", err)
	}
	file := q.Get("file")
	if file == "" {
		return queue.View{}, "", wire.BadRequest("no file named (query file=NAME)")
	}
	v, err := f.Job(id, r.HTTP.Header.Get(wire.HeaderClaim))
	return v, file, err
}

// fileList splits a transfer list attribute (comma or space separated).
func fileList(v *queue.View, name string) []string {
	return strings.FieldsFunc(v.String(name), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// resolve makes a file name of the job absolute against its Iwd.
func resolve(v *queue.View, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(v.String(attr.Iwd), name)
}

// inputPath returns the file to serve for an input name, if the job names
// it: its executable, standard input, input files and own transfer
// plugins.
func inputPath(v *queue.View, file string) (string, bool) {
	named := append([]string{v.String(attr.Cmd), v.String(attr.In)}, fileList(v, attr.TransferInput)...)
	plugins, _ := xferplugin.ParseJobPlugins(v.String(attr.TransferPlugins))
	for _, p := range plugins {
		named = append(named, p.Path)
	}
	for _, n := range named {
		if n != "" && n != "/dev/null" && n == file {
			return resolve(v, n), true
		}
	}
	return "", false
}

// Input serves an input file of a job to the startd that runs it.
func (f *Files) Input(w http.ResponseWriter, r *wire.Request) error {
	v, file, err := f.job(r)
	if err != nil {
		return err
	}
	path, ok := inputPath(&v, file)
	if !ok {
		return wire.Forbidden("job %s does not name %q as an input file", v.ID, file)
	}
	// Not blocking: a FIFO named as an input must not hang the schedd.
	in, err := f.OpenFile(&v, path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return fileError(&v, "input file "+file, err)
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return wire.BadRequest("input file %s of job %s is not a regular file", file, v.ID)
	}
	h := sha256.New()
	if _, err := io.Copy(h, in); err != nil {
		return err
	}
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return err
	}
	w.Header().Set(wire.HeaderSHA256, hex.EncodeToString(h.Sum(nil)))
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", fmt.Sprint(fi.Size()))
	w.WriteHeader(http.StatusOK)
	n, err := io.Copy(w, in)
	f.Moved("input", n, err)
	if err != nil {
		f.Log.Info("input transfer cut", "job", v.ID.String(), "file", file, "err", err)
	}
	return nil
}

// Output takes an output file of a job from the startd that runs it: it
// is written beside its place and renamed there once its checksum holds.
func (f *Files) Output(w http.ResponseWriter, r *wire.Request) error {
	v, file, err := f.job(r)
	if err != nil {
		return err
	}
	to, err := outputPath(&v, file)
	if err != nil {
		return wire.Forbidden("%v", err)
	}
	if err := f.SendOutputs(v.ID, r.HTTP.Header.Get(wire.HeaderClaim)); err != nil {
		return err
	}
	path, what := to.path, "output file "+file
	if to.mkdir {
		what += " (remapped to " + path + ")"
	}
	want := strings.ToLower(r.HTTP.Header.Get(wire.HeaderSHA256))
	if len(want) != 64 {
		return wire.BadRequest("output file %s: the %s header must hold the file's SHA-256 in hex", file, wire.HeaderSHA256)
	}
	if to.mkdir {
		if err := f.MkdirAll(&v, filepath.Dir(path), 0o777); err != nil {
			return fileError(&v, what, err)
		}
	}
	tmp, tmpPath, err := f.CreateTemp(&v, path)
	if err != nil {
		return fileError(&v, what, err)
	}
	defer f.Remove(&v, tmpPath)
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), r.HTTP.Body)
	f.Moved("output", n, err)
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
	if err := f.Rename(&v, tmpPath, path); err != nil {
		return fileError(&v, what, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
