// Package javabench finds out what a machine's Java virtual machine is,
// for the startd's java universe: it runs a small class of Kite's own
// (KiteJavaBench.java, compiled for Java 8 into KiteJavaBench.class) that
// prints the JVM's vendor and versions and measures its floating-point
// speed, as HTCondor's startd publishes JavaVendor, JavaVersion,
// JavaSpecificationVersion and JavaMFlops.
package javabench

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

//go:generate javac --release 8 -d . KiteJavaBench.java

//go:embed KiteJavaBench.class
var class []byte

// Info is what the probe learned of a JVM.
type Info struct {
	Path        string // the java executable
	Vendor      string
	Version     string
	SpecVersion string
	MFlops      float64
}

// timeout bounds the probe: a JVM's start and the 0.2 s measurement.
const timeout = 30 * time.Second

// Probe runs the class with the JVM java (a path, or a name looked up in
// PATH), from a directory it makes under dir and removes.
func Probe(ctx context.Context, java, dir string) (Info, error) {
	path, err := exec.LookPath(java)
	if err != nil {
		return Info{}, err
	}
	tmp, err := os.MkdirTemp(dir, "javabench")
	if err != nil {
		return Info{}, err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "KiteJavaBench.class"), class, 0o644); err != nil {
		return Info{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "-classpath", tmp, "KiteJavaBench")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Info{}, fmt.Errorf("%s: %w: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	return parse(path, out)
}

// parse reads the class's Name=value lines.
func parse(path string, out []byte) (Info, error) {
	info := Info{Path: path}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), "=")
		switch name {
		case "JavaVendor":
			info.Vendor = value
		case "JavaVersion":
			info.Version = value
		case "JavaSpecificationVersion":
			info.SpecVersion = value
		case "JavaMFlops":
			f, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return Info{}, fmt.Errorf("%s: JavaMFlops %q: %w", path, value, err)
			}
			info.MFlops = f
		}
	}
	if info.Version == "" {
		return Info{}, fmt.Errorf("%s: the probe printed no Java version", path)
	}
	return info, nil
}
