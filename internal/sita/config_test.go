package sita_test

import (
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/sita"
)

// HostConfig mirrors config.Sita field for field, so that the startd
// converts its [startd.sita] section with sita.HostConfig(cfg.Startd.Sita),
// and whatever config validates HostAd accepts.
func TestHostConfigFromConfig(t *testing.T) {
	c, err := config.Parse("pool.toml", `
[startd.sita]
intervals = 4
source = "config"
k = 1e4
p = 1e7
a = 1.01

[startd.sita.hosts]
"l03.math.spbu.ru" = 3
`)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	attrs, req, err := sita.HostAd(sita.HostConfig(c.Startd.Sita), "l03.math.spbu.ru", "slot1@l03.math.spbu.ru")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range attrs {
		got[a.Name] = classad.String(a.Expr)
	}
	for name, want := range map[string]string{"SitaInterval": "3", "SitaLowerBound": "2.9792096521", "SitaUpperBound": "1.6996100768"} {
		if !strings.HasPrefix(got[name], want) {
			t.Errorf("%s = %s, want %s...", name, got[name], want)
		}
	}
	if !strings.Contains(req, "TARGET.ImageSize >= MY.SitaLowerBound && TARGET.ImageSize < MY.SitaUpperBound") {
		t.Errorf("clause %s", req)
	}
	// The defaults: SITA-E off.
	if attrs, req, err := sita.HostAd(sita.HostConfig(config.Default().Startd.Sita), "h", ""); attrs != nil || req != "" || err != nil {
		t.Errorf("defaults: %v %q %v", attrs, req, err)
	}
}
