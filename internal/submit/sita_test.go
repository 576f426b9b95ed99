package submit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/rogpeppe/go-internal/txtar"
)

// expandWithFile expands a submit file whose queue reads sizes.txt.
func expandWithFile(t testing.TB, sub, sizes string) (*Cluster, []Warning) {
	t.Helper()
	ar := &txtar.Archive{Files: []txtar.File{{Name: "job.sub", Data: []byte(sub)}, {Name: "file:sizes.txt", Data: []byte(sizes)}}}
	d, _, err := Parse("job.sub", []byte(sub))
	if err != nil {
		t.Fatal(err)
	}
	c, warns, err := d.Expand(testEnv(ar))
	if err != nil {
		t.Fatal(err)
	}
	return c, warns
}

// paperSizes is paper 003's 400 jobs, one size per line.
func paperSizes() string {
	var b strings.Builder
	for _, j := range []struct{ size, count int }{
		{12500, 80}, {25000, 160}, {50000, 80}, {100000, 40}, {200000, 20}, {400000, 12}, {800000, 4}, {3200000, 4},
	} {
		for range j.count {
			fmt.Fprintln(&b, j.size)
		}
	}
	return b.String()
}

// sita_fit over paper 003's 400 jobs writes the same k, p and a into every
// job as sita.FitSizes gives, and warns that 400 are too few.
func TestSitaFitPaperJobs(t *testing.T) {
	for _, method := range sita.Methods {
		sub := "executable = /bin/true\nimage_size = $(size)\nsita_fit = " + method + "\nqueue size from sizes.txt\n"
		c, warns := expandWithFile(t, sub, paperSizes())
		if len(c.Procs) != 400 {
			t.Fatalf("%d procs", len(c.Procs))
		}
		want, _ := sita.FitSizes(method, sizesOf(t, c, "ImageSize"))
		for _, i := range []int{0, 399} {
			job := c.Job(i)
			k, p, a := num(t, job, sita.JobMinSize), num(t, job, sita.JobMaxSize), num(t, job, sita.JobVariability)
			if k != 12500 || p != 3.2e6 || a != want.A {
				t.Errorf("%s: job %d has k=%g p=%g a=%g, want 12500, 3.2e6, %g", method, i, k, p, a, want.A)
			}
		}
		if len(warns) != 1 || !strings.Contains(warns[0].String(), "job.sub:3: sita_fit: only 400 sizes: a fit from fewer than 1000 is unreliable") {
			t.Errorf("%s: warnings %v", method, warns)
		}
	}
}

// From 1000 jobs on there is no warning, and the fit recovers the
// distribution the sizes were drawn from.
func TestSitaFitNoWarning(t *testing.T) {
	d := sita.Pareto{K: 1000, P: 1e6, A: 1.2}
	r := rand.New(rand.NewPCG(5, 5))
	var b strings.Builder
	for range 5000 {
		fmt.Fprintln(&b, int64(d.Sample(r)))
	}
	c, warns := expandWithFile(t, "executable = /bin/true\nimage_size = $(size)\nsita_fit = mle\nqueue size from sizes.txt\n", b.String())
	if len(warns) != 0 {
		t.Errorf("warnings %v", warns)
	}
	if a := num(t, c.Job(0), sita.JobVariability); math.Abs(a-1.2) > 0.05 {
		t.Errorf("a = %g, drawn with 1.2", a)
	}
}

func sizesOf(t testing.TB, c *Cluster, attr string) []float64 {
	var s []float64
	for i := range c.Procs {
		s = append(s, num(t, c.Job(i), attr))
	}
	return s
}

func num(t testing.TB, ad *classad.Ad, attr string) float64 {
	t.Helper()
	v, _ := classad.EvalAttr(ad, attr, nil)
	f, ok := v.NumberValue()
	if !ok {
		t.Fatalf("%s = %v", attr, v)
	}
	return f
}

// sita_fit over 100 000 jobs whose sizes are read from a file, as the
// paper's set is: the fit adds a small part to the expansion.
func BenchmarkExpand100kSitaFit(b *testing.B) {
	d := sita.Pareto{K: 1e4, P: 1e7, A: 1.01}
	r := rand.New(rand.NewPCG(1, 1))
	var sizes strings.Builder
	for range 100000 {
		fmt.Fprintln(&sizes, int64(d.Sample(r)))
	}
	for _, fit := range []string{"", "sita_fit = mle\n"} {
		name := "without"
		if fit != "" {
			name = "with"
		}
		b.Run(name, func(b *testing.B) {
			sub := "executable = /bin/sleep\narguments = 60 $(Process)\nimage_size = $(size)\n" + fit + "queue size from sizes.txt\n"
			desc, _, err := Parse("job.sub", []byte(sub))
			if err != nil {
				b.Fatal(err)
			}
			env := benchEnv()
			env.ReadFile = func(string) ([]byte, error) { return []byte(sizes.String()), nil }
			b.ReportAllocs()
			for b.Loop() {
				c, _, err := desc.Expand(env)
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := c.Ad.Lookup(sita.JobVariability); ok != (fit != "") {
					b.Fatal("fit missing or unexpected")
				}
			}
		})
	}
}
