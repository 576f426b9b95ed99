package cli

import "github.com/spf13/cobra"

// The commands of this package's first files; later files register
// themselves in their own init.
func init() {
	addCommand(func(*globals) *cobra.Command { return newClassAdCmd() })
	addCommand(func(*globals) *cobra.Command { return newVersionCmd() })
	addCommand(func(*globals) *cobra.Command { return newInitCmd() })
	addCommand(newTokenCmd)
	addCommand(newConfigCmd)
	addCommand(newCollectorCmd)
	addCommand(newStatusCmd)
	addCommand(newAdvertiseCmd)
	addCommand(newMembersCmd)
}
