package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/auth"
)

func newTokenCmd(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "token", Short: "Make tokens"}
	c.AddCommand(newTokenCreateCmd(g))
	return c
}

type tokenCreateOptions struct {
	identity, levels, flockFor string
	ttl                        time.Duration
}

func newTokenCreateCmd(g *globals) *cobra.Command {
	var o tokenCreateOptions
	c := &cobra.Command{
		Use:   "create --identity NAME (--levels LEVELS | --flock-for POOL) [--ttl DURATION]",
		Short: "Issue a token signed with the pool's key and print it",
		Long: `Issue a token naming an identity and the levels it grants (READ, WRITE,
ADMINISTRATOR, DAEMON; WRITE implies READ, ADMINISTRATOR and DAEMON imply
both), signed with the pool's signing key, which must be on this host.

With --flock-for POOL it is a flock token instead: FLOCK only, taken by
the daemons of POOL alone (a pool of pool.peers), for the daemons of a
host without the signing key to present to that pool's daemons; the
host's configuration names it in pool.peers.POOL.token_file.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := g.loadConfig()
			if err != nil {
				return err
			}
			if cfg.Pool.SigningKey == "" {
				return errors.New("this host has no signing key (pool.signing_key): issue tokens on the central manager")
			}
			if o.flockFor != "" {
				if c.Flags().Changed("levels") {
					return usageError{errors.New("--flock-for makes a token with FLOCK only: --levels does not go with it")}
				}
				if _, ok := cfg.Pool.Peers[o.flockFor]; !ok {
					return usageError{fmt.Errorf("--flock-for: pool %q is not a peer of this pool (no [pool.peers.%s] table)", o.flockFor, o.flockFor)}
				}
			}
			levels, err := auth.ParseLevels(o.levels)
			if err != nil {
				return usageError{err}
			}
			key, err := auth.LoadSigningKey(cfg.Path(cfg.Pool.SigningKey))
			if err != nil {
				return err
			}
			iss := auth.NewIssuer(key, cfg.Pool.Name)
			var tok string
			if o.flockFor != "" {
				tok, err = iss.IssueFlock(o.identity, o.flockFor, o.ttl)
			} else {
				tok, err = iss.Issue(o.identity, levels, o.ttl)
			}
			if err != nil {
				return usageError{err}
			}
			_, err = fmt.Fprintln(c.OutOrStdout(), tok)
			return err
		},
	}
	c.Flags().StringVar(&o.identity, "identity", "", "who the token names (required)")
	c.Flags().StringVar(&o.levels, "levels", "READ,WRITE", "levels the token grants")
	c.Flags().StringVar(&o.flockFor, "flock-for", "", "make a flock token for the pool of pool.peers named (FLOCK only, taken there alone)")
	c.Flags().DurationVar(&o.ttl, "ttl", 0, "how long the token is valid (0: no expiry)")
	c.MarkFlagRequired("identity")
	return c
}
