package cli

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"text/template"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/auth"
)

type initOptions struct {
	dir, name, collector, admin string
}

func newInitCmd() *cobra.Command {
	var o initOptions
	c := &cobra.Command{
		Use:   "init [--dir DIR]",
		Short: "Create a pool: signing key, configuration and an administrator token",
		Long: `Create a new pool in DIR (default ~/.kite): the pool's Ed25519 key pair
(pool.key, mode 0600, and pool.pub), a configuration file (kite.toml) and an
administrator token (kite.token) for you. Existing files are never replaced.

The signing key stays on this host (the central manager). Other hosts need
pool.pub, a configuration naming this host's collector, and tokens made with
kite token create.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return o.run(c) },
	}
	c.Flags().StringVar(&o.dir, "dir", "", "directory of the pool (default $KITE_HOME or ~/.kite)")
	c.Flags().StringVar(&o.name, "name", "kite", "name of the pool")
	c.Flags().StringVar(&o.collector, "collector", "", "host:port of the pool's collector (default: on loopback, at the port kite up would give a pool in DIR: 9618 for ~/.kite)")
	c.Flags().StringVar(&o.admin, "admin", "", "identity of the administrator token (default: your user name)")
	return c
}

var poolConfig = template.Must(template.New("kite.toml").Parse(`# Kite pool {{.Name}}, created by kite init on {{.Date}}.
# Values not set here come from Kite's defaults: see kite config show.

[pool]
name = "{{.Name}}"
collector = "{{.Collector}}"
signing_key = "pool.key"
public_key = "pool.pub"
token_file = "kite.token"
state_dir = "state"

[collector]
listen = "{{.Collector}}"
`))

func (o *initOptions) run(c *cobra.Command) error {
	dir := o.dir
	if dir == "" {
		dir = kiteHome()
	}
	conf := filepath.Join(dir, "kite.toml")
	if _, err := os.Stat(conf); err == nil {
		return fmt.Errorf("%s already exists: %s is a pool already", conf, dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o700); err != nil {
		return err
	}
	if o.collector == "" {
		// As kite up chooses: a second pool on this machine gets its own port.
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		ports, err := pickPorts(personalPorts(abs, 1))
		if err != nil {
			return err
		}
		o.collector = fmt.Sprintf("127.0.0.1:%d", ports[0])
	}
	if err := auth.GenerateKeys(filepath.Join(dir, "pool.key"), filepath.Join(dir, "pool.pub")); err != nil {
		return err
	}
	f, err := os.OpenFile(conf, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	err = poolConfig.Execute(f, map[string]string{"Name": o.name, "Collector": o.collector, "Date": time.Now().Format(time.DateOnly)})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	admin := o.admin
	if admin == "" {
		admin = currentUser()
	}
	if err := writeAdminToken(dir, o.name, admin); err != nil {
		return err
	}
	fmt.Fprintf(c.OutOrStdout(), "Created pool %q in %s (administrator %s).\n", o.name, dir, admin)
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	fmt.Fprint(c.OutOrStdout(), howToolsFind(abs, os.LookupEnv))
	return nil
}

func writeAdminToken(dir, pool, admin string) error {
	key, err := auth.LoadSigningKey(filepath.Join(dir, "pool.key"))
	if err != nil {
		return err
	}
	// The pool's owner may do anything in it, advertising ads included.
	tok, err := auth.NewIssuer(key, pool).Issue(admin, auth.Administrator|auth.Daemon, 0)
	if err != nil {
		return err
	}
	return auth.WriteToken(filepath.Join(dir, "kite.token"), tok)
}

func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "admin"
}
