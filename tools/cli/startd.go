package cli

import (
	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
)

func init() { addCommand(newStartdCmd) }

func newStartdCmd(g *globals) *cobra.Command {
	return daemonCmd(g, "startd", "Run the startd: advertise this machine's slots and run jobs on them",
		func(env *daemon.Env, cfg *config.Config) (daemon.Service, error) {
			return startd.New(env, startd.ConfigFrom(cfg))
		})
}
