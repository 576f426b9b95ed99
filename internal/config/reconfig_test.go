package config

import (
	"slices"
	"strings"
	"testing"
)

// Changed names the keys whose values differ; a table of names counts as
// one key, and an absent table is the same as an empty one.
func TestChanged(t *testing.T) {
	base := `[schedd]
listen = "127.0.0.1:9000"
`
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"same", base, nil},
		{"a key", `[schedd]
listen = "127.0.0.1:9001"
`, []string{"schedd.listen"}},
		{"a table and a duration", base + `history_retain = 5
[negotiator]
interval = "7s"
[negotiator.limits]
sw_a = 1
`, []string{"negotiator.interval", "negotiator.limits", "schedd.history_retain"}},
		{"an empty table", base + "[negotiator.limits]\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			old, err := Parse("old.toml", base)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := Parse("new.toml", c.text)
			if err != nil {
				t.Fatal(err)
			}
			if got := Changed(old, cfg); !slices.Equal(got, c.want) {
				t.Errorf("Changed = %q, want %q", got, c.want)
			}
		})
	}
}

// Every key said to apply live is a key (or table) of the configuration,
// and the daemon that reads a key is its section's.
func TestLiveKeys(t *testing.T) {
	keys := Default().Keys()
	for _, k := range liveKeys {
		table := strings.HasSuffix(k, ".limits")
		if !table && !slices.Contains(keys, k) {
			t.Errorf("live key %s is not a configuration key", k)
		}
	}
	for key, want := range map[string]string{"schedd.listen": "schedd", "negotiator.limits": "negotiator", "pool.collector": "", "log.level": ""} {
		if got := Daemon(key); got != want {
			t.Errorf("Daemon(%s) = %q, want %q", key, got, want)
		}
	}
}
