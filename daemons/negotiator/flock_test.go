package negotiator

import (
	"maps"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// The schedds of other pools (HTCondor's flocking: their submitter ads,
// marked by the collector) are called with the flock token for their
// pool; an address this pool's own submitter ads name stays this pool's.
func TestScheddPools(t *testing.T) {
	sub := func(addr, pool string) *classad.Ad {
		ad := classad.NewAd()
		ad.Set(attr.MyAddress, ast.Str(addr))
		if pool != "" {
			ad.Set(attr.FlockedFrom, ast.Str(pool))
		}
		return ad
	}
	tests := []struct {
		name string
		subs []*classad.Ad
		want map[string]string
	}{
		{"this pool's", []*classad.Ad{sub("s1:1", "")}, map[string]string{}},
		{"another pool's", []*classad.Ad{sub("s1:1", ""), sub("a:1", "pool-a")}, map[string]string{"a:1": "pool-a"}},
		{"another pool's naming this pool's schedd", []*classad.Ad{sub("s1:1", "pool-a"), sub("s1:1", "")}, map[string]string{}},
		{"no address", []*classad.Ad{sub("", "pool-a")}, map[string]string{}},
	}
	for _, tt := range tests {
		if got := scheddPools(tt.subs); !maps.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
