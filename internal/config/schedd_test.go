package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestScheddDefaults(t *testing.T) {
	c, err := Parse("/etc/kite/kite.toml", "[pool]\nstate_dir = \"/var/lib/kite\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.Schedd.PeriodicInterval.Duration != time.Minute || c.Schedd.ClaimLease.Duration != time.Minute {
		t.Errorf("defaults %+v", c.Schedd)
	}
	if got := c.SpoolDir(); got != filepath.FromSlash("/var/lib/kite/schedd") {
		t.Errorf("spool %q", got)
	}
	c.Schedd.Spool = "spool"
	if got := c.SpoolDir(); got != filepath.FromSlash("/etc/kite/spool") {
		t.Errorf("spool %q", got)
	}
}

// Bad schedd values name the key and where it was set.
func TestScheddErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"[schedd]\nperiodic_interval = \"0s\"\n", "bad.toml:2:1: schedd.periodic_interval: must be a positive duration"},
		{"[schedd]\nclaim_lease = \"1s\"\n", "bad.toml:2:1: schedd.claim_lease: must be at least 3s"},
		{"[schedd]\nupdate_delay = \"10m\"\n", "bad.toml:2:1: schedd.update_delay: must be between 0 and schedd.update_interval"},
		{"[schedd]\nmax_running_jobs = -1\n", "bad.toml:2:1: schedd.max_running_jobs: must not be negative"},
		{"[schedd]\nhistory_retain = -5\n", "bad.toml:2:1: schedd.history_retain: must not be negative"},
		{"[schedd]\nmax_body_bytes = 10\n", "bad.toml:2:1: schedd.max_body_bytes: must be at least 1 MiB"},
		{"[schedd]\nspool_dir = \"x\"\n", "bad.toml:2:1: schedd.spool_dir: unknown key"},
	}
	for _, tt := range tests {
		c, err := Parse("bad.toml", tt.text)
		if err == nil {
			err = c.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.text, err, tt.want)
		}
	}
}
