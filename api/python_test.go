package api_test

import (
	"os"
	"os/exec"
	"testing"
)

// The Python package (python/, htcondor2's shape over this client's
// protocol) installs with pip and passes its own tests against a personal
// pool they start (python/run-tests.sh): run here so that go test covers
// it wherever a python3 with pip, setuptools and wheel is installed (CI
// installs Debian's).
func TestPythonPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Python package's tests start a pool")
	}
	python := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import setuptools, wheel").Run() == nil && exec.Command(p, "-m", "pip", "--version").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("no python3 with pip, setuptools and wheel here: the Python package's tests are skipped")
	}
	cmd := exec.Command("sh", "../python/run-tests.sh")
	cmd.Env = append(os.Environ(), "PYTHON="+python)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python/run-tests.sh with %s: %v\n%s", python, err, out)
	}
	t.Logf("%s", out)
}
