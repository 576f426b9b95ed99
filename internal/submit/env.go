package submit

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// Env is everything Expand needs from outside the submit file: the
// cluster's number, who submits, where, on what host, and access to files.
// Every hook may be nil; see each field for what a nil hook means. Tests
// inject fakes; the kite submit command uses LocalEnv.
type Env struct {
	// Cluster is the cluster number: $(Cluster), ClusterId.
	Cluster int
	// Method is JobSubmitMethod, what submits the jobs, with HTCondor's
	// numbers: SubmitByTool (condor_submit, kite submit) unless set.
	Method int
	// SubmitFile is JobSubmitFile, the submit file's path, when the jobs
	// come from a file; Version is SubmitVersion, the submitting tool's
	// version. Empty leaves each unset.
	SubmitFile, Version string
	// Owner is the submitting user: the Owner attribute, and the default
	// accounting group user. Empty leaves Owner unset.
	Owner string
	// Dir is the submit directory, absolute: relative initialdir,
	// executable and `queue from` file names are resolved against it.
	Dir string
	// Environ is the submitter's environment as "NAME=value" entries, as
	// os.Environ returns it, for $ENV(NAME) and the getenv command.
	Environ []string
	// Host describes the submit host, for $(ARCH), $(OPSYS) ... and the
	// default Requirements.
	Host HostInfo
	// ReadFile reads the file of `queue ... from file` and of `include :
	// file`. Nil: such statements are errors.
	ReadFile func(name string) ([]byte, error)
	// Glob returns the names matching an absolute pattern, as
	// filepath.Glob does, for `queue ... matching` (whose globs are
	// relative to Dir, as condor_submit's are to its working directory).
	// Nil: such a queue statement is an error.
	Glob func(pattern string) ([]string, error)
	// Stat describes a file: to tell directories from files for
	// `matching` (directories get a trailing '/', and `files`/`dirs`
	// select), to check that the executable and initial directory exist,
	// and to measure the executable and input files (ExecutableSize,
	// DiskUsage, TransferInputSizeMB). Nil: no checks, sizes are 0, and
	// every match counts as a file.
	Stat func(name string) (fs.FileInfo, error)
	// RunCommand runs the command of `queue ... from command |` and of
	// `include : command |` and returns what it writes to standard output. It is a hook so that
	// tests need no shell and so that callers decide whether submit files
	// may run commands at all. Nil: such a queue statement is an error.
	RunCommand func(command string) ([]byte, error)
	// Now is the submit time, for $(SUBMIT_TIME), $(YEAR), $(MONTH) and
	// $(DAY). Nil: the clock.
	Now func() time.Time
	// Random returns a random integer in [0, n), for $RANDOM_CHOICE and
	// $RANDOM_INTEGER. Nil: math/rand.
	Random func(n int) int
	// MaxJobs, when positive, is the most jobs the cluster may have: the
	// schedd's max_jobs_per_submission, which it gives with the cluster
	// id. A queue statement that would pass it is refused before its jobs
	// are made.
	MaxJobs int
}

// HostInfo describes the submit host as HTCondor's configuration does.
type HostInfo struct {
	Arch             string // ARCH, e.g. "X86_64"
	OpSys            string // OPSYS, e.g. "LINUX"
	OpSysAndVer      string // OPSYSANDVER, e.g. "AlmaLinux9"
	OpSysMajorVer    string // OPSYSMAJORVER, e.g. "9"
	OpSysVer         string // OPSYSVER, e.g. "905"
	FileSystemDomain string // FILESYSTEM_DOMAIN, usually the host's name
}

// JobSubmitMethod values (HTCondor's): the submit tool, DAGMan, the
// Python bindings.
const (
	SubmitByTool   = 0
	SubmitByDAG    = 1
	SubmitByPython = 2
)

// setSubmitter records in a cluster ad how its jobs were submitted, as
// condor_submit does: JobSubmitMethod, JobSubmitFile, SubmitVersion.
func (e *Env) setSubmitter(ad *classad.Ad) {
	ad.Set("JobSubmitMethod", ast.Int(int64(e.Method)))
	if e.SubmitFile != "" {
		ad.Set("JobSubmitFile", ast.Str(e.SubmitFile))
	}
	if e.Version != "" {
		ad.Set("SubmitVersion", ast.Str(e.Version))
	}
}

// LocalEnv returns an Env for submitting from dir on this host: the
// process environment, the local file system, and commands run by /bin/sh
// in dir with the process environment. Cluster and Owner are left for the caller.
func LocalEnv(dir string) Env {
	return Env{
		Dir:        dir,
		Environ:    os.Environ(),
		Host:       LocalHost(),
		ReadFile:   os.ReadFile,
		Glob:       filepath.Glob,
		Stat:       os.Stat,
		RunCommand: ShellCommand(dir),
	}
}

// ShellCommand returns a RunCommand hook that runs commands with /bin/sh
// in dir.
func ShellCommand(dir string) func(string) ([]byte, error) {
	return func(command string) ([]byte, error) {
		cmd := exec.Command("/bin/sh", "-c", command)
		cmd.Dir = dir
		return cmd.Output()
	}
}

// LocalHost describes this host with HTCondor's names for its
// architecture and operating system.
func LocalHost() HostInfo {
	h := HostInfo{Arch: archName(runtime.GOARCH), OpSys: opSysName(runtime.GOOS)}
	if name, err := os.Hostname(); err == nil {
		h.FileSystemDomain = name
	}
	if runtime.GOOS == "linux" {
		h.OpSysAndVer, h.OpSysMajorVer, h.OpSysVer = linuxRelease("/etc/os-release")
	}
	if h.OpSysAndVer == "" {
		h.OpSysAndVer = h.OpSys
	}
	return h
}

// archName maps a Go architecture to HTCondor's ARCH.
func archName(goarch string) string {
	switch goarch {
	case "amd64":
		return "X86_64"
	case "386":
		return "INTEL"
	case "arm64":
		return "aarch64"
	case "ppc64le":
		return "ppc64le"
	}
	return strings.ToUpper(goarch)
}

// opSysName maps a Go operating system to HTCondor's OPSYS.
func opSysName(goos string) string {
	switch goos {
	case "darwin":
		return "OSX"
	case "windows":
		return "WINDOWS"
	}
	return strings.ToUpper(goos)
}

// linuxRelease derives OPSYSANDVER ("AlmaLinux9"), OPSYSMAJORVER and
// OPSYSVER from an os-release file, as HTCondor names distributions.
func linuxRelease(file string) (andVer, major, ver string) {
	f, err := os.Open(file)
	if err != nil {
		return "", "", ""
	}
	defer f.Close()
	kv := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			kv[k] = strings.Trim(v, `"'`)
		}
	}
	name := distroNames[kv["ID"]]
	if name == "" {
		name = "LINUX"
	}
	version := kv["VERSION_ID"]
	major, minor, _ := strings.Cut(version, ".")
	return name + major, major, major + fmt.Sprintf("%02s", minor)
}

// distroNames maps os-release IDs to HTCondor's distribution names.
var distroNames = map[string]string{
	"almalinux": "AlmaLinux", "rocky": "Rocky", "centos": "CentOS", "rhel": "RedHat",
	"fedora": "Fedora", "ubuntu": "Ubuntu", "debian": "Debian", "opensuse-leap": "openSUSE",
	"sles": "SLES", "amzn": "AmazonLinux",
}
