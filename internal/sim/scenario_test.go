package sim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/tomlstrict"
)

const minimal = `
[[machines]]
[[workload]]
size = 1
[[policy]]
`

func TestParseValues(t *testing.T) {
	sc := parse(t, `
name = "values"
seeds = [5, 6]
unit = "min"
duration = "2990m"
[pool]
dispatch = "queue"
interval = "2m"
cycle_delay = 0.5
requeue_delay = "16m"
significant = ["KiteWork"]
[[machines]]
name = "fast"
count = 10
speed = { dist = "normal", mean = 50, sd = 10 }
benchmark = 4000
attrs = { HasJava = "true", Site = '"lab"' }
failure = { per_minute = 0.02, safe = "1h", ramp = "40m", changes = [{ at = "1000m", per_minute = 0.0 }] }
schedule = { period = "1d", up = "8h" }
load = { to_loaded = 0.001, to_steady = 0.01, steady = [0.95, 1.0], loaded = [0.0, 0.05] }
[[workload]]
type = "long"
owner = "alice"
count = 500
size = "120m"
arrival = { at = "50m" }
[[workload]]
type = "tasks"
count = 256
size = { dist = "uniform", min = 2e6, max = 6e6 }
same_tasks = true
arrival = { process = "batches", batch = 128, every = 50 }
[[policy]]
strategy = "round-robin"
params = { key = "Machine" }
[[policy]]
name = "sita"
sita = { intervals = 4, k = 1e4, p = 1e7, a = 1.01 }
`)
	if sc.Name != "values" || sc.Unit != "min" || len(sc.Seeds) != 2 || sc.Seeds[1] != 6 || len(sc.Setups) != 1 {
		t.Fatalf("scenario %+v", sc)
	}
	st := sc.Setups[0]
	if st.Duration != 2990*60 || st.Pool.Interval != 120 || st.Pool.CycleDelay != 0.5 || st.Pool.RequeueDelay != 960 {
		t.Errorf("times %v %v %v %v", st.Duration, st.Pool.Interval, st.Pool.CycleDelay, st.Pool.RequeueDelay)
	}
	m := st.Machines[0]
	if m.Speed.Kind != "normal" || m.Speed.Mean != 50 || m.Benchmark.Value != 4000 || len(m.Attrs) != 2 {
		t.Errorf("machines %+v", m)
	}
	if f := m.Failure; f.PerMinute != 0.02 || f.Safe != 3600 || f.Ramp != 2400 || f.Changes[0].At != 60000 {
		t.Errorf("failure %+v", f)
	}
	if s := m.Schedule; s.Period != 86400 || s.Up != 8*3600 {
		t.Errorf("schedule %+v", s)
	}
	if l := m.Load; l.ToLoaded != 0.001 || l.Steady != [2]float64{0.95, 1} || l.Step != 1 {
		t.Errorf("load %+v", l)
	}
	if w := st.Workload[0]; w.Size.Value != 7200 || w.Arrival.At != 3000 || w.Owner != "alice" || w.Count != 500 {
		t.Errorf("workload %+v", w)
	}
	if w := st.Workload[1]; w.Arrival.Batch != 128 || w.Arrival.Every != 50 || !w.SameTasks {
		t.Errorf("workload %+v", w)
	}
	if p := st.Policies[0]; p.Name != "round-robin" || p.Params["key"] != "Machine" || p.Dispatch != Queue {
		t.Errorf("policy %+v", p)
	}
	if s := st.Policies[1].Sita; s == nil || s.Intervals != 4 || s.Source != sita.SourceConfig || s.Fit != "" || s.Attribute != "KiteWork" {
		t.Errorf("sita %+v", s)
	}
}

func TestVary(t *testing.T) {
	sc := parse(t, `
[[machines]]
[[workload]]
size = { dist = "pareto", k = 1, p = 100, a = 1.1 }
[[workload]]
size = 3
arrival = { process = "poisson", rate = 1 }
[[policy]]
[vary]
key = "workload[1].arrival.rate"
values = [0.5, 2]
`)
	if len(sc.Setups) != 2 || sc.Vary != "workload[1].arrival.rate" || sc.Setups[1].Label != "rate=2" {
		t.Fatalf("setups %d vary %q", len(sc.Setups), sc.Vary)
	}
	if sc.Setups[0].Workload[1].Arrival.Rate != 0.5 || sc.Setups[1].Workload[1].Arrival.Rate != 2 {
		t.Errorf("rates %v and %v", sc.Setups[0].Workload[1].Arrival.Rate, sc.Setups[1].Workload[1].Arrival.Rate)
	}
	sc = parse(t, `
[[machines]]
[[workload]]
size = { dist = "pareto", k = 1, p = 100, a = 1.1 }
[[workload]]
size = { dist = "pareto", k = 1, p = 100, a = 1.1 }
[[policy]]
[vary]
key = "workload.size.a"
values = [1.5, 1.9]
`)
	for _, w := range sc.Setups[1].Workload {
		if w.Size.Pareto.A != 1.9 {
			t.Errorf("a = %v in the second setup, want 1.9 in every group", w.Size.Pareto.A)
		}
	}
}

// Bad scenarios: each error says where (file:line:col) and what.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"syntax", "seeds = [1,\nname = 3", []string{"test.toml:2:"}},
		{"unknown top", "colour = 1" + minimal, []string{"test.toml:1:1: colour: unknown key"}},
		{"nothing", "", []string{"a scenario needs at least one [[machines]] group", "[[workload]]", "[[policy]]"}},
		{"unknown in array", minimal + "\n[[machines]]\nname = \"b\"\nspeeed = 2\n",
			[]string{"test.toml:9:1: machines[1].speeed: unknown key"}},
		{"bad dispatch", "[pool]\ndispatch = \"push\"\n" + minimal, []string{`test.toml:2:1: pool.dispatch: "push": must be one of pull, queue`}},
		{"bad duration", "duration = \"soon\"\n" + minimal, []string{`test.toml:1:1: duration: "soon" is not a duration`}},
		{"negative count", "[[machines]]\ncount = -1\n[[workload]]\nsize = 1\n[[policy]]\n", []string{"test.toml:2:1: machines[0].count: -1: must be between 1"}},
		{"inline key", "[[machines]]\nfailure = { per_minute = 2 }\n[[workload]]\nsize = 1\n[[policy]]\n",
			[]string{"test.toml:2:13: machines[0].failure.per_minute: 2: must be between 0 and 1"}},
		{"nested inline", "[[machines]]\nfailure = { changes = [{ at = 5, per_minute = 0.1 }, { at = 1, per_minute = 0 }] }\n[[workload]]\nsize = 1\n[[policy]]\n",
			[]string{"test.toml:2:56: machines[0].failure.changes[1].at: changes must come in order of time"}},
		{"bad expression", "[[machines]]\n[[workload]]\nsize = 1\nrequirements = \"TARGET.Memory >\"\n[[policy]]\n",
			[]string{"test.toml:4:32: workload[0].requirements: expected an expression"}},
		{"bad attr expression", "[[machines]]\nattrs = { Foo = \"1 +\" }\n[[workload]]\nsize = 1\n[[policy]]\n",
			[]string{"test.toml:2:21: machines[0].attrs.Foo:"}},
		{"bad affinity", "[[machines]]\naffinity = 'TARGET.Vector ?'\n[[workload]]\nsize = 1\n[[policy]]\n",
			[]string{"test.toml:2:"}},
		{"bad dist", "[[machines]]\n[[workload]]\nsize = { dist = \"pareto\", k = 10, p = 5, a = 1 }\n[[policy]]\n",
			[]string{"test.toml:3:1: workload[0].size:"}},
		{"missing dist field", "[[machines]]\n[[workload]]\nsize = { dist = \"uniform\", min = 1 }\n[[policy]]\n",
			[]string{"workload[0].size: uniform needs max"}},
		{"negative size", "[[machines]]\n[[workload]]\nsize = -3\n[[policy]]\n", []string{"workload[0].size: value -3: must be positive"}},
		{"counts", "[[machines]]\n[[workload]]\ncount = 5\nsize = { values = [1, 2], counts = [1, 2] }\n[[policy]]\n",
			[]string{"test.toml:3:1: workload[0].count: count 5 differs from the 3 sizes the counts give"}},
		{"batches", "[[machines]]\n[[workload]]\ncount = 5\nsize = 1\narrival = { process = \"batches\", batch = 2, every = 1 }\n[[policy]]\n",
			[]string{"workload[0].arrival.batch: 5 jobs do not make whole batches of 2"}},
		{"poisson", "[[machines]]\n[[workload]]\nsize = 1\narrival = { process = \"poisson\" }\n[[policy]]\n",
			[]string{"workload[0].arrival: process \"poisson\" needs rate"}},
		{"strategy", "[[machines]]\n[[workload]]\nsize = 1\n[[policy]]\nstrategy = \"nope\"\n",
			[]string{`test.toml:5:1: policy[0].strategy: unknown strategy "nope"`}},
		{"params", "[[machines]]\n[[workload]]\nsize = 1\n[[policy]]\nstrategy = \"random\"\nparams = { x = 1 }\n",
			[]string{`policy[0].params: strategy "random" takes no parameters`}},
		{"twice", "[[machines]]\n[[workload]]\nsize = 1\n[[policy]]\n[[policy]]\n", []string{`policy name "condor" is used twice`}},
		{"sita attribute", "[[machines]]\n[[workload]]\nsize = 1\n[[policy]]\nsita = { intervals = 2, attribute = \"ImageSize\" }\n",
			[]string{"workload[0] does not write its sizes into ImageSize"}},
		{"sita both", "[[machines]]\n[[workload]]\nsize = 1\n[[policy]]\nsita = { intervals = 2, k = 1, p = 2, a = 1, fit = \"mle\" }\n",
			[]string{"give k, p and a, or fit, not both"}},
		{"vary key", minimal + "[vary]\nkey = \"seeds\"\nvalues = [1]\n", []string{"only duration, sample, pool, machines, workload and policy keys can vary"}},
		{"vary value", "[[machines]]\n[[workload]]\nsize = 1\n[[policy]]\n[vary]\nkey = \"workload.size\"\nvalues = [2, -1]\n",
			[]string{"test.toml:7:14: workload[0].size: value -1: must be positive"}},
		{"vary path", minimal + "[vary]\nkey = \"workload[3].size\"\nvalues = [1]\n", []string{"workload has 1 elements: no element 3"}},
		{"file", "[[machines]]\n[[workload]]\nfile = \"nope.json\"\n[[policy]]\n", []string{"test.toml:3:1: workload[0].file: open", "nope.json"}},
		{"file and size", "[[machines]]\n[[workload]]\nfile = \"testdata/history.json\"\nsize = 3\n[[policy]]\n",
			[]string{"workload[0].size: a workload read from a file takes its jobs from the file"}},
		{"down", "[[machines]]\ndown = [[5, 1]]\n[[workload]]\nsize = 1\n[[policy]]\n", []string{"machines[0].down[0]: want 0 <= from < to"}},
		{"schedule", "[[machines]]\nschedule = { period = \"1h\", up = \"2h\" }\n[[workload]]\nsize = 1\n[[policy]]\n", []string{"want 0 < up <= period"}},
		{"same machine names", "[[machines]]\n[[machines]]\n[[workload]]\nsize = 1\n[[policy]]\n", []string{`machines[1].name: "host" names another group too`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("test.toml", tc.text)
			if err == nil {
				t.Fatalf("no error for\n%s", tc.text)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nlacks %q", err, w)
				}
			}
		})
	}
}

// Every example scenario reads without errors, and the small ones run.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/sim/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(minimal)
	f.Add(heavy)
	f.Add(paper003)
	for _, name := range []string{"../../examples/sim/joschka-a.toml", "../../examples/sim/paper002-no-passing.toml"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(string(data))
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		sc, err := Parse("fuzz.toml", text)
		if err != nil {
			var e *tomlstrict.Error
			if !errors.As(err, &e) {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		if len(sc.Setups) == 0 {
			t.Fatal("a scenario without setups")
		}
	})
}
