package wire

import "testing"

// Checking a job's end report allocates nothing: it is sent for every job.
func TestCheckTextAllocates(t *testing.T) {
	u := JobUpdate{ClaimID: "c1", Job: "12.3", Event: EventExited, Time: 1, Reason: "done",
		Activation: &ActivationTimes{SetupSeconds: 0.001}}
	var in any = u // as Call has it
	checkText(in)  // the type's fields, cached
	if n := testing.AllocsPerRun(100, func() { checkText(in) }); n > 0 {
		t.Errorf("%v allocations", n)
	}
}
