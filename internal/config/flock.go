package config

import (
	"net"
	"slices"
)

// Flocking between pools: pool.peers describes other pools, pool.flock_from
// names those whose schedds may flock here, schedd.flock_to those this
// schedd's jobs may flock to (docs/install.md, "Two flocking pools").

// Peer is another pool, as this host knows it.
type Peer struct {
	// Collectors lists the host:port of the other pool's collectors, where
	// a schedd that flocks to it sends its submitter ads (each of them).
	// Needed for the pools of schedd.flock_to.
	Collectors []string `toml:"collectors"`
	// PublicKey is the other pool's public key file (PEM, its pool.pub),
	// relative to this file's directory: the daemons here verify with it
	// the flock tokens that pool issues for this one.
	PublicKey string `toml:"public_key"`
	// TokenFile is, on a host without the pool's signing key, the file of
	// the flock token its daemons present to the other pool's daemons
	// (FLOCK only, for that pool alone: kite token create --flock-for NAME
	// on the central manager), relative to this file's directory. Daemons
	// with the signing key issue their own and never read it.
	TokenFile string `toml:"token_file"`
}

func init() { extraValidators = append(extraValidators, validateFlock) }

// validateFlock checks that every pool flock_from and flock_to name is a
// peer with a public key, that the pools a schedd flocks to have
// collectors, and that no peer has this pool's name (tokens name their
// pool, and a peer's must be told from this pool's).
func validateFlock(c *Config) []error {
	var errs []error
	check := func(ok bool, key, format string, args ...any) {
		if !ok {
			errs = append(errs, c.errorAt(key, format, args...))
		}
	}
	peer := func(key, name string) (Peer, bool) {
		p, ok := c.Pool.Peers[name]
		check(ok, key, "pool %q has no [pool.peers.%s] table (its collectors and public key)", name, name)
		return p, ok
	}
	for _, name := range c.Pool.FlockFrom {
		peer("pool.flock_from", name)
	}
	for i, name := range c.Schedd.FlockTo {
		p, ok := peer("schedd.flock_to", name)
		check(!slices.Contains(c.Schedd.FlockTo[:i], name), "schedd.flock_to", "pool %q is listed twice", name)
		check(!ok || len(p.Collectors) > 0, "pool.peers."+name+".collectors", "pool %q of schedd.flock_to needs its collectors' host:port", name)
	}
	for name, p := range c.Pool.Peers {
		key := "pool.peers." + name
		check(name != c.Pool.Name, key, "a peer has this pool's own name %q; pools that flock need different names", name)
		check(p.PublicKey != "", key+".public_key", "pool %q needs its public key file", name)
		check(p.TokenFile == "" || slices.Contains(c.Pool.FlockFrom, name) || slices.Contains(c.Schedd.FlockTo, name), key+".token_file",
			"pool %q is in neither pool.flock_from nor schedd.flock_to: no daemon here calls it", name)
		for _, a := range p.Collectors {
			_, port, err := net.SplitHostPort(a)
			check(err == nil && port != "", key+".collectors", "%q is not an address host:port", a)
		}
	}
	check(len(c.Schedd.FlockTo) == 0 || c.Schedd.FlockAfter.Duration > 0, "schedd.flock_after", "must be a positive duration")
	return errs
}
