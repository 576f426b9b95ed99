package negotiator

import (
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// Flocking (HTCondor's FLOCK_FROM): the collector holds the submitter ads
// of the schedds of other pools, each marked by the collector with its
// pool (KiteFlockedFrom). The negotiator asks those schedds for their
// requests and sends them matches as it does this pool's, but presents to
// each a flock token for its pool, never this pool's DAEMON token, which
// that pool could replay here.

// scheddPools maps the address of each schedd of another pool in subs to
// that pool, by the mark the collector gave its submitter ads. An address
// that a submitter ad of this pool names too stays this pool's: another
// pool's ad cannot turn the calls to this pool's schedd into refused
// ones. (Another pool's ad can name any address, but the flock token sent
// there is for that pool alone: any other daemon refuses it.)
func scheddPools(subs []*classad.Ad) map[string]string {
	pools := map[string]string{}
	home := map[string]bool{}
	for _, ad := range subs {
		addr := classad.EvalStringOr(ad, attr.MyAddress, "")
		switch pool := classad.EvalStringOr(ad, attr.FlockedFrom, ""); {
		case addr == "":
		case pool == "":
			home[addr] = true
		default:
			pools[addr] = pool
		}
	}
	for addr := range home {
		delete(pools, addr)
	}
	return pools
}
