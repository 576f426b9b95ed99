package submit

import (
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// TestExpandLate checks late materialization's form of a cluster against
// Expand's: the same cluster ad (with JobMaterializeLimit and
// JobMaterializeMaxIdle, condor_submit man page: max_materialize,
// max_idle; with max_idle alone the limit is INT_MAX), and each proc's
// run, with its ProcId, the same as Expand's proc.
func TestExpandLate(t *testing.T) {
	for _, c := range []struct {
		name, src string
		runs      []int // procs per run; nil: not late
		limit     string
		idle      string
	}{
		{"no factory", "executable = /bin/true\nqueue 3\n", nil, "", ""},
		{"max_idle", "executable = /bin/true\nmax_idle = 10\nqueue 1000\n", []int{1000}, "2147483647", "10"},
		{"max_materialize", "executable = /bin/true\nmax_materialize = 4\nqueue 5\n", []int{5}, "4", ""},
		{"both", "executable = /bin/true\nmax_materialize = 4\nmaterialize_max_idle = 2\nqueue 5\n", []int{5}, "4", "2"},
		{"per-proc arguments", "executable = /bin/true\nmax_idle = 2\narguments = $(Process)\nqueue 3\n", []int{1, 1, 1}, "2147483647", "2"},
		{"items", "executable = /bin/true\nmax_idle = 2\narguments = $(x)\nqueue 2 x in (a, b)\n", []int{2, 2}, "2147483647", "2"},
		{"two statements", "executable = /bin/true\nmax_idle = 2\nqueue 2\narguments = z\nqueue 3\n", []int{2, 3}, "2147483647", "2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, _, err := Parse("job.sub", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			env := benchEnv()
			env.MaxJobs = 100 // a factory is not bound by it
			cl, late, _, err := d.ExpandLate(env)
			if err != nil {
				t.Fatal(err)
			}
			if c.runs == nil {
				if late != nil || cl == nil || len(cl.Procs) != 3 {
					t.Fatalf("late %v, cluster %v", late, cl)
				}
				return
			}
			if cl != nil || late == nil {
				t.Fatalf("not late: cluster %v", cl)
			}
			var got []int
			for _, r := range late.Runs {
				got = append(got, r.N)
			}
			if !equalInts(got, c.runs) {
				t.Fatalf("runs %v, want %v", got, c.runs)
			}
			checkAttr(t, late, "JobMaterializeLimit", c.limit)
			checkAttr(t, late, "JobMaterializeMaxIdle", c.idle)
			env.MaxJobs = 0
			full, _, err := d.Expand(env)
			if err != nil {
				t.Fatal(err)
			}
			p := 0
			for _, r := range late.Runs {
				for range r.N {
					own := r.Ad.Clone()
					own.Set("ProcId", ast.Int(int64(p)))
					want := full.Job(p)
					got := late.Ad.Clone()
					for name, e := range own.All() {
						got.Set(name, e)
					}
					if _, ok := want.Lookup("JobMaterializeLimit"); !ok {
						want.Set("JobMaterializeLimit", ast.Int(1<<31-1)) // max_idle alone
					}
					if !sameAd(got, want) {
						t.Errorf("proc %d:\n%s\nwant\n%s", p, got, want)
					}
					p++
				}
			}
			if p != len(full.Procs) || late.Procs() != p {
				t.Errorf("%d procs, Expand makes %d", p, len(full.Procs))
			}
			js := string(late.AppendJSON(nil))
			if !strings.HasPrefix(js, `{"cluster":{`) || !strings.Contains(js, `"runs":[{"n":`) {
				t.Errorf("JSON %s", js)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func checkAttr(t *testing.T, l *Late, name, want string) {
	t.Helper()
	e, ok := l.Ad.Lookup(name)
	got := ""
	if ok {
		got = ast.String(e)
	}
	if got != want {
		t.Errorf("%s = %q, want %q", name, got, want)
	}
}

// sameAd reports whether two ads have the same attributes, in any order.
func sameAd(a, b *classad.Ad) bool {
	if a.Len() != b.Len() {
		return false
	}
	for name, e := range a.All() {
		f, ok := b.Lookup(name)
		if !ok || ast.String(e) != ast.String(f) {
			return false
		}
	}
	return true
}
