package dag

import "testing"

// A DAG whose PROVISIONER node fails before its job says it is ready
// ends at once, its FINAL node not run (dagman-advance-functionality.rst
// "PROVISIONER Node": DAGMan exits "without writing a Rescue file or
// running the FINAL node"); a DAG removed while its provisioner runs, or
// whose provisioner was ready, runs its FINAL node as any other.
func TestProvisionerFailedSkipsFinal(t *testing.T) {
	const src = "PROVISIONER P p\nJOB A a\nFINAL F f\n"
	for _, tc := range []struct {
		name       string
		ready      bool
		remove     bool
		rc         int
		failed     bool // ProvisionerFailed
		finalStart bool
	}{
		{name: "its job ends first", rc: 0, failed: true},
		{name: "its submit fails (more than one job)", rc: ReturnSubmitFailed, failed: true},
		{name: "the DAG is removed", remove: true, rc: ReturnRemoved, finalStart: true},
		{name: "it was ready", ready: true, rc: 0, finalStart: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRun(mustParse(t, src))
			p := r.DAG.Node("P")
			if step := r.Start(p); step != StepSubmit {
				t.Fatalf("starting P: step %v", step)
			}
			r.Submitted(p, 100, "")
			if tc.ready {
				r.SetProvisionerReady() // A becomes startable: F waits for it
			}
			if tc.remove {
				r.Remove()
			}
			r.JobDone(p, tc.rc)
			final := false
			for _, i := range r.Startable() {
				final = final || i == r.DAG.Final
			}
			if r.ProvisionerFailed() != tc.failed || final != tc.finalStart {
				t.Errorf("ProvisionerFailed %v (want %v), FINAL startable %v (want %v)", r.ProvisionerFailed(), tc.failed, final, tc.finalStart)
			}
			if tc.failed && (!r.Finished() || r.ExitCode() != 1 || r.Status() != DAGAborted) {
				t.Errorf("finished %v, exit %d, status %d: want a finished DAG, exit 1, aborted", r.Finished(), r.ExitCode(), r.Status())
			}
		})
	}
}
