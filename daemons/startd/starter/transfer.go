package starter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
)

// fileState is what an input looked like when it arrived, to tell
// whether the job changed it.
type fileState struct {
	size  int64
	mtime time.Time
}

// writeAds writes the job's ad and the machine's (without its claim id)
// into the sandbox, as HTCondor does for jobs that read them.
func (s *Starter) writeAds() error {
	bp := adBuffers.Get().(*[]byte)
	defer adBuffers.Put(bp)
	buf := classad.AppendOld((*bp)[:0], s.job.Ad)
	err := s.box.WriteFile(jobAdFile, buf, 0o644)
	if err == nil {
		buf = appendMachineAd(buf[:0], s.cfg.MachineAd, s.cfg.MachineAdText)
		err = s.box.WriteFile(machineAdFile, buf, 0o644)
	}
	if cap(buf) <= 1<<20 { // a huge ad's buffer is left to the garbage collector
		*bp = buf
	}
	return err
}

// adBuffers hold the text of ads being written, to save growing a new
// buffer for each job.
var adBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// fetchInputs brings the job's input files into the sandbox, each checked
// against the checksum the schedd announced.
func (s *Starter) fetchInputs(p *plan) (map[string]fileState, error) {
	got := map[string]fileState{}
	for _, in := range p.inputs {
		if in.url {
			continue // after the files: perhaps through the job's own plugins
		}
		perm := fs.FileMode(0o644)
		if in.exec {
			perm = 0o755
		}
		if err := s.fetch(in, perm); err != nil {
			return nil, err
		}
	}
	if err := s.fetchURLs(p); err != nil {
		return nil, err
	}
	for _, in := range p.inputs {
		if fi, err := os.Lstat(s.box.Path + "/" + in.local); err == nil {
			got[in.local] = fileState{fi.Size(), fi.ModTime()}
			if !in.url {
				s.xfer.add(false, cedar, fi.Size()) // the plugins' are counted as they move them
			}
		}
	}
	return got, nil
}

// fetch brings one input file.
func (s *Starter) fetch(in input, perm fs.FileMode) error {
	f, err := s.box.CreateFile(in.local, perm)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	fetch := s.cfg.Transfer.Fetch
	if in.ckpt > 0 && s.cfg.Checkpoints != nil {
		fetch = func(ctx context.Context, name string, w io.Writer) (string, error) {
			return s.cfg.Checkpoints.FetchCheckpoint(ctx, in.ckpt, name, w)
		}
	}
	announced, err := fetch(s.ctx, in.remote, io.MultiWriter(f, h))
	if err != nil {
		return fmt.Errorf("file %q: %w", in.remote, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if announced == "" {
		return fmt.Errorf("file %q: the schedd sent no checksum", in.remote)
	}
	if !strings.EqualFold(sum, announced) {
		return fmt.Errorf("file %q: its SHA-256 is %s, the schedd announced %s", in.remote, sum, announced)
	}
	return f.Close()
}

// outputsOf lists the files to send back, each with the sandbox file
// it comes from: the named outputs (directories by their files), or the
// new and changed top-level files; then the output and error output.
func (s *Starter) outputsOf(p *plan, inputs map[string]fileState) ([][2]string, error) {
	var out [][2]string
	names := p.outputs
	if !p.explicit {
		var err error
		if names, err = s.newFiles(inputs); err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		files, err := s.box.Files(n)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			out = append(out, [2]string{f, f})
		}
	}
	if p.stdout != "" {
		out = append(out, [2]string{p.stdout, stdoutFile})
	}
	if p.stderr != "" && !p.sharedStd() {
		out = append(out, [2]string{p.stderr, stderrFile})
	}
	return out, nil
}

// newFiles lists the top-level files of the sandbox the job made or
// changed, leaving out the starter's own. A sandbox that cannot be listed
// is an error: taken for an empty one, the job would complete with no
// outputs and no word of why.
func (s *Starter) newFiles(inputs map[string]fileState) ([]string, error) {
	entries, err := s.box.TopLevel()
	if err != nil {
		return nil, fmt.Errorf("listing the sandbox for new files: %w", err)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if n == jobAdFile || n == machineAdFile || n == stdoutFile || n == stderrFile || e.IsDir() {
			continue
		}
		if was, ok := inputs[n]; ok {
			if fi, err := e.Info(); err == nil && fi.Size() == was.size && fi.ModTime().Equal(was.mtime) {
				continue
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// sendOutputs sends the job's output files with their checksums.
func (s *Starter) sendOutputs(p *plan, inputs map[string]fileState) error {
	if p.shared {
		return nil // the job wrote them in place
	}
	files, err := s.outputsOf(p, inputs)
	if err != nil {
		return err
	}
	if files, err = s.sendToURLs(p, files); err != nil {
		return err
	}
	for _, f := range files {
		if err := s.send(f[0], f[1]); err != nil {
			return err
		}
	}
	return nil
}

// send sends sandbox file local as remote.
func (s *Starter) send(remote, local string) error {
	return s.sendWith(remote, local, func(r io.Reader, size int64, sum string) error {
		err := s.cfg.Transfer.Send(s.ctx, remote, r, size, sum)
		if err == nil {
			s.xfer.add(true, cedar, size)
		}
		return err
	})
}

// sendWith sends sandbox file local, named remote in errors, through
// send, with its size and SHA-256 (hex).
func (s *Starter) sendWith(remote, local string, send func(r io.Reader, size int64, sum string) error) error {
	f, err := s.box.Open(local)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err == nil {
		err = send(io.LimitReader(f, size), size, hex.EncodeToString(h.Sum(nil)))
	}
	if err != nil {
		return fmt.Errorf("file %q: %w", remote, err)
	}
	return nil
}
