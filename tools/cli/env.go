package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/wire"
)

// globals are the flags every command takes.
type globals struct {
	configPath string
	token      string
	set        []string
}

func (g *globals) register(c *cobra.Command) {
	f := c.PersistentFlags()
	f.StringVar(&g.configPath, "config", "", "configuration file (default: $KITE_CONFIG, else $KITE_HOME/kite.toml or ~/.kite/kite.toml)")
	f.StringVar(&g.token, "token", "", "token to present (default: $KITE_TOKEN, else the configuration's token file)")
	f.StringArrayVar(&g.set, "set", nil, "override a configuration key: --set collector.listen=0.0.0.0:9618")
}

// kiteHome is where a personal pool lives by default.
func kiteHome() string { return kiteHomeIn(os.LookupEnv) }

// kiteHomeIn is kiteHome in an environment.
func kiteHomeIn(lookup func(string) (string, bool)) string {
	if h, _ := lookup("KITE_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".kite"
	}
	return filepath.Join(home, ".kite")
}

// configPath finds the configuration file: --config, KITE_CONFIG, the
// personal pool's, then the system's; "" when there is none.
func (g *globals) findConfig() string {
	if g.configPath != "" {
		return g.configPath
	}
	return configIn(os.LookupEnv)
}

// configIn is the configuration file the tools use in an environment,
// without --config.
func configIn(lookup func(string) (string, bool)) string {
	if p, _ := lookup("KITE_CONFIG"); p != "" {
		return p
	}
	for _, p := range []string{filepath.Join(kiteHomeIn(lookup), "kite.toml"), "/etc/kite/kite.toml"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// loadConfig loads and validates the configuration with --set overrides.
func (g *globals) loadConfig() (*config.Config, error) {
	c, err := config.Load(g.findConfig())
	if err != nil {
		return nil, err
	}
	for _, kv := range g.set {
		k, v, ok := cutEq(kv)
		if !ok {
			return nil, usageError{fmt.Errorf("--set %q: want key=value", kv)}
		}
		if err := c.Set(k, v); err != nil {
			return nil, err
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func cutEq(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

// toolToken finds the token a tool presents.
func (g *globals) toolToken(c *config.Config) (string, error) {
	return auth.ToolToken(g.token, os.LookupEnv, c.Path(c.Pool.TokenFile))
}

// connector returns a connector presenting the tool's token. A missing
// token is reported when a request needs one.
func (g *globals) connector(c *config.Config) (*wire.Connector, error) {
	tok, err := g.toolToken(c)
	if err != nil && !errors.Is(err, auth.ErrNoToken) {
		return nil, err
	}
	return wire.NewConnector(wire.ConnectorOptions{Token: wire.StaticToken(tok)}), nil
}
