package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// The java universe (users' manual, "Choosing an HTCondor Universe";
// condor_submit: jar_files, java_vm_args): a machine with a JVM publishes
// HasJava and its Java attributes, and runs the class named by the job's
// first argument with the job's jar files on the class path; the JVM's
// exit status is the job's.
func TestJavaUniverse(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java on this machine (CI installs one)")
	}
	pl := newPoolWith(t, 1, func(c *startd.Config) { c.Java = "java" }, "a")
	dir := t.TempDir()
	for _, f := range []string{"Hello.class", "greeter.jar"} {
		data, err := os.ReadFile(filepath.Join("testdata", "java", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := pl.submit(dir, `universe = java
executable = Hello.class
jar_files = greeter.jar
java_vm_args = -Dgreeting=hi
should_transfer_files = YES
arguments = Hello world 0
output = out0.txt
queue
arguments = Hello again 3
output = out1.txt
queue
`)
	pl.checkProcs(c, dir, "out%d.txt", []procResult{{"hi world from a jar\n", "0"}, {"hi again from a jar\n", "3"}})
	q := wire.Query{Type: "Machine", Projection: []string{"HasJava", "JavaVersion", "JavaMFlops"}}
	var slot *classad.Ad
	err := pl.p.Client("collector:9618", "alice", auth.Read).Stream(context.Background(), "POST", wire.PathQuery, q, func(item json.RawMessage) (err error) {
		slot, err = classad.ParseJSON(item)
		return err
	})
	if err != nil || slot == nil {
		t.Fatalf("slot ad: %v", err)
	}
	if str(slot, "HasJava") != "true" || str(slot, "JavaVersion") == "" || classad.EvalNumberOr(slot, "JavaMFlops", 0) <= 0 {
		t.Errorf("the slot's Java attributes: %v", slot)
	}
}
