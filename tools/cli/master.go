package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/daemons/master"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/wire"
)

func init() {
	addCommand(newMasterCmd)
	for _, c := range []struct{ name, short, path string }{
		{"on", "Start daemons under their master (condor_on)", wire.PathMasterOn},
		{"off", "Stop daemons under their master (condor_off)", wire.PathMasterOff},
		{"restart", "Restart daemons under their master (condor_restart)", wire.PathMasterRestart},
		{"reconfig", "Make daemons reread their configuration (condor_reconfig)", wire.PathMasterReconfig},
	} {
		addCommand(func(g *globals) *cobra.Command { return newMasterCommandCmd(g, c.name, c.short, c.path) })
	}
}

func newMasterCmd(g *globals) *cobra.Command {
	return daemonCmd(g, "master", "Run the master: start this host's daemons and keep them running",
		func(env *daemon.Env, cfg *config.Config) (daemon.Service, error) {
			mc := master.ConfigFrom(cfg, g.childCommand())
			mc.Reload = g.loadConfig
			return master.New(env, mc)
		})
}

// childCommand runs a daemon with this process's binary, configuration
// and overrides.
func (g *globals) childCommand() master.Command {
	self := selfPath()
	conf := g.findConfig()
	if abs, err := filepath.Abs(conf); err == nil && conf != "" {
		conf = abs
	}
	return func(kind string) *exec.Cmd {
		args := []string{kind}
		if conf != "" {
			args = append(args, "--config", conf)
		}
		for _, s := range g.set {
			args = append(args, "--set", s)
		}
		return exec.Command(self, args...)
	}
}

// selfPath is how to run this program again: the name it was started by,
// made absolute (a link keeps its name, which multi-call test binaries
// need), else the executable's path.
func selfPath() string {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return os.Args[0]
}

func newMasterCommandCmd(g *globals, name, short, path string) *cobra.Command {
	var (
		host    string
		daemons []string
		all     bool
	)
	c := &cobra.Command{
		Use:   name + " [-name HOST] [-daemon NAME]...",
		Short: short,
		Long: short + `.

Without -daemon it applies to every daemon the master runs. -name picks the
master by host name or address. Without it the command goes to this host's
master, at the address the local configuration gives it ([master] listen),
without asking the collector (which kite off stops too); when that address
has no fixed port or nothing answers there, to the master the collector
knows for this host, or the pool's only one. It needs an ADMINISTRATOR token.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			addr, err := g.findMaster(c.Context(), host)
			if err != nil {
				return err
			}
			cl, err := g.client(addr)
			if err != nil {
				return err
			}
			var res wire.MasterDaemons
			in := wire.MasterCommand{Daemons: daemons, Master: all}
			if err := cl.Call(c.Context(), "POST", path, in, &res); err != nil {
				return err
			}
			if all && name == "off" {
				fmt.Fprintf(c.OutOrStdout(), "Sent \"%s\" to %s: the master stops its daemons and exits.\n", name, res.Master)
				return nil
			}
			if err := printDaemons(c.OutOrStdout(), res); err != nil {
				return err
			}
			return printNeedRestart(c.OutOrStdout(), res.NeedRestart)
		},
	}
	f := c.Flags()
	f.StringVar(&host, "name", "", "the master's host name or address")
	f.StringArrayVar(&daemons, "daemon", nil, "a daemon to act on: collector, negotiator, schedd, startd (repeatable)")
	if name == "off" {
		f.BoolVar(&all, "master", false, "stop the master too, after its daemons")
	}
	return c
}

// localMaster returns where this host's master listens, as the local
// configuration says: its [master] listen address with a wildcard host
// made loopback. A port of 0 (the master picks one) tells nothing.
func localMaster(cfg *config.Config) (string, bool) {
	host, port, err := net.SplitHostPort(cfg.Master.Listen)
	if err != nil || port == "" || port == "0" {
		return "", false
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, port), true
}

// listening reports whether something accepts connections at addr.
func listening(ctx context.Context, addr string) bool {
	var d net.Dialer
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func printDaemons(w io.Writer, res wire.MasterDaemons) error {
	t := &table{headers: []string{"DAEMON", "STATE", "PID", "RESTARTS", "SINCE"}, right: []bool{false, false, true, true, false}}
	for _, d := range res.Daemons {
		pid := "-"
		if d.PID > 0 {
			pid = fmt.Sprint(d.PID)
		}
		t.add(d.Name, d.State, pid, fmt.Sprint(d.Restarts), d.Since.Local().Format(time.DateTime))
	}
	fmt.Fprintf(w, "%s:\n", res.Master)
	return t.write(w)
}

// client returns a client presenting the tool's token to addr.
func (g *globals) client(addr string) (*wire.Client, error) {
	cfg, err := g.loadConfig()
	if err != nil {
		return nil, err
	}
	conn, err := g.connector(cfg)
	if err != nil {
		return nil, err
	}
	return conn.Client(addr), nil
}

// findMaster finds a master's address: name when it is one; with no
// name, this host's master from the local configuration when it answers
// there; else through the collector.
func (g *globals) findMaster(ctx context.Context, name string) (string, error) {
	if strings.Contains(name, ":") {
		return name, nil
	}
	cfg, err := g.loadConfig()
	if err != nil {
		return "", err
	}
	if name == "" {
		if addr, ok := localMaster(cfg); ok && listening(ctx, addr) {
			return addr, nil
		}
	}
	conn, err := g.connector(cfg)
	if err != nil {
		return "", err
	}
	ads, err := queryAds(ctx, conn.Collectors(cfg.Pool.CollectorAddrs()), wire.Query{Type: attr.TypeMaster,
		Projection: []string{attr.Name, attr.Machine, attr.MyAddress}})
	if err != nil {
		return "", fmt.Errorf("finding the master: %w", err)
	}
	if name == "" {
		name, _ = os.Hostname()
		if len(ads) == 1 {
			return str(ads[0], attr.MyAddress), nil
		}
	}
	for _, ad := range ads {
		if strings.EqualFold(str(ad, attr.Machine), name) || strings.EqualFold(str(ad, attr.Name), name) ||
			strings.EqualFold(str(ad, attr.Name), "master@"+name) {
			return str(ad, attr.MyAddress), nil
		}
	}
	if len(ads) == 0 {
		return "", fmt.Errorf("no master in the pool (is kite master running, and advertising to %s?)", cfg.Pool.Collector)
	}
	return "", usageError{fmt.Errorf("no master for host %q among the pool's %d: choose one with -name", name, len(ads))}
}

// printNeedRestart names the changed configuration keys a reconfig could
// not apply: their daemons read them only when they start.
func printNeedRestart(w io.Writer, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "\nThese changed keys apply only when their daemon restarts (kite restart -daemon NAME; pool, tls, log and membership keys: every daemon):\n  %s\n",
		strings.Join(keys, "\n  "))
	return err
}
