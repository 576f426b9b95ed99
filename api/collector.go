package api

import (
	"context"
	"fmt"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// Collector is a pool's collector: the store of every daemon's ads.
type Collector struct {
	c *wire.Collectors
}

// Addr returns the address of the collector that answered last: one of
// several (Config.Collectors) when the first cannot be reached.
func (c *Collector) Addr() string { return c.c.Addr() }

// Query streams the ads q selects to each, which may stop the query by
// returning an error (which Query returns).
func (c *Collector) Query(ctx context.Context, q AdQuery, each func(*classad.Ad) error) error {
	return streamAds(ctx, c.c, wire.PathQuery, q, each)
}

// QueryAll returns the ads q selects.
func (c *Collector) QueryAll(ctx context.Context, q AdQuery) ([]*classad.Ad, error) {
	var ads []*classad.Ad
	err := c.Query(ctx, q, collect(&ads))
	return ads, err
}

// Locate returns the ad of a daemon of the given type (AdScheduler, ...)
// and Name; name "" takes the pool's only one of that type. The ad's
// MyAddress is where the daemon listens.
func (c *Collector) Locate(ctx context.Context, adType, name string) (*classad.Ad, error) {
	q := AdQuery{Type: adType}
	if name != "" {
		q.Constraint = attr.Name + " == " + string(ast.AppendQuoted(nil, name))
	}
	ads, err := c.QueryAll(ctx, q)
	if err != nil {
		return nil, err
	}
	switch {
	case len(ads) == 1:
		return ads[0], nil
	case len(ads) == 0 && name != "":
		return nil, fmt.Errorf("no %s named %q in the pool", adType, name)
	case len(ads) == 0:
		return nil, fmt.Errorf("no %s in the pool", adType)
	}
	return nil, fmt.Errorf("the pool has %d %s ads: name one", len(ads), adType)
}
