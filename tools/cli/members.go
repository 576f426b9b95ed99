package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/wire"
)

func newMembersCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "members",
		Short: "List the pool's daemons and their health, as gossip sees them",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := g.loadConfig()
			if err != nil {
				return err
			}
			conn, err := g.connector(cfg)
			if err != nil {
				return err
			}
			var m wire.Members
			if err := conn.Client(cfg.Pool.Collector).Call(c.Context(), "GET", wire.PathMembers, nil, &m); err != nil {
				return err
			}
			t := &table{headers: []string{"Name", "Kind", "Address", "State", "Since"}, right: make([]bool, 5)}
			for _, mem := range m.Members {
				t.add(mem.Name, mem.Kind, mem.Addr, mem.State, mem.Since.Format(time.DateTime))
			}
			return t.write(c.OutOrStdout())
		},
	}
}
