package spool

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
)

// The files condor_submit -spool sends (condor_submit(1), -spool): the
// executable unless transfer_executable = false, standard input, and
// transfer_input_files but URLs, each kept under its base name.
func TestInputs(t *testing.T) {
	for _, tc := range []struct {
		ad, want, err string
	}{
		{`[Cmd = "/home/a/job.sh"; In = "/dev/null"]`, "/home/a/job.sh=job.sh", ""},
		{`[Cmd = "/bin/java"; TransferExecutable = false; In = "data.in"]`, "data.in=data.in", ""},
		{`[Cmd = "job"; TransferInput = "a.txt, ../b/c.dat,https://x.org/big, a.txt"]`, "job=job a.txt=a.txt ../b/c.dat=c.dat", ""},
		{`[Cmd = "job"; TransferInput = "x/a, y/a"]`, "", `share the base name "a"`},
		{`[Cmd = "job"; TransferInput = "dir/"]`, "", "not directories"},
	} {
		ad, err := classad.Parse(tc.ad)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Inputs(ad)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want an error with %q", tc.ad, err, tc.err)
			}
			continue
		}
		var parts []string
		for _, in := range got {
			parts = append(parts, fmt.Sprintf("%s=%s", in.Name, in.Base))
		}
		if s := strings.Join(parts, " "); err != nil || s != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.ad, s, err, tc.want)
		}
	}
}
