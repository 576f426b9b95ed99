package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
)

// -format FMT ATTR as condor_q(1) (HTCondor 25, Options, -format) gives
// it: one printf conversion per format, %s %d %f %v %V %r, text around it
// copied, \n a line break, nothing printed when the value does not suit
// the conversion or the expression does not parse; the Examples' two
// command lines print "jdoe 16386 2800 ProcId = 0" and "27.0".
func TestPrintfFormat(t *testing.T) {
	ad, err := classad.Parse(`[ClusterId = 27; ProcId = 0; Owner = "jdoe"; Args = "16386 2800"; RemoteWallClockTime = 90061.5; Req = Memory > 1024; Flag = true]`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		formats [][2]string
		want    string
	}{
		{[][2]string{{"%s", "Owner"}, {" %s ", "Args"}, {` ProcId = %d\n`, "ProcId"}}, "jdoe 16386 2800  ProcId = 0\n"},
		{[][2]string{{"%d.", "ClusterId"}, {`%d\n`, "ProcId"}}, "27.0\n"},
		{[][2]string{{"%5d|", "ClusterId"}, {"%-5s|", "Owner"}, {"%.1f", "RemoteWallClockTime"}}, "   27|jdoe |90061.5"},
		{[][2]string{{"%v ", "Owner"}, {"%V ", "Owner"}, {"%r", "Req"}}, `jdoe "jdoe" Memory > 1024`},
		{[][2]string{{"%d", "Flag"}, {" %s", "Missing"}, {" %d", "Owner"}, {" [%d]", "((("}}, "1 undefined"},
		{[][2]string{{"%T", "RemoteWallClockTime"}, {" 100%% %s", "Owner"}}, "1+01:01:01 100% jdoe"},
		{[][2]string{{`no conversion\n`, "ClusterId"}}, "no conversion\n"},
	} {
		var f printfFormat
		for _, fa := range tc.formats {
			if err := f.Set(fa[0] + formatSep + fa[1]); err != nil {
				t.Fatal(err)
			}
		}
		var b strings.Builder
		if err := f.print(&b, []*classad.Ad{ad}); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%q: got %q, want %q", tc.formats, b.String(), tc.want)
		}
	}
	for _, bad := range []string{"%d %d", "%q", "%"} {
		var f printfFormat
		if err := f.Set(bad + formatSep + "X"); err == nil {
			t.Errorf("-format %q accepted", bad)
		}
	}
	var f printfFormat
	if err := f.Set("%d"); err == nil || !strings.Contains(err.Error(), "two arguments") {
		t.Errorf("-format without an attribute: %v", err)
	}
}

// -af's qualifiers as condor_q(1) (HTCondor 25, Options, -autoformat)
// lists them: j the job id first, l labels, h headings, V quoted
// strings, r raw, T elapsed times, Y Unix times as local dates, , t n g
// separators; l with h and n with , are refused.
func TestAutoFormatQualifiers(t *testing.T) {
	ad, err := classad.Parse(`[ClusterId = 3; ProcId = 1; Owner = "ann"; Secs = 3661; Req = Memory > 1]`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts  string
		exprs []string
		want  string
	}{
		{"", []string{"Owner", "Secs"}, "ann 3661\n"},
		{"j", []string{"Owner"}, "3.1 ann\n"},
		{"jh", []string{"Owner", "Secs"}, "ID Owner Secs\n3.1 ann 3661\n"},
		{"jl", []string{"Owner"}, "ID = 3.1 Owner = ann\n"},
		{"V", []string{"Owner"}, "\"ann\"\n"},
		{"r", []string{"Req"}, "Memory > 1\n"},
		{"T", []string{"Secs", "Owner"}, "0+01:01:01 ann\n"},
		{"Y", []string{"Secs"}, time.Unix(3661, 0).Format("2006-01-02 15:04:05") + "\n"},
		{",", []string{"Owner", "Secs"}, "ann,3661\n"},
		{"t", []string{"Owner", "Secs"}, "ann\t3661\n"},
		{"n", []string{"Owner", "Secs"}, "ann\n3661\n"},
		{"g", []string{"Owner"}, "ann\n\n"},
	} {
		af, err := parseAutoFormat(tc.opts, tc.exprs)
		if err != nil {
			t.Fatalf("-af:%s: %v", tc.opts, err)
		}
		var b strings.Builder
		if err := af.print(&b, []*classad.Ad{ad}); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("-af:%s %v: got %q, want %q", tc.opts, tc.exprs, b.String(), tc.want)
		}
	}
	for _, bad := range []string{"lh", "n,", "z"} {
		if _, err := parseAutoFormat(bad, []string{"Owner"}); err == nil {
			t.Errorf("-af:%s accepted", bad)
		}
	}
}
