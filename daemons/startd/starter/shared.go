package starter

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// A job on a shared file system runs where it was submitted, as HTCondor
// runs it: no file is sent either way, the job's directory (Iwd) is its
// working directory, and its standard files are opened there. The sandbox
// still holds its ads and is its scratch directory.
//
// HTCondor decides by ShouldTransferFiles: NO, or IF_NEEDED on a machine
// of the job's FileSystemDomain. Kite also asks that the job run as its
// owner or as the startd's own user, since the job's directory is the
// submitter's (a job that runs as a slot user has its files sent), and
// that the job run as one instance only: replicas each keep their outputs
// apart until one wins, so a job that may replicate (KiteReplicas > 0)
// sends its files. Its standard files are opened as the account it runs
// as: a root startd reaches in the job's directory only what the owner
// may.

// sharedFS reports whether the job runs on the submitter's file system.
func (s *Starter) sharedFS() bool {
	ad := s.job.Ad
	if s.cfg.User != nil && !s.cfg.User.Owner || classad.EvalIntOr(ad, attr.KiteReplicas, 0) > 0 {
		return false
	}
	iwd := classad.EvalStringOr(ad, attr.Iwd, "")
	if !filepath.IsAbs(iwd) {
		return false
	}
	switch strings.ToUpper(classad.EvalStringOr(ad, attr.ShouldTransferFiles, "")) {
	case "NO":
		return true
	case "IF_NEEDED":
		domain := classad.EvalStringOr(ad, attr.FileSystemDomain, "")
		return domain != "" && s.cfg.MachineAd != nil &&
			strings.EqualFold(domain, classad.EvalStringOr(s.cfg.MachineAd, attr.FileSystemDomain, ""))
	}
	return false
}

// planShared is the plan of a job on a shared file system: paths are the
// job's own, relative ones taken from its directory.
func planShared(ad *classad.Ad) (*plan, error) {
	iwd := classad.EvalStringOr(ad, attr.Iwd, "")
	at := func(name string) string {
		if name == "" || name == nullFile {
			return ""
		}
		if filepath.IsAbs(name) {
			return filepath.Clean(name)
		}
		return filepath.Join(iwd, name)
	}
	p := &plan{shared: true, dir: iwd, exe: at(classad.EvalStringOr(ad, attr.Cmd, "")), java: isJava(ad)}
	if p.exe == "" {
		return nil, &planError{true, errNoExecutable}
	}
	p.stdin = at(classad.EvalStringOr(ad, attr.In, ""))
	p.stdout = at(classad.EvalStringOr(ad, attr.Out, ""))
	p.stderr = at(classad.EvalStringOr(ad, attr.Err, ""))
	return p, nil
}

// openShared opens a shared job's standard files at their paths, as the
// account the job runs as.
func (s *Starter) openShared(p *plan) (files [3]*os.File, err error) {
	if s.cfg.User == nil {
		return openShared(p)
	}
	err = s.cfg.User.account().Do(func() (err error) {
		files, err = openShared(p)
		return err
	})
	return files, err
}

// openShared opens a shared job's standard files at their paths: its
// input, or nothing; its output and error output, created or emptied, or
// discarded. Output and error output to one path share one file.
func openShared(p *plan) ([3]*os.File, error) {
	var files [3]*os.File
	var err error
	open := func(name string, flag int) (*os.File, error) {
		if name == "" {
			return sharedNull()
		}
		// Not blocking: a FIFO must not hang the starter.
		return os.OpenFile(name, flag|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o644)
	}
	if files[0], err = open(p.stdin, os.O_RDONLY); err == nil {
		files[1], err = open(p.stdout, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	}
	if err == nil {
		if p.stderr != "" && p.stderr == p.stdout {
			files[2], err = dup(files[1])
		} else {
			files[2], err = open(p.stderr, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
		}
	}
	if err != nil {
		closeAll(files[:])
	}
	return files, err
}

// dup opens a second descriptor of f, sharing its offset.
func dup(f *os.File) (*os.File, error) {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, &os.PathError{Op: "dup", Path: f.Name(), Err: err}
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}
