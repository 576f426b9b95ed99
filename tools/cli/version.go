package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print Kite's version and build information",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			version, commit := "devel", "unknown"
			if bi, ok := debug.ReadBuildInfo(); ok {
				if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
					version = bi.Main.Version
				}
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						commit = s.Value
					}
				}
			}
			_, err := fmt.Fprintf(c.OutOrStdout(), "kite %s (commit %s)\n", version, commit)
			return err
		},
	}
}
