package fit

import (
	"math"
	"testing"

	"github.com/kite-sched/kite/classad"
)

// The defaults of a missing request: HTCondor manual,
// admin-manual/ep-policy-configuration.rst "Defaults for Partitionable
// Slot Sizes" (JOB_DEFAULT_REQUESTCPUS = 1) and param_info.in
// (JOB_DEFAULT_REQUESTMEMORY = 128, docs/htcondor-reference.md §1.1); a
// missing disk request gets the smallest dynamic slot, one quantum of
// 1024 KiB.
func TestRequest(t *testing.T) {
	tests := []struct {
		name               string
		cpus, memory, disk float64
		want               Resources
	}{
		{"all given", 2, 1000, 5000, Resources{2, 1000, 5000}},
		{"none given", 0, 0, 0, Resources{1, 128, 1024}},
		{"fractions round up", 1.2, 100.5, 0.1, Resources{2, 101, 1}},
		{"negative is none", -1, -128, -1, Resources{1, 128, 1024}},
		{"not a number is none", math.NaN(), math.NaN(), math.NaN(), Resources{1, 128, 1024}},
		{"huge is bounded", 1e300, 1, 1, Resources{maxAmount, 1, 1}},
	}
	for _, tc := range tests {
		if got := Request(tc.cpus, tc.memory, tc.disk); got != tc.want {
			t.Errorf("%s: Request(%v, %v, %v) = %v, want %v", tc.name, tc.cpus, tc.memory, tc.disk, got, tc.want)
		}
	}
}

// Requested evaluates the job's requests against the slot; anything but a
// positive number is a missing request.
func TestRequested(t *testing.T) {
	slot := mustParse(t, `[Cpus = 8; Memory = 4000; Disk = 100000]`)
	tests := []struct {
		job  string
		want Resources
	}{
		{`[RequestCpus = 2; RequestMemory = 1000; RequestDisk = 2048]`, Resources{2, 1000, 2048}},
		{`[]`, Resources{1, 128, 1024}},
		{`[RequestMemory = TARGET.Memory / 2; RequestDisk = undefined]`, Resources{1, 2000, 1024}},
		{`[RequestCpus = "two"; RequestMemory = 1 / 0; RequestDisk = 0]`, Resources{1, 128, 1024}},
		{`[RequestCpus = true]`, Resources{1, 128, 1024}},
	}
	for _, tc := range tests {
		if got := Requested(mustParse(t, tc.job), slot); got != tc.want {
			t.Errorf("Requested(%s) = %v, want %v", tc.job, got, tc.want)
		}
	}
}

// The startd rounds requests up before carving (HTCondor manual,
// ep-policy-configuration.rst "Defaults for Partitionable Slot Sizes":
// MODIFY_REQUEST_EXPR_REQUESTCPUS = quantize(RequestCpus, {1}),
// MODIFY_REQUEST_EXPR_REQUESTMEMORY = quantize(RequestMemory, {128}),
// MODIFY_REQUEST_EXPR_REQUESTDISK = quantize(RequestDisk, {1024})), and
// only when the rounded request still fits the slot (configuration
// reference, MUST_MODIFY_REQUEST_EXPRS defaults to False).
func TestCarve(t *testing.T) {
	free := Resources{4, 1000, 10000}
	tests := []struct {
		name string
		req  Resources
		want Resources
		ok   bool
	}{
		{"multiples stay", Resources{1, 256, 2048}, Resources{1, 256, 2048}, true},
		{"rounded up", Resources{1, 100, 1000}, Resources{1, 128, 1024}, true},
		{"the defaults are one quantum", Default, Resources{1, 128, 1024}, true},
		{"rounded would not fit: as asked", Resources{1, 900, 1000}, Resources{1, 900, 1000}, true},
		{"exactly what is free", free, free, true},
		{"too many cpus", Resources{5, 128, 1024}, Resources{}, false},
		{"too much memory", Resources{1, 1001, 1024}, Resources{}, false},
		{"too much disk", Resources{1, 128, 10001}, Resources{}, false},
	}
	for _, tc := range tests {
		got, ok := Carve(tc.req, free)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Carve(%v) = %v, %v; want %v, %v", tc.name, tc.req, got, ok, tc.want, tc.ok)
		}
	}
}

func TestQuantize(t *testing.T) {
	for _, tc := range []struct{ n, q, want int64 }{
		{0, 128, 0}, {1, 128, 128}, {128, 128, 128}, {129, 128, 256}, {-5, 4, -4}, {7, 0, 7},
	} {
		if got := quantize(tc.n, tc.q); got != tc.want {
			t.Errorf("quantize(%d, {%d}) = %d, want %d", tc.n, tc.q, got, tc.want)
		}
	}
}

// The slot's WithinResourceLimits expression takes the same defaults as
// Request: a job fits by the expression exactly when its request fits.
func TestWithinLimitsAgreesWithRequest(t *testing.T) {
	within, err := classad.ParseExpr(WithinLimits)
	if err != nil {
		t.Fatal(err)
	}
	slots := []string{
		`[Cpus = 1; Memory = 128; Disk = 1024]`,
		`[Cpus = 1; Memory = 127; Disk = 1024]`,
		`[Cpus = 1; Memory = 128; Disk = 1023]`,
		`[Cpus = 0; Memory = 4096; Disk = 99999]`,
		`[Cpus = 4; Memory = 4096; Disk = 99999]`,
	}
	jobs := []string{`[]`, `[RequestMemory = 200]`, `[RequestCpus = 2; RequestDisk = 5000]`, `[RequestMemory = 127.5]`}
	for _, s := range slots {
		for _, j := range jobs {
			slot, job := mustParse(t, s), mustParse(t, j)
			slot.Set("WithinResourceLimits", within)
			v, err := classad.EvalAttr(slot, "WithinResourceLimits", job)
			if err != nil {
				t.Fatal(err)
			}
			free := Resources{number(t, slot, "Cpus"), number(t, slot, "Memory"), number(t, slot, "Disk")}
			if want := Requested(job, slot).Fits(free); v.IsTrue() != want {
				t.Errorf("slot %s, job %s: WithinResourceLimits is %v, the request fits: %v", s, j, v, want)
			}
		}
	}
}

func mustParse(t *testing.T, src string) *classad.Ad {
	t.Helper()
	ad, err := classad.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

func number(t *testing.T, ad *classad.Ad, name string) int64 {
	t.Helper()
	f, ok := classad.EvalNumber(ad, name)
	if !ok {
		t.Fatalf("%s is not a number", name)
	}
	return int64(f)
}
