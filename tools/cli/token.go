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
	identity, levels string
	ttl              time.Duration
}

func newTokenCreateCmd(g *globals) *cobra.Command {
	var o tokenCreateOptions
	c := &cobra.Command{
		Use:   "create --identity NAME --levels LEVELS [--ttl DURATION]",
		Short: "Issue a token signed with the pool's key and print it",
		Long: `Issue a token naming an identity and the levels it grants (READ, WRITE,
ADMINISTRATOR, DAEMON; WRITE implies READ, ADMINISTRATOR and DAEMON imply
both), signed with the pool's signing key, which must be on this host.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := g.loadConfig()
			if err != nil {
				return err
			}
			if cfg.Pool.SigningKey == "" {
				return errors.New("this host has no signing key (pool.signing_key): issue tokens on the central manager")
			}
			levels, err := auth.ParseLevels(o.levels)
			if err != nil {
				return usageError{err}
			}
			key, err := auth.LoadSigningKey(cfg.Path(cfg.Pool.SigningKey))
			if err != nil {
				return err
			}
			tok, err := auth.NewIssuer(key, cfg.Pool.Name).Issue(o.identity, levels, o.ttl)
			if err != nil {
				return usageError{err}
			}
			_, err = fmt.Fprintln(c.OutOrStdout(), tok)
			return err
		},
	}
	c.Flags().StringVar(&o.identity, "identity", "", "who the token names (required)")
	c.Flags().StringVar(&o.levels, "levels", "READ,WRITE", "levels the token grants")
	c.Flags().DurationVar(&o.ttl, "ttl", 0, "how long the token is valid (0: no expiry)")
	c.MarkFlagRequired("identity")
	return c
}
