package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/daemons/collector"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
)

// gracePeriod bounds a daemon's graceful stop.
const gracePeriod = 30 * time.Second

// daemonCmd makes the command that runs one daemon in the foreground.
func daemonCmd(g *globals, kind, short string, build func(*daemon.Env, *config.Config) (daemon.Service, error)) *cobra.Command {
	return &cobra.Command{
		Use:   kind,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := g.loadConfig()
			if err != nil {
				return err
			}
			env, err := daemon.NewEnv(cfg, kind)
			if err != nil {
				return err
			}
			svc, err := build(env, cfg)
			if err != nil {
				return err
			}
			return daemon.Run(svc, env.Log, gracePeriod, g.loadConfig)
		},
	}
}

func newCollectorCmd(g *globals) *cobra.Command {
	return daemonCmd(g, "collector", "Run the collector: the pool's memory of ads",
		func(env *daemon.Env, cfg *config.Config) (daemon.Service, error) {
			return collector.New(env, collector.ConfigFrom(cfg))
		})
}
