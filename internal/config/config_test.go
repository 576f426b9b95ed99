package config

import (
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/configs"
)

func TestDefaultsValidate(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Collector.AdLifetime.Duration != 15*time.Minute || c.Negotiator.Interval.Duration != time.Minute {
		t.Errorf("defaults: lifetime %v interval %v", c.Collector.AdLifetime, c.Negotiator.Interval)
	}
}

// Every example configuration decodes strictly and validates.
func TestExamples(t *testing.T) {
	err := fs.WalkDir(configs.Examples, "examples", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(configs.Examples, path)
		if err != nil {
			return err
		}
		c, err := Parse(path, string(data))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFileOverridesDefaults(t *testing.T) {
	c, err := Parse("host.toml", `
[pool]
name = "lab"
collector = "cm.example.org:9618"

[collector]
ad_lifetime = "90s"

[master]
daemons = ["startd"]
`)
	if err != nil {
		t.Fatal(err)
	}
	if c.Pool.Name != "lab" || c.Collector.AdLifetime.Duration != 90*time.Second || len(c.Master.Daemons) != 1 {
		t.Errorf("got %+v %+v %+v", c.Pool, c.Collector, c.Master)
	}
	if c.Negotiator.Interval.Duration != time.Minute {
		t.Errorf("a default was lost: %v", c.Negotiator.Interval)
	}
	if o := c.Origin("collector.ad_lifetime"); o.String() != "host.toml:7:1" {
		t.Errorf("origin %s", o)
	}
	if o := c.Origin("negotiator.interval"); o.String() != "default" {
		t.Errorf("origin %s", o)
	}
}

// Bad input names file:line:col and what is wrong.
func TestErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unknown key", "[collector]\nlisten = \"a:1\"\n  ad_lifetim = \"1m\"\n", "bad.toml:3:3: collector.ad_lifetim: unknown key"},
		{"unknown section", "[colector]\nlisten = \"x\"\n", "bad.toml:2:1: colector.listen: unknown key"},
		{"bad duration", "[negotiator]\ninterval = \"soon\"\n", `bad.toml:2:13: invalid duration "soon" (use a number with a unit: 250ms, 90s, 5m, 1h) (key negotiator.interval)`},
		{"wrong type", "[collector]\nmax_body_bytes = \"big\"\n", "bad.toml:2:1: collector.max_body_bytes: incompatible types"},
		{"syntax", "[pool\nname = 1\n", "bad.toml:2:6: expected '.' or ']'"},
	}
	for _, tt := range tests {
		_, err := Parse("bad.toml", tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestValidateNamesThePlace(t *testing.T) {
	c, err := Parse("host.toml", "[log]\nlevel = \"loud\"\n\n[master]\ndaemons = [\"startd\", \"shadow\"]\n\n[negotiator]\ninterval = \"-1s\"\n")
	if err != nil {
		t.Fatal(err)
	}
	err = c.Validate()
	for _, want := range []string{
		`host.toml:2:1: log.level: "loud" is not one of debug, info, warn, error`,
		`host.toml:5:1: master.daemons: unknown daemon "shadow"`,
		`host.toml:8:1: negotiator.interval: must be a positive duration`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
}

func TestEnvAndFlags(t *testing.T) {
	c := Default()
	env := map[string]string{"KITE_COLLECTOR_LISTEN": "0.0.0.0:9000", "KITE_MASTER_DAEMONS": "schedd, startd"}
	if err := c.applyEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	if c.Collector.Listen != "0.0.0.0:9000" || strings.Join(c.Master.Daemons, "|") != "schedd|startd" {
		t.Errorf("env: %s %v", c.Collector.Listen, c.Master.Daemons)
	}
	if o := c.Origin("collector.listen"); o.String() != "environment KITE_COLLECTOR_LISTEN" {
		t.Errorf("origin %s", o)
	}
	if err := c.Set("negotiator.interval", "5s"); err != nil || c.Negotiator.Interval.Duration != 5*time.Second {
		t.Errorf("Set: %v %v", err, c.Negotiator.Interval)
	}
	if err := c.Set("negotiator.intervall", "5s"); err == nil {
		t.Error("Set accepted an unknown key")
	}
	bad := func(string) (string, bool) { return "maybe", true }
	if err := Default().applyEnv(bad); err == nil || !strings.Contains(err.Error(), "KITE_") {
		t.Errorf("bad environment value: %v", err)
	}
}

func TestShow(t *testing.T) {
	c, _ := Parse("h.toml", "[collector]\nad_lifetime = \"2m\"\n")
	var b strings.Builder
	if err := c.Show(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[collector]\n", `ad_lifetime = "2m0s"  # h.toml:2:1`, `interval = "1m0s"  # default`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, b.String())
		}
	}
}
