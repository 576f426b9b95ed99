package api

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/wire"
)

// Config says how to reach a pool.
type Config struct {
	// Collector is the pool's collector, host:port.
	Collector string
	// Collectors, when set, lists several collectors (pool.collectors):
	// queries go to the first that answers, and Collector is ignored.
	Collectors []string
	// Token is the bearer token to present ("": none).
	Token string
	// TLS, when set, makes every connection TLS with this configuration.
	TLS *tls.Config
	// Network is the transport; nil is TCP.
	Network Network
}

// DefaultConfig returns the configuration the kite tools would use: the
// pool of $KITE_CONFIG, else of $KITE_HOME/kite.toml or ~/.kite/kite.toml,
// else of /etc/kite/kite.toml, and the token of $KITE_TOKEN, else of the
// configuration's token file.
func DefaultConfig() (Config, error) {
	path := configPath()
	c, err := config.Load(path)
	if err != nil {
		return Config{}, err
	}
	tok, err := auth.ToolToken("", os.LookupEnv, c.Path(c.Pool.TokenFile))
	if err != nil && !errors.Is(err, auth.ErrNoToken) {
		return Config{}, err
	}
	return Config{Collector: c.Pool.Collector, Collectors: c.Pool.Collectors, Token: tok}, nil
}

// configPath is where the tools find their configuration ("" if none).
func configPath() string {
	if p := os.Getenv("KITE_CONFIG"); p != "" {
		return p
	}
	home := os.Getenv("KITE_HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(h, ".kite")
		}
	}
	for _, p := range []string{filepath.Join(home, "kite.toml"), "/etc/kite/kite.toml"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Client calls a pool's daemons. It is safe for concurrent use and keeps
// connections open between calls: make one per process.
type Client struct {
	cfg        Config
	conn       *wire.Connector
	collectors *wire.Collectors
}

// NewClient returns a client for the pool cfg describes.
func NewClient(cfg Config) *Client {
	conn := wire.NewConnector(wire.ConnectorOptions{Network: cfg.Network, TLS: cfg.TLS, Token: wire.StaticToken(cfg.Token)})
	addrs := cfg.Collectors
	if len(addrs) == 0 {
		addrs = []string{cfg.Collector}
	}
	return &Client{cfg: cfg, conn: conn, collectors: conn.Collectors(addrs)}
}

// Collector returns the pool's collector.
func (c *Client) Collector() *Collector {
	return &Collector{c: c.collectors}
}

// ScheddAt returns the schedd at addr (host:port), without asking the
// collector.
func (c *Client) ScheddAt(addr string) *Schedd {
	return &Schedd{c: c.conn.Client(addr), addr: addr, name: addr}
}

// Schedd finds a schedd through the collector: the one named (its Name),
// or, with name "", the pool's only one.
func (c *Client) Schedd(ctx context.Context, name string) (*Schedd, error) {
	ads, err := c.Collector().QueryAll(ctx, AdQuery{Type: AdScheduler, Projection: []string{attr.Name, attr.MyAddress}})
	if err != nil {
		return nil, fmt.Errorf("finding the schedd: %w", err)
	}
	sort.Slice(ads, func(i, j int) bool { return adString(ads[i], attr.Name) < adString(ads[j], attr.Name) })
	var names []string
	for _, ad := range ads {
		n := adString(ad, attr.Name)
		if name == "" && len(ads) == 1 || strings.EqualFold(n, name) {
			s := c.ScheddAt(adString(ad, attr.MyAddress))
			s.name = n
			return s, nil
		}
		names = append(names, n)
	}
	switch {
	case name != "":
		return nil, fmt.Errorf("no schedd named %q in the pool", name)
	case len(ads) == 0:
		return nil, fmt.Errorf("no schedd in the pool of %s", c.collectors.Addr())
	}
	return nil, fmt.Errorf("the pool has several schedds (%s): name one", strings.Join(names, ", "))
}

// Priorities returns the fair-share accounts of the pool's negotiator,
// best effective priority first (condor_userprio).
func (c *Client) Priorities(ctx context.Context) ([]Priority, error) {
	addrs, err := c.negotiators(ctx)
	if err != nil {
		return nil, err
	}
	var p Priorities
	for _, addr := range addrs {
		// Every member of a Raft group answers from its copy of the
		// accountant: the leader first, another when it is gone.
		err = c.conn.Client(addr).Call(ctx, "GET", wire.PathPriorities, nil, &p)
		if !errors.Is(err, wire.ErrUnreachable) {
			break
		}
	}
	return p.Users, err
}

// negotiators returns the addresses of the pool's negotiators, the
// leader of their Raft group first when they form one.
func (c *Client) negotiators(ctx context.Context) ([]string, error) {
	ads, err := c.Collector().QueryAll(ctx, AdQuery{Type: AdNegotiator, Projection: []string{attr.MyAddress, attr.RaftState}})
	if err != nil {
		return nil, err
	}
	var leaders, others []string
	for _, ad := range ads {
		switch a := adString(ad, attr.MyAddress); {
		case a == "":
		case adString(ad, attr.RaftState) == "Leader":
			leaders = append(leaders, a)
		default:
			others = append(others, a)
		}
	}
	if len(leaders)+len(others) == 0 {
		return nil, fmt.Errorf("no %s in the pool", AdNegotiator)
	}
	return append(leaders, others...), nil
}

// adString is a string attribute of an ad ("" when it is not one).
func adString(ad *classad.Ad, name string) string {
	s, _ := classad.EvalString(ad, name)
	return s
}

// streamer is a daemon's client, or the pool's collectors.
type streamer interface {
	Addr() string
	Stream(ctx context.Context, method, path string, in any, each func(item json.RawMessage) error) error
}

// streamAds runs a streamed query of ads and hands each to each.
func streamAds(ctx context.Context, c streamer, path string, q any, each func(*classad.Ad) error) error {
	return c.Stream(ctx, "POST", path, q, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err != nil {
			return fmt.Errorf("%s sent a bad ad: %w", c.Addr(), err)
		}
		return each(ad)
	})
}

// collect returns a callback that appends to ads.
func collect(ads *[]*classad.Ad) func(*classad.Ad) error {
	return func(ad *classad.Ad) error { *ads = append(*ads, ad); return nil }
}
