package cli

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/sita"
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
