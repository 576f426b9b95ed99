package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/api"
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/wire"
)

func init() {
	addCommand(func(g *globals) *cobra.Command {
		return daemonCmd(g, "schedd", "Run the schedd: the job queue",
			func(env *daemon.Env, cfg *config.Config) (daemon.Service, error) {
				return schedd.New(env, schedd.ConfigFrom(cfg))
			})
	})
}

// scheddConn is a connection to a schedd for the queue tools.
type scheddConn struct {
	client *wire.Client
	// api is the same schedd through the public client, for the calls
	// it has (query, history, act, edit, totals).
	api  *api.Schedd
	name string
	addr string
}

// findSchedd finds the schedd to talk to: the one named (a Name in the
// collector, or an address host:port), else the one on this host, else
// the pool's only one.
func (g *globals) findSchedd(ctx context.Context, name string) (*scheddConn, error) {
	cfg, err := g.loadConfig()
	if err != nil {
		return nil, err
	}
	conn, err := g.connector(cfg)
	if err != nil {
		return nil, err
	}
	client, err := g.apiClient(cfg)
	if err != nil {
		return nil, err
	}
	ads, err := scheddAds(ctx, conn.Collectors(cfg.Pool.CollectorAddrs()))
	if err != nil && name == "" {
		return nil, fmt.Errorf("finding the schedd: %w", err)
	}
	type found struct{ name, addr string }
	var all []found
	for _, ad := range ads {
		all = append(all, found{str(ad, attr.Name), str(ad, attr.MyAddress)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	pick := func(f found) *scheddConn {
		return &scheddConn{client: conn.Client(f.addr), api: client.ScheddAt(f.addr), name: f.name, addr: f.addr}
	}
	if name != "" {
		for _, f := range all {
			if strings.EqualFold(f.name, name) {
				return pick(f), nil
			}
		}
		if strings.Contains(name, ":") {
			return pick(found{name, name}), nil
		}
		return nil, fmt.Errorf("no schedd named %q in the pool", name)
	}
	host, _ := os.Hostname()
	local := cfg.Schedd.Name
	if local == "" {
		local = host
	}
	for _, f := range all {
		if strings.EqualFold(f.name, local) {
			return pick(f), nil
		}
	}
	switch len(all) {
	case 0:
		return nil, fmt.Errorf("no schedd in the pool (is kite schedd running, and advertising to %s?)", cfg.Pool.Collector)
	case 1:
		return pick(all[0]), nil
	}
	names := make([]string, len(all))
	for i, f := range all {
		names[i] = f.name
	}
	return nil, usageError{fmt.Errorf("the pool has several schedds (%s): choose one with -name", strings.Join(names, ", "))}
}

// scheddAds returns the pool's Scheduler ads. A pool just started may
// not show its schedd yet: an empty answer is asked again for a few
// seconds.
func scheddAds(ctx context.Context, c adStreamer) ([]*classad.Ad, error) {
	q := wire.Query{Type: attr.TypeScheduler, Projection: []string{attr.Name, attr.MyAddress}}
	deadline := time.Now().Add(scheddWait)
	for {
		ads, err := queryAds(ctx, c, q)
		if err != nil || len(ads) > 0 || time.Now().After(deadline) {
			return ads, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// scheddWait is how long the tools wait for a schedd to be advertised.
var scheddWait = 5 * time.Second

// streamAds runs a streamed query and decodes the ads.
func streamAds(ctx context.Context, c *wire.Client, path string, q any, each func(*classad.Ad) error) error {
	return c.Stream(ctx, "POST", path, q, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err != nil {
			return fmt.Errorf("the schedd sent a bad ad: %w", err)
		}
		return each(ad)
	})
}

// jobID returns an ad's "cluster.proc".
func jobID(ad *classad.Ad) string {
	cluster, proc := classad.EvalIntOr(ad, attr.ClusterID, 0), classad.EvalIntOr(ad, attr.ProcID, 0)
	return strconv.FormatInt(cluster, 10) + "." + strconv.FormatInt(proc, 10)
}

// isJobID reports whether an argument names a cluster or job rather than
// an owner.
func isJobID(s string) bool {
	c, p, hasProc := strings.Cut(s, ".")
	if _, err := strconv.ParseUint(c, 10, 64); err != nil {
		return false
	}
	if hasProc {
		_, err := strconv.ParseUint(p, 10, 64)
		return err == nil
	}
	return true
}

// splitArgs sorts arguments into job ids and owners.
func splitArgs(args []string) (ids, owners []string) {
	for _, a := range args {
		if isJobID(a) {
			ids = append(ids, a)
		} else {
			owners = append(owners, a)
		}
	}
	return ids, owners
}
