package xferplugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// File is one file of the sandbox and its URL: where it comes from on
// input, where it goes on output.
type File struct {
	URL  string
	Name string // the file's name in the sandbox
}

// direction is which way files move.
type direction bool

const (
	download direction = false // URL to sandbox
	upload   direction = true  // sandbox to URL
)

// Sandbox is where a job's plugins run and what they may touch: the
// caller's methods act as the job's user.
type Sandbox struct {
	Dir string // the sandbox's path; plugins run there
	Env []string
	// Prepare sets up a plugin's process before it starts: its account,
	// process group, death signal.
	Prepare func(*exec.Cmd)
	// Create creates (or truncates) a file in the sandbox for writing.
	Create func(name string) (*os.File, error)
	// Read opens a file of the sandbox for reading.
	Read func(name string) (*os.File, error)
	// Remove removes a file of the sandbox.
	Remove func(name string) error
	// Open opens a local file a file:// URL names for reading, and
	// WriteLocal creates (or truncates) one for writing, as the job's
	// user.
	Open       func(path string) (*os.File, error)
	WriteLocal func(path string) (*os.File, error)
}

// Error is a transfer that failed. Code is the plugin's exit status
// (HTCondor puts it in HoldReasonSubCode), 0 when none ran or it
// exited 0 but reported the failure.
type Error struct {
	URL  string
	Code int
	Msg  string
}

// Error says which URL failed and why.
func (e *Error) Error() string { return fmt.Sprintf("URL %s: %s", e.URL, e.Msg) }

// Fetch brings each file in from its URL, each plugin run once for all
// its files (once per file for a protocol 1 plugin). It stops at the
// first failure.
func (s *Set) Fetch(ctx context.Context, files []File, box Sandbox) error {
	return s.transfer(ctx, files, box, download)
}

// Send sends each file out to its URL, as Fetch brings them in (plugins
// run with -upload).
func (s *Set) Send(ctx context.Context, files []File, box Sandbox) error {
	return s.transfer(ctx, files, box, upload)
}

// transfer moves files the way dir says.
func (s *Set) transfer(ctx context.Context, files []File, box Sandbox, dir direction) error {
	var order []*Plugin
	byPlugin := map[*Plugin][]File{}
	for _, f := range files {
		p, err := s.For(f.URL)
		if err != nil {
			return &Error{URL: f.URL, Msg: err.Error()}
		}
		if _, ok := byPlugin[p]; !ok {
			order = append(order, p)
		}
		byPlugin[p] = append(byPlugin[p], f)
	}
	for _, p := range order {
		var err error
		switch {
		case p.Path == Builtin:
			err = builtin(ctx, byPlugin[p], box, dir)
		case p.Multi:
			err = p.runMulti(ctx, byPlugin[p], box, dir)
		default:
			err = p.runSingle(ctx, byPlugin[p], box, dir)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// The files a multi-file plugin reads its work from and writes its
// results to, in the sandbox; they are removed after the run.
const (
	inFile  = ".kite_plugin.in"
	outFile = ".kite_plugin.out"
	// outReserve is how much the results file is pre-allocated, so that a
	// plugin on a full disk can still say what happened.
	outReserve = 64 << 10
	// maxResults bounds what is read of the results file.
	maxResults = 16 << 20
)

// runMulti runs a protocol 2 or 4 plugin once for files.
func (p *Plugin) runMulti(ctx context.Context, files []File, box Sandbox, dir direction) (err error) {
	var in bytes.Buffer
	for _, f := range files {
		ad := classad.NewAd()
		ad.Set("Url", ast.Str(f.URL))
		ad.Set("LocalFileName", ast.Str(filepath.Join(box.Dir, f.Name)))
		in.WriteString(classad.Unparse(ad))
		in.WriteByte('\n')
	}
	defer func() {
		for _, name := range []string{inFile, outFile} {
			if rerr := box.Remove(name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
				err = fmt.Errorf("plugin %s: %w", p.Path, rerr)
			}
		}
	}()
	if err := writeFile(box, inFile, in.Bytes()); err != nil {
		return fmt.Errorf("plugin %s: its work list: %w", p.Path, err)
	}
	if err := writeFile(box, outFile, bytes.Repeat([]byte{' '}, outReserve)); err != nil {
		return fmt.Errorf("plugin %s: its results file: %w", p.Path, err)
	}
	args := []string{"-infile", filepath.Join(box.Dir, inFile), "-outfile", filepath.Join(box.Dir, outFile)}
	if dir == upload {
		args = append(args, "-upload")
	}
	code, stderr, runErr := p.run(ctx, box, args...)
	results, readErr := readResults(filepath.Join(box.Dir, outFile))
	if failed := firstFailure(files, results); failed != nil {
		failed.Code = code
		return failed
	}
	switch {
	case runErr != nil:
		return &Error{URL: files[0].URL, Code: code, Msg: fmt.Sprintf("plugin %s: %v%s", p.Path, runErr, stderrText(stderr))}
	case readErr != nil:
		return &Error{URL: files[0].URL, Msg: fmt.Sprintf("plugin %s: its results: %v", p.Path, readErr)}
	}
	for _, f := range files {
		if _, ok := results[f.URL]; !ok {
			return &Error{URL: f.URL, Msg: fmt.Sprintf("plugin %s reported nothing for it", p.Path)}
		}
	}
	return nil
}

// runSingle runs a protocol 1 plugin once per file, with the source then
// the destination.
func (p *Plugin) runSingle(ctx context.Context, files []File, box Sandbox, dir direction) error {
	for _, f := range files {
		from, to := f.URL, filepath.Join(box.Dir, f.Name)
		if dir == upload {
			from, to = to, from
		}
		code, stderr, err := p.run(ctx, box, from, to)
		if err != nil {
			return &Error{URL: f.URL, Code: code, Msg: fmt.Sprintf("plugin %s: %v%s", p.Path, err, stderrText(stderr))}
		}
	}
	return nil
}

// run runs the plugin in the sandbox with args; it returns the exit
// status (0 when it did not start) and the start of its error output.
func (p *Plugin) run(ctx context.Context, box Sandbox, args ...string) (int, []byte, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, p.Path, args...)
	cmd.Dir, cmd.Env, cmd.Stderr = box.Dir, box.Env, &limited{&stderr, 4096}
	if box.Prepare != nil {
		box.Prepare(cmd)
	}
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stderr.Bytes(), err
	}
	return 0, stderr.Bytes(), err
}

// writeFile writes data to a new sandbox file.
func writeFile(box Sandbox, name string, data []byte) error {
	f, err := box.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// result is what a plugin said of one URL.
type result struct {
	ok  bool
	msg string
}

// readResults reads a plugin's results file: one new-format ad per file,
// by TransferUrl.
func readResults(path string) (map[string]result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxResults))
	if err != nil {
		return nil, err
	}
	out := map[string]result{}
	for i, text := range classad.SplitRecords(string(data)) {
		ad, err := classad.ParseNew(text)
		if err != nil {
			return nil, fmt.Errorf("result %d: %w", i+1, err)
		}
		url := classad.EvalStringOr(ad, "TransferUrl", "")
		if url == "" {
			return nil, fmt.Errorf("result %d has no TransferUrl", i+1)
		}
		out[url] = result{classad.EvalBoolOr(ad, "TransferSuccess", false), classad.EvalStringOr(ad, "TransferError", "")}
	}
	return out, nil
}

// firstFailure is the first file whose result says it failed.
func firstFailure(files []File, results map[string]result) *Error {
	for _, f := range files {
		r, ok := results[f.URL]
		if !ok || r.ok {
			continue
		}
		msg := r.msg
		if msg == "" {
			msg = "the plugin reported a failure without TransferError"
		}
		return &Error{URL: f.URL, Msg: msg}
	}
	return nil
}
