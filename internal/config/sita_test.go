package config

import (
	"strings"
	"testing"
)

// A central table serves a pool: every host reads the same file.
func TestSitaTable(t *testing.T) {
	c, err := Parse("pool.toml", `
[startd.sita]
intervals = 4
source = "config"
k = 10000
p = 1e7
a = 1.01

[startd.sita.hosts]
"l02.math.spbu.ru" = 1
l03 = 1
"slot1@l04.math.spbu.ru" = 2
`)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	s := c.Startd.Sita
	if s.K != 1e4 || s.P != 1e7 || s.A != 1.01 || s.Hosts["l03"] != 1 || s.Hosts["slot1@l04.math.spbu.ru"] != 2 || s.Attribute != "ImageSize" {
		t.Errorf("got %+v", s)
	}
}

// Each problem names the file, line and key.
func TestSitaValidate(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"interval range", "[startd.sita]\nintervals = 4\ninterval = 5\n", "h.toml:3:1: startd.sita.interval: 5: must be between 1 and intervals = 4"},
		{"no interval", "[startd.sita]\nintervals = 4\n", "startd.sita.interval: SITA-E is on (intervals = 4): set this host's interval, 1..4, or a [startd.sita.hosts] table"},
		{"negative intervals", "[startd.sita]\nintervals = -2\n", "h.toml:2:1: startd.sita.intervals: -2: must be between 0 (off) and 65536"},
		{"source", "[startd.sita]\nintervals = 2\ninterval = 1\nsource = \"jobs\"\n", `h.toml:4:1: startd.sita.source: "jobs" is not job or config`},
		{"attribute", "[startd.sita]\nintervals = 2\ninterval = 1\nattribute = \"Image Size\"\n", `h.toml:4:1: startd.sita.attribute: "Image Size" is not a ClassAd attribute name`},
		{"keyword", "[startd.sita]\nintervals = 2\ninterval = 1\nattribute = \"Undefined\"\n", `startd.sita.attribute: "Undefined" is not a ClassAd attribute name`},
		{"config needs k", "[startd.sita]\nintervals = 2\ninterval = 1\nsource = \"config\"\np = 10.0\na = 1.0\n", "startd.sita.k: 0: the smallest size must be positive with source = config"},
		{"k < p", "[startd.sita]\nintervals = 2\ninterval = 1\nsource = \"config\"\nk = 10.0\np = 10.0\na = 1.0\n", "h.toml:6:1: startd.sita.p: 10: the largest size must be above k = 10 with source = config"},
		{"a > 0", "[startd.sita]\nintervals = 2\ninterval = 1\nsource = \"config\"\nk = 1.0\np = 10.0\na = -1.0\n", "h.toml:7:1: startd.sita.a: -1: the variability must be positive"},
		{"a finite", "[startd.sita]\nintervals = 2\ninterval = 1\nsource = \"config\"\nk = 1.0\np = 10.0\na = inf\n", "startd.sita.a: +Inf: the variability must be positive"},
		{"job fallback incomplete", "[startd.sita]\nintervals = 2\ninterval = 1\nk = 1.0\np = 10.0\n", "startd.sita.a: 0: the variability must be positive for jobs without their own parameters (or leave k, p and a all unset)"},
		{"table interval", "[startd.sita]\nintervals = 2\n\n[startd.sita.hosts]\nok = 1\n\"bad.example.org\" = 3\n", `h.toml:6:1: startd.sita.hosts."bad.example.org": interval 3: must be between 1 and intervals = 2`},
		{"table duplicate", "[startd.sita]\nintervals = 2\n\n[startd.sita.hosts]\nL02 = 1\nl02 = 2\n", `startd.sita.hosts.l02: the same name as "L02"`},
	}
	for _, tt := range tests {
		c, err := Parse("h.toml", tt.text)
		if err == nil {
			err = c.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
}

// With SITA-E off the rest of the section is not checked; the defaults
// validate; environment overrides reach the numbers.
func TestSitaOffAndEnv(t *testing.T) {
	c, err := Parse("h.toml", "[startd.sita]\nintervals = 0\ninterval = 9\nsource = \"bogus\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("SITA-E off: %v", err)
	}
	d := Default()
	env := map[string]string{"KITE_STARTD_SITA_INTERVALS": "4", "KITE_STARTD_SITA_INTERVAL": "2", "KITE_STARTD_SITA_A": "1.01"}
	if err := d.applyEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	if s := d.Startd.Sita; s.Intervals != 4 || s.Interval != 2 || s.A != 1.01 || s.Source != "job" {
		t.Errorf("env: %+v", s)
	}
	d.Startd.Sita.A = 0
	if err := d.Validate(); err != nil {
		t.Errorf("job source, interval 2 of 4: %v", err)
	}
}
