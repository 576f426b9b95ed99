// Package resources describes the machine a startd runs on, truthfully:
// its cpus, memory, disk (of the execute directory's file system),
// architecture, operating system and kernel (Detect); its load and how
// long its keyboard and console have been idle (Load, Idle); and a quick
// benchmark of its speed (Benchmark). The Linux sources are in *_linux.go;
// elsewhere what cannot be read is an error, and configuration must say.
package resources

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine is what Detect finds.
type Machine struct {
	Cpus      int64 // logical cpus this process may use
	MemoryMiB int64 // physical memory
	DiskKiB   int64 // free space of the execute directory's file system

	Arch          string // HTCondor's names: X86_64, INTEL, aarch64, ppc64le
	OpSys         string // LINUX, OSX, FREEBSD, WINDOWS
	OpSysName     string // Ubuntu, Debian, RedHat, AlmaLinux, ...
	OpSysMajorVer int64  // 22 for Ubuntu 22.04
	OpSysVer      int64  // 2204 for Ubuntu 22.04
	OpSysLongName string // "Ubuntu 22.04.3 LTS"
	OpSysAndVer   string // Ubuntu22
	KernelVersion string // the kernel's release: "6.1.0-18-amd64"
}

// Detect finds the machine's resources; disk is measured where
// executeDir is. Each part that cannot be read is reported in the error,
// and the rest is still filled in.
func Detect(executeDir string) (Machine, error) {
	m := Machine{Cpus: int64(runtime.NumCPU()), Arch: Arch(runtime.GOARCH), OpSys: OpSys(runtime.GOOS)}
	var errs []string
	var err error
	if m.MemoryMiB, err = memoryMiB(); err != nil {
		errs = append(errs, "memory: "+err.Error())
	}
	if m.DiskKiB, err = freeDiskKiB(executeDir); err != nil {
		errs = append(errs, "disk: "+err.Error())
	}
	m.KernelVersion = kernelRelease()
	m.describeOS(osRelease())
	if len(errs) > 0 {
		return m, fmt.Errorf("detecting the machine: %s", strings.Join(errs, "; "))
	}
	return m, nil
}

// Arch returns HTCondor's name for a Go architecture.
func Arch(goarch string) string {
	switch goarch {
	case "amd64":
		return "X86_64"
	case "386":
		return "INTEL"
	case "arm64":
		return "aarch64"
	case "arm":
		return "armv7l"
	}
	return goarch
}

// OpSys returns HTCondor's name for a Go operating system.
func OpSys(goos string) string {
	switch goos {
	case "darwin":
		return "OSX"
	}
	return strings.ToUpper(goos)
}

// osNames are HTCondor's OpSysName for os-release IDs.
var osNames = map[string]string{
	"ubuntu": "Ubuntu", "debian": "Debian", "rhel": "RedHat", "centos": "CentOS",
	"almalinux": "AlmaLinux", "rocky": "Rocky", "fedora": "Fedora", "amzn": "AmazonLinux",
	"scientific": "SL", "opensuse-leap": "openSUSE", "sles": "SLES", "arch": "Arch",
}

// describeOS fills the OpSys* names from os-release fields; without them
// the names come from OpSys and the kernel.
func (m *Machine) describeOS(rel map[string]string) {
	m.OpSysName = osNames[rel["ID"]]
	if m.OpSysName == "" && rel["ID"] != "" {
		m.OpSysName = strings.ToUpper(rel["ID"][:1]) + rel["ID"][1:]
	}
	if m.OpSysName == "" {
		m.OpSysName = m.OpSys
	}
	major, minor, _ := strings.Cut(rel["VERSION_ID"], ".")
	m.OpSysMajorVer, _ = strconv.ParseInt(major, 10, 64)
	mn, _ := strconv.ParseInt(strings.SplitN(minor, ".", 2)[0], 10, 64)
	m.OpSysVer = m.OpSysMajorVer*100 + mn
	m.OpSysLongName = rel["PRETTY_NAME"]
	if m.OpSysLongName == "" {
		m.OpSysLongName = strings.TrimSpace(m.OpSysName + " " + rel["VERSION_ID"])
	}
	m.OpSysAndVer = m.OpSysName
	if m.OpSysMajorVer > 0 {
		m.OpSysAndVer += strconv.FormatInt(m.OpSysMajorVer, 10)
	}
}

// parseOSRelease reads os-release's KEY=value lines, unquoting values.
func parseOSRelease(r io.Reader) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		} else {
			v = strings.Trim(v, `'"`)
		}
		out[k] = v
	}
	return out
}

// osRelease reads /etc/os-release (or /usr/lib/os-release).
func osRelease() map[string]string {
	for _, p := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		if f, err := os.Open(p); err == nil {
			defer f.Close()
			return parseOSRelease(f)
		}
	}
	return nil
}
