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

// List sorts the entries themselves, as exec.Cmd.Env is given them: a name
// that another begins sorts by the character after it ('+' before '=').
func TestListOrder(t *testing.T) {
	ad, err := classad.Parse(`[Environment = "A=1 A+=2 AB=3 A_B='x y' PATH=/p"]`)
	if err != nil {
		t.Fatal(err)
	}
	env, err := Environment(ad)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A+=2", "A=1", "AB=3", "A_B=x y", "PATH=/p"}
	if got := List(env); !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
}

// A job's environment list costs a fixed few allocations, not one for
// each variable: the names, the one string the entries are cut from.
func TestListAllocations(t *testing.T) {
	ad, err := classad.Parse(`[Environment = "A=1 B=2 C=3 D=4 E=5 F=6 G=7 H=8 PATH=/p"]`)
	if err != nil {
		t.Fatal(err)
	}
	env, err := Environment(ad)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { List(env) }); n > 2 {
		t.Errorf("List of 9 variables: %v allocations, want at most 2", n)
	}
}

// BenchmarkEnvironment reads a job's environment and lists it with the
// variables a starter adds, as the startd's starter does for every job.
func BenchmarkEnvironment(b *testing.B) {
	ad, err := classad.Parse(`[Environment = "ANALYSIS_MODE=full INPUT_DIR=/data/run42 OMP_NUM_THREADS=1 PATH=/usr/local/bin:/usr/bin:/bin"]`)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		env, err := Environment(ad)
		if err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"_CONDOR_SCRATCH_DIR", "_CONDOR_SLOT", "_CONDOR_JOB_AD", "_CONDOR_MACHINE_AD",
			"_CONDOR_JOB_IWD", "TMPDIR", "TMP", "TEMP", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"} {
			env.Set(name, "/var/lib/kite/execute/dir_slot1_1_1.0_0123456789ab")
		}
		List(env)
	}
}
