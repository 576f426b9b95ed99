package javabench

import (
	"context"
	"os/exec"
	"testing"
)

func TestParse(t *testing.T) {
	info, err := parse("/usr/bin/java", []byte("JavaVendor=Debian\nJavaVersion=17.0.15\nJavaSpecificationVersion=17\nJavaMFlops=346.8\nCheck=1.5\n"))
	if err != nil || info != (Info{"/usr/bin/java", "Debian", "17.0.15", "17", 346.8}) {
		t.Fatalf("%+v %v", info, err)
	}
	if _, err := parse("j", []byte("JavaMFlops=x\n")); err == nil {
		t.Error("a bad JavaMFlops is accepted")
	}
	if _, err := parse("j", []byte("garbage\n")); err == nil {
		t.Error("output without a version is accepted")
	}
}

// The embedded class runs on the machine's JVM (CI installs one).
func TestProbe(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java on this machine")
	}
	info, err := Probe(context.Background(), "java", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if info.Version == "" || info.SpecVersion == "" || info.MFlops <= 0 {
		t.Errorf("%+v", info)
	}
	if _, err := Probe(context.Background(), "no-such-java-here", t.TempDir()); err == nil {
		t.Error("a missing JVM is found")
	}
}
