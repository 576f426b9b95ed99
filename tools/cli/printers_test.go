package cli

import (
	"testing"

	"github.com/kite-sched/kite/classad"
)

// condor_q -af prints reals with the old-ClassAd unparser (%.16G, ".0"
// on whole numbers) and strings bare unless -af:r/-af:V asks for quotes
// (condor_q man page, -autoformat).
func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		expr   string
		quoted bool
		want   string
	}{
		{"0.25", false, "0.25"},
		{"3.0", false, "3.0"},
		{"1e6", false, "1000000.0"},
		{"1.0/3", false, "0.3333333333333333"},
		{"1e-7", false, "1E-07"},
		{"0.0", false, "0.0"},
		{"7", false, "7"},
		{`"text"`, false, "text"},
		{`"text"`, true, `"text"`},
		{"undefined", false, "undefined"},
	} {
		e, err := classad.Compile(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := classad.Eval(e, nil, nil)
		if got := formatValue(v, tc.quoted); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.expr, got, tc.want)
		}
	}
}
