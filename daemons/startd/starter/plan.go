package starter

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/sandbox"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/xferplugin"
)

// Names of the files the starter itself puts in a sandbox.
const (
	jobAdFile     = ".job.ad"
	machineAdFile = ".machine.ad"
	stdoutFile    = "_condor_stdout"
	stderrFile    = "_condor_stderr"
	nullFile      = "/dev/null"
)

// plan is a job's files, read from its ad and checked before anything
// runs: where each input comes from and goes, and what goes back.
type plan struct {
	// shared is set for a job on a shared file system (shared.go): it
	// runs in dir, its paths are absolute and nothing is sent.
	shared bool
	dir    string
	exe    string  // the executable's path; relative: in the sandbox
	inputs []input // files to fetch, the executable first when it is sent
	stdin  string  // the sandbox file that is the job's input; "" none
	// stdout is the name the job's output goes back as, "" for none: Out
	// as the job ad gives it, which the schedd writes where it says,
	// absolute or against Iwd (the sandbox file is _condor_stdout).
	stdout  string
	stderr  string // likewise for its error output
	outputs []string
	// explicit is set when the job names its outputs (TransferOutput);
	// otherwise new and changed top-level files go back.
	explicit bool
	java     bool // a java universe job: the machine's JVM runs the class
	// jobPlugins are the plugins the job brings (TransferPlugins), by
	// their sandbox names; urls moves its URLs, once the inputs are in.
	jobPlugins []xferplugin.JobPlugin
	urls       *xferplugin.Set
}

// input is one file to fetch: its name in the job ad and in the sandbox.
type input struct {
	remote, local string
	exec          bool
	url           bool // remote is a URL, fetched through a plugin
	ckpt          int  // > 0: a file of this checkpoint, kept by the schedd
}

// planError is a problem with the job's files; input says which way.
type planError struct {
	input bool
	err   error
}

// Error describes the problem with the file.
func (e *planError) Error() string { return e.err.Error() }

// Unwrap returns the problem.
func (e *planError) Unwrap() error { return e.err }

var errNoExecutable = errors.New("the job has no executable (Cmd)")

// planFiles reads and checks the job's files.
func planFiles(ad *classad.Ad) (*plan, error) {
	p := &plan{}
	if err := p.executable(ad); err != nil {
		return nil, err
	}
	for _, name := range splitList(classad.EvalStringOr(ad, attr.TransferInput, "")) {
		if err := p.addInput(name); err != nil {
			return nil, &planError{true, err}
		}
	}
	if err := p.addJobPlugins(ad); err != nil {
		return nil, &planError{true, err}
	}
	p.addCheckpoint(ad)
	if err := p.standardFiles(ad); err != nil {
		return nil, err
	}
	if list, ok := ad.Lookup(attr.TransferOutput); ok && list != nil {
		p.explicit = true
		for _, name := range splitList(classad.EvalStringOr(ad, attr.TransferOutput, "")) {
			if err := sandbox.CheckName(name); err != nil {
				return nil, &planError{false, err}
			}
			p.outputs = append(p.outputs, name)
		}
	}
	return p, nil
}

// executable reads Cmd: sent with the job unless TransferExecutable is
// false, when it must be an absolute path on this machine. A java
// universe job's executable is the machine's JVM.
func (p *plan) executable(ad *classad.Ad) error {
	if p.java = isJava(ad); p.java {
		return nil // its class comes with the inputs
	}
	cmd := classad.EvalStringOr(ad, attr.Cmd, "")
	if cmd == "" && isContainerJob(ad) {
		return nil // the image's own command runs
	}
	if cmd == "" {
		return errNoExecutable
	}
	if !classad.EvalBoolOr(ad, "TransferExecutable", true) {
		if !path.IsAbs(cmd) {
			return fmt.Errorf("executable %q is not sent with the job and is not an absolute path", cmd)
		}
		p.exe = cmd
		return nil
	}
	local := path.Base(cmd)
	if err := sandbox.CheckName(local); err != nil {
		return &planError{true, err}
	}
	p.exe = local
	p.inputs = append(p.inputs, input{remote: cmd, local: local, exec: true})
	return nil
}

// addInput adds a TransferInput entry.
func (p *plan) addInput(name string) error {
	isURL := strings.Contains(name, "://")
	local := path.Base(name)
	switch {
	case isURL:
		// HTCondor names a URL's file by the last part of its path.
		local = urlFileName(name)
		if err := sandbox.CheckName(local); err != nil || local == "." {
			return &sandbox.EscapeError{Name: name, Reason: "the URL's path does not end in a file name"}
		}
	case strings.HasSuffix(name, "/"):
		return &sandbox.EscapeError{Name: name, Reason: "directories are not sent as input; name their files"}
	case path.IsAbs(name):
		// An absolute input lands under its base name, as in HTCondor;
		// the schedd reads it as the job's owner.
		if err := sandbox.CheckName(local); err != nil {
			return err
		}
	default:
		if err := sandbox.CheckName(name); err != nil {
			return err
		}
	}
	for _, in := range p.inputs {
		if in.remote == name {
			return nil // named twice: fetched once
		}
		if in.local == local {
			return &sandbox.EscapeError{Name: name, Reason: fmt.Sprintf("lands on %s, like %q", local, in.remote)}
		}
	}
	p.inputs = append(p.inputs, input{remote: name, local: local, url: isURL})
	return nil
}

// addJobPlugins adds the plugins the job brings to its inputs, as
// executables.
func (p *plan) addJobPlugins(ad *classad.Ad) error {
	plugins, err := xferplugin.ParseJobPlugins(classad.EvalStringOr(ad, attr.TransferPlugins, ""))
	if err != nil {
		return err
	}
	for _, jp := range plugins {
		if err := p.addInput(jp.Path); err != nil {
			return err
		}
		in := &p.inputs[len(p.inputs)-1]
		in.exec = true
		p.jobPlugins = append(p.jobPlugins, xferplugin.JobPlugin{Methods: jp.Methods, Path: in.local})
	}
	return nil
}

// urlFileName is the file a URL lands on: the last part of its path,
// without query or fragment.
func urlFileName(url string) string {
	rest := url[strings.Index(url, "://")+3:]
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 && !strings.HasSuffix(rest, "/") {
		return path.Base(rest[i:])
	}
	return ""
}

// standardFiles reads In, Out and Err.
func (p *plan) standardFiles(ad *classad.Ad) error {
	if in := classad.EvalStringOr(ad, attr.In, ""); in != "" && in != nullFile {
		if err := sandbox.CheckName(in); err != nil {
			return &planError{true, err}
		}
		p.stdin = path.Base(in)
		if classad.EvalBoolOr(ad, "TransferIn", true) {
			if err := p.addInput(in); err != nil {
				return &planError{true, err}
			}
		}
	}
	for _, std := range []struct {
		name string
		dst  *string
	}{{attr.Out, &p.stdout}, {attr.Err, &p.stderr}} {
		if v := classad.EvalStringOr(ad, std.name, ""); v != "" && v != nullFile {
			if strings.ContainsRune(v, 0) {
				return &planError{false, &sandbox.EscapeError{Name: v, Reason: "a file name with a NUL byte"}}
			}
			*std.dst = v
		}
	}
	return nil
}

// sharedStd reports whether the job's output and error output go to one
// file (output and error name the same path): the job writes both into
// one sandbox file, sent once, as HTCondor's starter shares them.
func (p *plan) sharedStd() bool { return p.stdout != "" && p.stdout == p.stderr }

// splitList splits HTCondor's file lists, separated by commas or white
// space.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}
