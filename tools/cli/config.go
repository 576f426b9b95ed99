package cli

import (
	"github.com/spf13/cobra"
)

func newConfigCmd(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "config", Short: "Inspect the configuration"}
	c.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration and where each value comes from",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := g.loadConfig()
			if err != nil {
				return err
			}
			return cfg.Show(c.OutOrStdout())
		},
	})
	return c
}
