package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// A completed job's ad carries what HTCondor's schedd, shadow and starter
// record of its matches and runs (manual: "Job ClassAd Attributes"), with
// HTCondor's names and units. The job runs twice (max_retries): the run
// counts and committed times add up, and job_machine_attrs keeps both
// matches' machines.
func TestCompletedJobAdRecordsItsRuns(t *testing.T) {
	pl := newPool(t, 1, "a")
	dir := t.TempDir()
	c := pl.submit(dir, fmt.Sprintf(`executable = /bin/sh
arguments = "-c 'test -e %[1]s/again || { touch %[1]s/again; exit 1; }'"
max_retries = 1
job_machine_attrs = Machine, Cpus
job_machine_attrs_history_length = 2
should_transfer_files = YES
queue
`, dir))
	id := fmt.Sprintf("%d.0", c)
	ad := pl.waitStatus(id, attr.Completed)
	num := func(name string) float64 {
		f, ok := classad.EvalNumber(ad, name)
		if !ok {
			t.Errorf("%s is missing or not a number: %s", name, str(ad, name))
		}
		return f
	}
	for name, want := range map[string]float64{
		"JobRunCount": 2, "NumShadowStarts": 2, "NumJobStarts": 2, "ExitStatus": 0, "ExitCode": 0,
		"CpusProvisioned": 1, "MemoryProvisioned": 512, "MachineAttrCpus0": 1, "MachineAttrCpus1": 1,
	} {
		if got := num(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for _, name := range []string{"DiskProvisioned", "FirstJobMatchDate", "JobCurrentStartExecutingDate", "QDate"} {
		if got := num(name); got <= 0 {
			t.Errorf("%s = %v, want > 0", name, got)
		}
	}
	if num("FirstJobMatchDate") > num("LastMatchTime") || num("JobCurrentStartExecutingDate") < num("JobStartDate") {
		t.Errorf("dates out of order: first match %v, last match %v, first start %v, last start %v",
			num("FirstJobMatchDate"), num("LastMatchTime"), num("JobStartDate"), num("JobCurrentStartExecutingDate"))
	}
	// Both runs exited: all their time is committed; the last run's alone
	// is LastRemoteWallClockTime.
	wall, last := num("RemoteWallClockTime"), num("LastRemoteWallClockTime")
	if num("CommittedTime") != wall || num("CumulativeSlotTime") != wall || num("CommittedSlotTime") != wall || last > wall {
		t.Errorf("times: wall %v, last %v, committed %v, slot %v, committed slot %v",
			wall, last, num("CommittedTime"), num("CumulativeSlotTime"), num("CommittedSlotTime"))
	}
	if num("CumulativeRemoteUserCpu") != num("RemoteUserCpu") || num("CumulativeRemoteSysCpu") != num("RemoteSysCpu") {
		t.Errorf("cumulative CPU differs from the runs' total")
	}
	for _, name := range []string{"MachineAttrMachine0", "MachineAttrMachine1"} {
		if got := str(ad, name); !strings.HasSuffix(got, "a") {
			t.Errorf("%s = %q, want machine a", name, got)
		}
	}
	if got, want := str(ad, attr.GlobalJobID), "#"+id+"#"+str(ad, attr.QDate); !strings.HasSuffix(got, want) || len(got) == len(want) {
		t.Errorf("GlobalJobId = %q, want schedd#%s", got, want[1:])
	}
}
