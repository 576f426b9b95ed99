package transfer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// Checkpoints of self-checkpointing jobs (HTCondor's manual,
// "Self-Checkpointing Applications") are kept by the schedd, as
// HTCondor's are in its SPOOL: Dir/<cluster>.<proc>/<n>/<file>. The
// startd stores the files of checkpoint n, then reports the checkpoint,
// which the schedd commits in the job ad (CheckpointNumber and the file
// list, attr.CheckpointFiles); the next run of the job, wherever it is,
// gets the committed checkpoint's files with its inputs. Files are the
// schedd's own (the owner cannot reach them), synced before they are
// acknowledged.

// checkpointNumber reads the checkpoint query parameter.
func checkpointNumber(r *wire.Request) (int64, error) {
	n, err := strconv.ParseInt(r.HTTP.URL.Query().Get("checkpoint"), 10, 64)
	if err != nil || n < 1 {
		return 0, wire.BadRequest("no checkpoint number (query checkpoint=N, N >= 1)")
	}
	return n, nil
}

// CheckName checks a checkpoint file's name: a file of the sandbox.
func CheckName(name string) error {
	if name == "" || filepath.IsAbs(name) || strings.ContainsRune(name, 0) {
		return wire.BadRequest("checkpoint file %q: not a name in the sandbox", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." || part == "" || part == "." {
			return wire.BadRequest("checkpoint file %q: not a name in the sandbox", name)
		}
	}
	return nil
}

// CheckpointDir is where a job's checkpoints are kept under dir.
func CheckpointDir(dir string, id queue.JobID) string {
	return filepath.Join(dir, id.String())
}

// Checkpoint serves (GET) a file of a job's committed checkpoint to the
// startd that runs it, or stores (PUT) a file of its next checkpoint.
func (f *Files) Checkpoint(w http.ResponseWriter, r *wire.Request) error {
	v, file, err := f.job(r)
	if err != nil {
		return err
	}
	n, err := checkpointNumber(r)
	if err != nil {
		return err
	}
	if err := CheckName(file); err != nil {
		return err
	}
	path := filepath.Join(CheckpointDir(f.Checkpoints, v.ID), strconv.FormatInt(n, 10), filepath.FromSlash(file))
	if r.HTTP.Method == http.MethodGet {
		if n != v.Int(attr.CheckpointNumber, 0) || !slices.Contains(CheckpointFiles(&v), file) {
			return wire.NotFound("job %s has no file %q in checkpoint %d", v.ID, file, n)
		}
		return serveCheckpoint(w, path)
	}
	if n <= v.Int(attr.CheckpointNumber, 0) {
		return wire.Conflict("job %s: checkpoint %d is committed already", v.ID, n)
	}
	if err := f.SendOutputs(v.ID, r.HTTP.Header.Get(wire.HeaderClaim)); err != nil {
		return err
	}
	if err := storeCheckpoint(path, r); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// CheckpointFiles lists the files of a job's committed checkpoint.
func CheckpointFiles(v *queue.View) []string {
	s := v.String(attr.CheckpointFiles)
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// serveCheckpoint sends a stored checkpoint file with its checksum.
func serveCheckpoint(w http.ResponseWriter, path string) error {
	in, err := os.Open(path)
	if err != nil {
		return wire.NotFound("checkpoint file: %v", err)
	}
	defer in.Close()
	h := sha256.New()
	size, err := io.Copy(h, in)
	if err == nil {
		_, err = in.Seek(0, io.SeekStart)
	}
	if err != nil {
		return err
	}
	w.Header().Set(wire.HeaderSHA256, hex.EncodeToString(h.Sum(nil)))
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	w.WriteHeader(http.StatusOK)
	_, err = io.Copy(w, in)
	return err
}

// storeCheckpoint writes a checkpoint file: beside its place, checked,
// synced, renamed, its directory synced.
func storeCheckpoint(path string, r *wire.Request) error {
	want := strings.ToLower(r.HTTP.Header.Get(wire.HeaderSHA256))
	if len(want) != 64 {
		return wire.BadRequest("checkpoint file: the %s header must hold the file's SHA-256 in hex", wire.HeaderSHA256)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".kite-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), r.HTTP.Body)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return err
	case err != nil:
		return wire.BadRequest("checkpoint file: %v", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return wire.BadRequest("checkpoint file: checksum %s, but the header says %s", got, want)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes a directory's entries durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// PruneCheckpoints removes a job's checkpoints other than keep (0: all,
// and the job's directory).
func PruneCheckpoints(dir string, id queue.JobID, keep int64) error {
	jobDir := CheckpointDir(dir, id)
	if keep == 0 {
		return os.RemoveAll(jobDir)
	}
	entries, err := os.ReadDir(jobDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if e.Name() != strconv.FormatInt(keep, 10) {
			if err := os.RemoveAll(filepath.Join(jobDir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
