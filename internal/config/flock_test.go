package config

import (
	"strings"
	"testing"
)

// Flocking's keys (HTCondor's FLOCK_TO and FLOCK_FROM, "Connecting
// HTCondor Pools with Flocking"): every pool named is a peer with a key,
// a pool flocked to has collectors, no peer has this pool's name, a
// peer's flock token file is for a pool this host flocks with.
func TestValidateFlock(t *testing.T) {
	const peers = "[pool.peers.b]\ncollectors = [\"cm.b:9618\"]\npublic_key = \"b.pub\"\n"
	tests := []struct{ name, text, want string }{
		{"good", "[pool]\nflock_from = [\"b\"]\n[schedd]\nflock_to = [\"b\"]\n" + peers, ""},
		{"unknown pool", "[schedd]\nflock_to = [\"c\"]\n" + peers, `host.toml:2:1: schedd.flock_to: pool "c" has no [pool.peers.c] table`},
		{"unknown pool trusted", "[pool]\nflock_from = [\"c\"]\n", `host.toml:2:1: pool.flock_from: pool "c" has no [pool.peers.c] table`},
		{"twice", "[schedd]\nflock_to = [\"b\", \"b\"]\n" + peers, `schedd.flock_to: pool "b" is listed twice`},
		{"no collectors", "[schedd]\nflock_to = [\"b\"]\n[pool.peers.b]\npublic_key = \"b.pub\"\n", `pool.peers.b.collectors: pool "b" of schedd.flock_to needs its collectors' host:port`},
		{"no key", "[pool]\nflock_from = [\"b\"]\n[pool.peers.b]\ncollectors = []\n", `pool.peers.b.public_key: pool "b" needs its public key file`},
		{"bad address", "[pool.peers.b]\ncollectors = [\"cm.b\"]\npublic_key = \"b.pub\"\n", `pool.peers.b.collectors: "cm.b" is not an address host:port`},
		{"own name", "[pool.peers.kite]\npublic_key = \"k.pub\"\n", `pool.peers.kite: a peer has this pool's own name "kite"`},
		{"a token file", "[pool]\nflock_from = [\"b\"]\n" + peers + "token_file = \"b.token\"\n", ""},
		{"a token file for no one", peers + "token_file = \"b.token\"\n", `host.toml:4:1: pool.peers.b.token_file: pool "b" is in neither pool.flock_from nor schedd.flock_to: no daemon here calls it`},
		{"no delay", "[schedd]\nflock_to = [\"b\"]\nflock_after = \"0s\"\n" + peers, `schedd.flock_after: must be a positive duration`},
	}
	for _, tt := range tests {
		c, err := Parse("host.toml", tt.text)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		err = c.Validate()
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
