package cli

import (
	"errors"

	"github.com/kite-sched/kite/api"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
)

// apiClient returns the public Go client (package api) for the pool of
// c, presenting the tool's token: the user tools make their calls with
// it, so that every CLI test exercises the client users program with.
// A missing token is reported when a request needs one.
func (g *globals) apiClient(c *config.Config) (*api.Client, error) {
	tok, err := g.toolToken(c)
	if err != nil && !errors.Is(err, auth.ErrNoToken) {
		return nil, err
	}
	return api.NewClient(api.Config{Collector: c.Pool.Collector, Collectors: c.Pool.Collectors, Token: tok}), nil
}
