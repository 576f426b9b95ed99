package fit

import (
	"maps"
	"testing"

	"github.com/kite-sched/kite/classad"
)

// A custom resource request (request_<name>; HTCondor manual,
// admin-manual/ep-policy-configuration.rst, custom resources) is exactly
// what is asked, rounded up to a whole unit; a missing or non-positive
// one is none.
func TestRequestedCounts(t *testing.T) {
	slot := mustParse(t, `[GPUs = 4; FPGAs = 2]`)
	tests := []struct {
		job  string
		want Counts
	}{
		{`[RequestGPUs = 2]`, Counts{"GPUs": 2}},
		{`[RequestGPUs = 1.2; RequestFPGAs = TARGET.FPGAs]`, Counts{"GPUs": 2, "FPGAs": 2}},
		{`[]`, Counts{}},
		{`[RequestGPUs = 0; RequestFPGAs = "two"]`, Counts{}},
		{`[requestgpus = 3]`, Counts{"GPUs": 3}},
	}
	for _, tc := range tests {
		if got := RequestedCounts(mustParse(t, tc.job), slot, []string{"GPUs", "FPGAs"}); !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.job, got, tc.want)
		}
	}
	if !(Counts{"GPUs": 2}).Fits(Counts{"GPUs": 2}) || (Counts{"GPUs": 3}).Fits(Counts{"GPUs": 2}) || (Counts{"TPUs": 1}).Fits(Counts{}) {
		t.Error("Fits is not at most what is free")
	}
}

// WithinResourceLimits extended to custom resources holds exactly when
// the requests fit, none asked when missing.
func TestWithinLimitsForAgreesWithCounts(t *testing.T) {
	within, err := classad.ParseExpr(WithinLimitsFor([]string{"GPUs"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		slot, job string
	}{
		{`[Cpus = 1; Memory = 128; Disk = 1024; GPUs = 1]`, `[RequestGPUs = 1]`},
		{`[Cpus = 1; Memory = 128; Disk = 1024; GPUs = 1]`, `[RequestGPUs = 2]`},
		{`[Cpus = 1; Memory = 128; Disk = 1024; GPUs = 0]`, `[]`},
		{`[Cpus = 1; Memory = 128; Disk = 1024; GPUs = 0]`, `[RequestGPUs = 1]`},
	} {
		slot, job := mustParse(t, tc.slot), mustParse(t, tc.job)
		slot.Set("WithinResourceLimits", within)
		v, err := classad.EvalAttr(slot, "WithinResourceLimits", job)
		if err != nil {
			t.Fatal(err)
		}
		free := Counts{"GPUs": number(t, slot, "GPUs")}
		if want := RequestedCounts(job, slot, []string{"GPUs"}).Fits(free); v.IsTrue() != want {
			t.Errorf("slot %s, job %s: WithinResourceLimits %v, fits %v", tc.slot, tc.job, v, want)
		}
	}
}
