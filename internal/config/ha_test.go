package config

import (
	"slices"
	"strings"
	"testing"
)

// pool.collectors replaces pool.collector, unless a later layer names one
// collector (HTCondor's -pool HOST): HTCondor manual, "High Availability
// of the Central Manager" (COLLECTOR_HOST lists several collectors).
func TestCollectorAddrs(t *testing.T) {
	tests := []struct {
		name, text string
		set        []string
		want       []string
		first      string
	}{
		{"one collector", "[pool]\ncollector = \"cm:9618\"\n", nil, []string{"cm:9618"}, "cm:9618"},
		{"several", "[pool]\ncollectors = [\"cm1:9618\", \"cm2:9618\"]\n", nil, []string{"cm1:9618", "cm2:9618"}, "cm1:9618"},
		{"a flag names one", "[pool]\ncollectors = [\"cm1:9618\", \"cm2:9618\"]\n", []string{"pool.collector=other:9618"},
			[]string{"other:9618"}, "other:9618"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := loadStartd(t, tt.text)
			for _, kv := range tt.set {
				k, v, _ := strings.Cut(kv, "=")
				if err := c.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := c.Pool.CollectorAddrs(); !slices.Equal(got, tt.want) || c.Pool.Collector != tt.first {
				t.Errorf("collectors %v, collector %q; want %v, %q", got, c.Pool.Collector, tt.want, tt.first)
			}
		})
	}
}

func TestHAErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"bad collector", "[pool]\ncollectors = [\"cm1:9618\", \"cm2\"]\n",
			`:2:1: pool.collectors: "cm2" is not an address host:port`},
		{"collector twice", "[pool]\ncollectors = [\"cm1:9618\", \"cm1:9618\"]\n",
			`:2:1: pool.collectors: "cm1:9618" is listed twice`},
		{"peers without bind", "[negotiator.raft]\npeers = [\"cm1:9620\"]\n",
			`:2:1: negotiator.raft.peers: needs negotiator.raft.bind`},
		{"bind not among peers", "[negotiator.raft]\nbind = \"cm1:9620\"\npeers = [\"cm2:9620\", \"cm3:9620\"]\n",
			`:3:1: negotiator.raft.peers: must list this negotiator's own negotiator.raft.bind "cm1:9620"`},
		{"port 0", "[negotiator.raft]\nbind = \"cm1:0\"\npeers = [\"cm1:0\"]\n",
			`:2:1: negotiator.raft.bind: needs a fixed port`},
		{"every interface", "[negotiator.raft]\nbind = \"0.0.0.0:9620\"\npeers = [\"0.0.0.0:9620\"]\n",
			`:2:1: negotiator.raft.bind: "0.0.0.0:9620": name a host the other central managers reach`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, file := loadStartd(t, tt.text)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), file+tt.want) {
				t.Errorf("got %v, want %s%s", err, file, tt.want)
			}
		})
	}
}
