// Command kite is Kite's one binary: every daemon and every user tool.
// Run `kite help` for the commands.
package main

import (
	"os"

	"github.com/kite-sched/kite/tools/cli"
)

func main() { os.Exit(cli.Main()) }
