package starter

import (
	"errors"
	"path"
	"path/filepath"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/envargs"
	"github.com/kite-sched/kite/internal/attr"
)

// JVM is the machine's Java virtual machine, which runs java universe
// jobs (HTCondor's JAVA and JAVA_EXTRA_ARGUMENTS).
type JVM struct {
	Path string
	Args []string // before the job's own
}

var errNoJava = errors.New("this machine runs no java universe jobs: it has no JVM (startd.java)")

// isJava reports whether a job is in the java universe: its executable is
// a class file, and the class to run is its first argument.
func isJava(ad *classad.Ad) bool {
	return classad.EvalIntOr(ad, attr.JobUniverse, 0) == attr.UniverseJava
}

// javaCommand is the command line that runs a java universe job: the JVM,
// its own arguments, the class path (the job's directory and its jar
// files), the job's JavaVMArgs, then the job's arguments, the class
// first.
func (s *Starter) javaCommand(dir string, args []string) (string, []string, error) {
	if s.cfg.JVM == nil {
		return "", nil, errNoJava
	}
	ad := s.job.Ad
	cp := []string{dir}
	for _, jar := range splitList(classad.EvalStringOr(ad, "JarFiles", "")) {
		if dir == s.box.Path {
			jar = path.Base(jar) // sent into the sandbox
		}
		if !filepath.IsAbs(jar) {
			jar = filepath.Join(dir, jar)
		}
		cp = append(cp, jar)
	}
	vm := envargs.SplitArgsV1(classad.EvalStringOr(ad, "JavaVMArgs", ""))
	line := append(append([]string{}, s.cfg.JVM.Args...), "-classpath", strings.Join(cp, ":"))
	line = append(append(line, vm...), args...)
	return s.cfg.JVM.Path, line, nil
}
