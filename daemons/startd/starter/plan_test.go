package starter

import (
	"fmt"
	"strings"
	"testing"
)

// Where each input lands in the sandbox: under its base name, an
// absolute path included (HTCondor's manual, condor_submit:
// transfer_input_files), a URL under the last part of its path ("File
// Transfer Using a URL"), the job's own plugins as executables
// (transfer_plugins).
func TestInputsLand(t *testing.T) {
	tests := []struct {
		ad, want, err string
	}{
		{`TransferInput = "/data/shared/big.dat, d/f.txt"`, "/data/shared/big.dat>big.dat d/f.txt>f.txt", ""},
		{`TransferInput = "https://h/x/set.tar.gz?sig=1#frag"`, "https://h/x/set.tar.gz?sig=1#frag>set.tar.gz url", ""},
		{`TransferInput = "https://h"`, "", "does not end in a file name"},
		{`TransferInput = "https://h/x/"`, "", "does not end in a file name"},
		{`TransferPlugins = "box,tar = tools/box_plugin"`, "tools/box_plugin>box_plugin exec", ""},
		{`TransferPlugins = "box"`, "", "is not TAG=path"},
	}
	for _, tc := range tests {
		t.Run(tc.ad, func(t *testing.T) {
			p, err := planFiles(jobAd(t, "Cmd = \"/bin/true\"\nTransferExecutable = false\n"+tc.ad))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range p.inputs {
				s := in.remote + ">" + in.local
				if in.url {
					s += " url"
				}
				if in.exec {
					s += " exec"
				}
				got = append(got, s)
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("got %s, want %s", g, tc.want)
			}
			if tc.ad[:15] == "TransferPlugins" && fmt.Sprint(p.jobPlugins) != "[{[box tar] box_plugin}]" {
				t.Errorf("job plugins %v", p.jobPlugins)
			}
		})
	}
}
