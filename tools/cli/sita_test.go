package cli

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/submit"
)

// runKite runs kite with args and returns its standard output.
func runKite(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := Run(args, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("kite %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
	}
	return out.String()
}

// What kite sita config writes, a startd reads: each block validates,
// converts to sita.HostConfig and gives each host the interval planned
// for it, per host or through the shared table.
func TestSitaConfigOutputConfigures(t *testing.T) {
	hosts := []string{"l02.math.spbu.ru", "l03", "l04", "l05", "l06", "l07", "l08", "l09"}
	want := []int{1, 1, 2, 2, 3, 3, 4, 4}
	for _, params := range [][]string{{"--k", "1e4", "--p", "1e7", "--a", "1.01"}, {}} {
		base := append([]string{"sita", "config", "-n", "4", "--hosts", strings.Join(hosts, ",")}, params...)
		blocks := strings.Split(runKite(t, base...), "[startd.sita]\n")[1:]
		if len(blocks) != len(hosts) {
			t.Fatalf("%d blocks for %d hosts", len(blocks), len(hosts))
		}
		for j, b := range blocks {
			checkHost(t, "[startd.sita]\n"+b, hosts[j], want[j])
		}
		table := runKite(t, append(base, "--table")...)
		for j, h := range hosts {
			checkHost(t, table, h, want[j])
		}
	}
}

// checkHost checks that the configuration text puts host in interval.
func checkHost(t *testing.T, text, host string, interval int) {
	t.Helper()
	c, err := config.Parse("sita.toml", text)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		t.Fatalf("%v in\n%s", err, text)
	}
	attrs, _, err := sita.HostAd(sita.HostConfig(c.Startd.Sita), host, "slot1@"+host)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range attrs {
		if a.Name == sita.AttrInterval {
			if got := classad.String(a.Expr); got != strconv.Itoa(interval) {
				t.Errorf("%s: interval %s, want %d", host, got, interval)
			}
			return
		}
	}
	t.Errorf("%s: no %s in %v", host, sita.AttrInterval, attrs)
}

// The example of examples/sita: each host file and the personal pool's
// table give the intended intervals, and the 400 jobs of paper.sub, matched
// against the four hosts' slot ads by the real evaluator, each land on
// exactly one host, with the paper's loads and M.
func TestSitaExample(t *testing.T) {
	const dir = "../../examples/sita"
	var hosts []*classad.Ad
	for i := 1; i <= 4; i++ {
		file := fmt.Sprintf("%s/host%d.toml", dir, i)
		hc := exampleConfig(t, file)
		hosts = append(hosts, slotAd(t, hc, "host"+strconv.Itoa(i), "slot1@host"+strconv.Itoa(i), i))
	}
	personal := exampleConfig(t, dir+"/personal.toml")
	for k := 1; k <= 16; k++ {
		slotAd(t, personal, "sita", fmt.Sprintf("slot%d@sita", k), (k+3)/4)
	}

	src, err := os.ReadFile(dir + "/paper.sub")
	if err != nil {
		t.Fatal(err)
	}
	d, warns, err := submit.Parse("paper.sub", src)
	if err != nil || len(warns) > 0 {
		t.Fatalf("paper.sub: %v %v", err, warns)
	}
	cluster, warns, err := d.Expand(submit.LocalEnv(dir))
	if err != nil || len(warns) > 0 || len(cluster.Procs) != 400 {
		t.Fatalf("paper.sub: %v %v", err, warns)
	}
	req, _ := classad.Compile("MY.Requirements")
	loads := make([]float64, 4)
	for i := range cluster.Procs {
		job := cluster.Job(i)
		size := numAttr(t, job, "ImageSize")
		var on []int
		for h, slot := range hosts {
			if v, _ := classad.Eval(req, slot, job); v.IsTrue() {
				on = append(on, h+1)
			}
		}
		if len(on) != 1 {
			t.Fatalf("job %d (size %g) matches hosts %v", i, size, on)
		}
		loads[on[0]-1] += size
	}
	if m, _, pct := sita.Imbalance(loads); fmt.Sprint(loads) != "[9e+06 8e+06 8e+06 1.28e+07]" || m != 1.675e6 || fmt.Sprintf("%.1f", pct) != "17.7" {
		t.Errorf("loads %v, M %g (%.1f %%)", loads, m, pct)
	}
}

// exampleConfig reads a configuration file and its SITA-E setting.
func exampleConfig(t *testing.T, file string) sita.HostConfig {
	t.Helper()
	c, err := config.Load(file)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		t.Fatal(err)
	}
	return sita.HostConfig(c.Startd.Sita)
}

// slotAd makes the SITA-E part of a slot's ad, checking its interval; its
// Requirements is the clause alone.
func slotAd(t *testing.T, hc sita.HostConfig, host, slot string, interval int) *classad.Ad {
	t.Helper()
	attrs, clause, err := sita.HostAd(hc, host, slot)
	if err != nil {
		t.Fatal(err)
	}
	ad := classad.NewAd()
	for _, a := range attrs {
		ad.Set(a.Name, a.Expr)
	}
	if got := str(ad, sita.AttrInterval); got != strconv.Itoa(interval) {
		t.Errorf("%s: interval %s, want %d", slot, got, interval)
	}
	e, err := classad.ParseExpr(clause)
	if err != nil {
		t.Fatal(err)
	}
	ad.Set("Requirements", e)
	return ad
}

func numAttr(t *testing.T, ad *classad.Ad, name string) float64 {
	t.Helper()
	v, _ := classad.EvalAttr(ad, name, nil)
	f, ok := v.NumberValue()
	if !ok {
		t.Fatalf("%s = %v", name, v)
	}
	return f
}
