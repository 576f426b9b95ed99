package jobenv

import (
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
)

// HTCondor manual, "Submit Description File Commands": arguments and
// environment, each in the new (V2, double-quoted) syntax or the old (V1)
// one; the new attribute wins when the job ad has both.
func TestArgumentsAndEnvironment(t *testing.T) {
	for _, tc := range []struct {
		name, ad string
		args     []string
		env      []string
		err      string
	}{
		{name: "none", ad: `[]`, args: nil, env: []string{"PATH=" + DefaultPath}},
		{name: "v2", ad: `[Arguments = "a 'b c'"; Environment = "X=1 PATH=/opt/bin"]`,
			args: []string{"a", "b c"}, env: []string{"PATH=/opt/bin", "X=1"}},
		{name: "v1", ad: `[Args = "a b"; Env = "Y=2;X=1"]`,
			args: []string{"a", "b"}, env: []string{"PATH=" + DefaultPath, "X=1", "Y=2"}},
		{name: "v2 wins", ad: `[Arguments = "new"; Args = "old"; Environment = "N=1"; Env = "O=1"]`,
			args: []string{"new"}, env: []string{"N=1", "PATH=" + DefaultPath}},
		{name: "bad v2 environment", ad: `[Environment = "'unterminated"]`, err: "the job's environment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ad, err := classad.Parse(tc.ad)
			if err != nil {
				t.Fatal(err)
			}
			env, err := Environment(ad)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Environment = %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := List(env); !slices.Equal(got, tc.env) {
				t.Errorf("List = %q, want %q", got, tc.env)
			}
			args, err := Arguments(ad)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(args, tc.args) {
				t.Errorf("Arguments = %q, want %q", args, tc.args)
			}
		})
	}
}
