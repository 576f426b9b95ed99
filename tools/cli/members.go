package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/attr"
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
			colls := conn.Collectors(cfg.Pool.CollectorAddrs())
			var m wire.Members
			if err := colls.Call(c.Context(), "GET", wire.PathMembers, nil, &m); err != nil {
				return err
			}
			raft, err := raftStates(c.Context(), colls)
			if err != nil {
				return err
			}
			headers := []string{"Name", "Kind", "Address", "State", "Since"}
			if len(raft) > 0 {
				headers = append(headers, "Raft")
			}
			t := &table{headers: headers, right: make([]bool, len(headers))}
			for _, mem := range m.Members {
				row := []string{mem.Name, mem.Kind, mem.Addr, mem.State, mem.Since.Format(time.DateTime)}
				if len(raft) > 0 {
					row = append(row, raft[mem.Addr])
				}
				t.add(row...)
			}
			return t.write(c.OutOrStdout())
		},
	}
}

// raftStates maps each negotiator's address to its Raft state (Leader,
// Follower, Candidate) when negotiators form a Raft group; it is empty
// otherwise.
func raftStates(ctx context.Context, colls *wire.Collectors) (map[string]string, error) {
	ads, err := queryAds(ctx, colls, wire.Query{Type: attr.TypeNegotiator, Projection: []string{attr.MyAddress, attr.RaftState}})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, ad := range ads {
		if st := str(ad, attr.RaftState); st != "" {
			out[str(ad, attr.MyAddress)] = st
		}
	}
	return out, nil
}
