package cli

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/master"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/wire"
)

func init() {
	addCommand(newUpCmd)
	addCommand(newDownCmd)
}

type upOptions struct {
	g      *globals
	dir    string
	slots  int
	detach bool
	wait   time.Duration
}

func newUpCmd(g *globals) *cobra.Command {
	o := &upOptions{g: g}
	c := &cobra.Command{
		Use:   "up [--dir DIR] [--slots N] [--detach]",
		Short: "Start a personal pool on this machine",
		Long: `Start a personal pool: every daemon on this machine, on loopback, under a
master. The first run creates the pool in DIR (default $KITE_HOME or ~/.kite):
its signing key, its configuration (kite.toml) and a token for you, the
pool's owner. kite up waits until a job could run, then prints the line that
points the tools at the pool (they find ~/.kite by default).

--slots N gives the pool N static slots of one CPU each (default: one
partitionable slot with this machine's CPUs). --detach returns once the pool
is ready and leaves it running; kite down stops it.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return o.run(c.Context(), c.OutOrStdout(), c.ErrOrStderr()) },
	}
	f := c.Flags()
	f.StringVar(&o.dir, "dir", "", "the pool's directory (default $KITE_HOME or ~/.kite)")
	f.IntVar(&o.slots, "slots", 0, "number of one-CPU static slots (default: one partitionable slot)")
	f.BoolVar(&o.detach, "detach", false, "return once the pool is ready, leaving it running")
	f.DurationVar(&o.wait, "timeout", 60*time.Second, "how long to wait for the pool to be ready")
	return c
}

var personalConfig = template.Must(template.New("kite.toml").Parse(`# A personal pool, created by kite up on {{.Date}}: every daemon on this
# machine, on loopback. Values not set here come from Kite's defaults: see
# kite config show.

[pool]
name = "personal"
collector = "127.0.0.1:{{.Port}}"
signing_key = "pool.key"
public_key = "pool.pub"
token_file = "kite.token"
state_dir = "state"

[membership]
bind = "127.0.0.1:0"

[collector]
listen = "127.0.0.1:{{.Port}}"

# Every daemon keeps its port across restarts: a restarted schedd must
# be where the startds report its running jobs.
[master]
daemons = ["collector", "negotiator", "schedd", "startd"]
listen = "127.0.0.1:{{.MasterPort}}"

[negotiator]
listen = "127.0.0.1:{{.NegotiatorPort}}"
interval = "60s"
cycle_delay = "20ms"

[schedd]
listen = "127.0.0.1:{{.ScheddPort}}"

[startd]
listen = "127.0.0.1:{{.StartdPort}}"
execute_dir = "{{.Execute}}"
{{- if .Root}}
slot_user = "nobody"              # kite up ran as root: jobs run as nobody, never as root
{{- end}}
{{- if .Slots}}
slots = {{.Slots}}
cpus = {{.Slots}}
partitionable = false
{{- end}}
`))

// paths of a personal pool.
func upPaths(dir string) (conf, pidFile, logFile string) {
	return filepath.Join(dir, "kite.toml"), filepath.Join(dir, "master.pid"), filepath.Join(dir, "state", "log", "master.log")
}

func (o *upOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	dir := o.dir
	if dir == "" {
		dir = kiteHome()
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	conf, pidFile, logFile := upPaths(dir)
	created := false
	if _, err := os.Stat(conf); errors.Is(err, os.ErrNotExist) {
		if err := createPersonalPool(dir, o.slots); err != nil {
			return err
		}
		created = true
	}
	o.g.configPath = conf
	if o.slots > 0 && !created {
		o.g.set = append(o.g.set, "startd.slots="+strconv.Itoa(o.slots), "startd.cpus="+strconv.Itoa(o.slots), "startd.partitionable=false")
	}
	cfg, err := o.g.loadConfig()
	if err != nil {
		return err
	}
	if os.Geteuid() == 0 && cfg.Origin("startd.execute_dir").Source == "default" {
		// A pool kite init made gets the execute directory kite up gives
		// its own pools when root runs them.
		execute, err := personalExecuteDir(dir)
		if err != nil {
			return err
		}
		o.g.set = append(o.g.set, "startd.execute_dir="+execute)
		if cfg, err = o.g.loadConfig(); err != nil {
			return err
		}
	}
	if pid, ok := runningMaster(pidFile); ok {
		fmt.Fprintf(stderr, "The personal pool in %s is running already (master pid %d).\n", dir, pid)
		return o.ready(ctx, stdout, cfg, dir, nil)
	}
	if o.detach {
		return o.startDetached(ctx, stdout, cfg, dir, pidFile, logFile)
	}
	return o.runForeground(ctx, stdout, cfg, dir, pidFile)
}

// createPersonalPool writes a new pool's key pair, configuration and the
// owner's token. The daemons take the ports personalPorts chooses.
func createPersonalPool(dir string, slots int) error {
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o700); err != nil {
		return err
	}
	if err := auth.GenerateKeys(filepath.Join(dir, "pool.key"), filepath.Join(dir, "pool.pub")); err != nil {
		return err
	}
	ports, err := pickPorts(personalPorts(dir, 5))
	if err != nil {
		return err
	}
	conf, _, _ := upPaths(dir)
	f, err := os.OpenFile(conf, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	execute, root := "execute", os.Geteuid() == 0
	if root {
		if execute, err = personalExecuteDir(dir); err != nil {
			return err
		}
	}
	err = personalConfig.Execute(f, map[string]any{"Port": ports[0], "MasterPort": ports[1], "NegotiatorPort": ports[2],
		"ScheddPort": ports[3], "StartdPort": ports[4], "Slots": slots, "Execute": execute, "Root": root,
		"Date": time.Now().Format(time.DateOnly)})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return writeAdminToken(dir, "personal", currentUser())
}

// personalExecuteDir makes and returns the execute directory of a
// personal pool in dir run by root: jobs run as nobody, who must reach
// their sandboxes, so not under a directory only root may enter (a pool
// directory is 0700, and often in root's home).
func personalExecuteDir(dir string) (string, error) {
	execute := personalExecutePath(dir)
	return execute, os.MkdirAll(execute, 0o755)
}

// personalExecutePath is where personalExecuteDir puts the execute
// directory of the pool in dir.
func personalExecutePath(dir string) string {
	return filepath.Join(worldReachable(os.TempDir(), "/var/tmp", "/tmp"), fmt.Sprintf("kite-execute-%x", fnv32(dir)))
}

// worldReachable returns the first directory that every user can reach
// (each directory on its path searchable by others).
func worldReachable(dirs ...string) string {
	for _, d := range dirs {
		ok := true
		for p := filepath.Clean(d); ; p = filepath.Dir(p) {
			fi, err := os.Stat(p)
			if err != nil || fi.Mode().Perm()&0o001 == 0 {
				ok = false
				break
			}
			if p == filepath.Dir(p) {
				break
			}
		}
		if ok {
			return d
		}
	}
	return dirs[len(dirs)-1]
}

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// personalPorts are the ports a personal pool in dir would like: the
// pool in the default place (~/.kite) puts its collector on HTCondor's
// 9618; every pool takes a block of ports chosen by its directory below
// the system's ephemeral range, so that neither another pool starting at
// the same moment nor an outgoing connection takes them between the
// choice and the daemons' start.
func personalPorts(dir string, n int) []int {
	const first, last = 10000, 32000 // Linux's ephemeral ports start at 32768
	blocks := uint32((last - first) / n)
	base := first + int(fnv32(filepath.Clean(dir))%blocks)*n
	want := make([]int, n)
	for i := range want {
		want[i] = base + i
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.Clean(dir) == filepath.Join(home, ".kite") {
		want[0] = 9618
	}
	return want
}

// pickPorts returns a distinct port free on loopback for each wanted one:
// that one when it is free, else one the system picks.
func pickPorts(want []int) ([]int, error) {
	var ports []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for _, w := range want {
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", w)); err == nil {
			held = append(held, l)
			ports = append(ports, w)
		}
	}
	for len(ports) < len(want) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		held = append(held, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// runningMaster reads the pid file and reports a live master.
func runningMaster(pidFile string) (int, bool) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	if !masterAlive(pid) {
		return 0, false
	}
	return pid, true
}

// masterAlive reports whether pid is a live Kite master: a process that
// exists (kill(pid, 0) succeeds on a zombie too, which a master killed a
// moment ago is until its parent reaps it), is not dead or a zombie, and
// runs "kite master" or "kite up" (the pid may have been reused by another
// program since the pid file was written).
func masterAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) // no /proc: trust kill
	}
	// The state follows the command name, which is in parentheses and
	// may itself hold spaces and parentheses.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	switch stat[i+2] {
	case 'Z', 'X', 'x':
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	for _, a := range args[min(1, len(args)):] {
		if a == "master" || a == "up" {
			return true
		}
	}
	return false
}

// runForeground runs the master in this process until a signal.
func (o *upOptions) runForeground(ctx context.Context, stdout io.Writer, cfg *config.Config, dir, pidFile string) error {
	env, err := daemon.NewEnv(cfg, "master")
	if err != nil {
		return err
	}
	mc := master.ConfigFrom(cfg, o.g.childCommand())
	mc.Reload = o.g.loadConfig
	m, err := master.New(env, mc)
	if err != nil {
		return err
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return err
	}
	defer os.Remove(pidFile)
	readyCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-m.Ready():
		case <-readyCtx.Done():
			return
		}
		if err := o.ready(readyCtx, stdout, cfg, dir, nil); err != nil && readyCtx.Err() == nil {
			env.Log.Error("the pool is not ready", "err", err)
		} else if readyCtx.Err() == nil {
			fmt.Fprintln(stdout, "Stop it with Ctrl-C or kite down.")
		}
	}()
	return daemon.Run(m, env.Log, 2*time.Minute, o.g.loadConfig)
}

// startDetached starts the master as a background process and waits
// until the pool is ready.
func (o *upOptions) startDetached(ctx context.Context, stdout io.Writer, cfg *config.Config, dir, pidFile, logFile string) error {
	if err := os.MkdirAll(filepath.Dir(logFile), 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := o.g.childCommand()("master")
	cmd.Stdout, cmd.Stderr, cmd.Stdin = log, log, nil
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the master: %w", err)
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := o.ready(ctx, stdout, cfg, dir, exited); err != nil {
		return fmt.Errorf("%w (the master's log: %s)", err, logFile)
	}
	return nil
}

// ready waits until the pool could run a job — a collector, a schedd, a
// negotiator and a slot — and prints how to use it.
func (o *upOptions) ready(ctx context.Context, stdout io.Writer, cfg *config.Config, dir string, exited <-chan error) error {
	conn, err := o.g.connector(cfg)
	if err != nil {
		return err
	}
	col := conn.Client(cfg.Pool.Collector)
	deadline := time.Now().Add(o.wait)
	for {
		if err := failingDaemon(ctx, col, dir); err != nil {
			return err
		}
		slots, done := poolReady(ctx, col)
		if done {
			fmt.Fprintf(stdout, "Personal pool ready in %s: %d slot(s), collector at %s.\n", dir, slots, cfg.Pool.Collector)
			fmt.Fprint(stdout, howToolsFind(dir, os.LookupEnv))
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the pool was not ready after %v", o.wait)
		}
		select {
		case err := <-exited:
			return fmt.Errorf("the master stopped: %v", exitError(err))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func exitError(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// poolReady checks the collector for every daemon a job needs.
func poolReady(ctx context.Context, col *wire.Client) (slots int, ok bool) {
	for _, typ := range []string{attr.TypeScheduler, attr.TypeNegotiator, attr.TypeSlot} {
		ads, err := queryAds(ctx, col, wire.Query{Type: typ, Projection: []string{attr.Name, attr.Cpus}})
		if err != nil || len(ads) == 0 {
			return 0, false
		}
		if typ == attr.TypeSlot {
			slots = len(ads)
		}
	}
	return slots, true
}

// failingDaemon reports a daemon the master keeps restarting, with the
// last line of its log.
func failingDaemon(ctx context.Context, col *wire.Client, dir string) error {
	ads, err := queryAds(ctx, col, wire.Query{Type: attr.TypeMaster})
	if err != nil {
		return nil
	}
	for _, ad := range ads {
		for _, kind := range []string{"collector", "negotiator", "schedd", "startd"} {
			prefix := strings.ToUpper(kind[:1]) + kind[1:]
			if str(ad, prefix+"State") == wire.DaemonBackoff && classad.EvalIntOr(ad, prefix+"Restarts", 0) >= 1 {
				log := filepath.Join(dir, "state", "log", kind+".log")
				return fmt.Errorf("the %s keeps stopping: %s (its log: %s)", kind, lastLine(log), log)
			}
		}
	}
	return nil
}

// lastLine returns a file's last non-empty line.
func lastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "no log"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

func newDownCmd(g *globals) *cobra.Command {
	var dir string
	var wait time.Duration
	c := &cobra.Command{
		Use:   "down [--dir DIR]",
		Short: "Stop the personal pool",
		Long: `Stop the personal pool in DIR (default $KITE_HOME or ~/.kite): its master
stops the daemons in order (running jobs go back to idle, nothing is lost).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if dir == "" {
				dir = kiteHome()
			}
			_, pidFile, _ := upPaths(dir)
			pid, ok := runningMaster(pidFile)
			if !ok {
				return fmt.Errorf("no personal pool is running in %s", dir)
			}
			if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
				return err
			}
			deadline := time.Now().Add(wait)
			for masterAlive(pid) {
				if time.Now().After(deadline) {
					return fmt.Errorf("the master (pid %d) has not stopped after %v", pid, wait)
				}
				time.Sleep(50 * time.Millisecond)
			}
			os.Remove(pidFile)
			fmt.Fprintf(c.OutOrStdout(), "Stopped the personal pool in %s.\n", dir)
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", "", "the pool's directory (default $KITE_HOME or ~/.kite)")
	c.Flags().DurationVar(&wait, "timeout", 2*time.Minute, "how long to wait for the pool to stop")
	return c
}

// howToolsFind says how the tools find the pool in dir, given the
// environment kite up (or kite init) ran in: by default when a shell with
// neither KITE_HOME nor KITE_CONFIG finds its configuration; else with the
// line to paste into each shell that uses the pool.
func howToolsFind(dir string, lookup func(string) (string, bool)) string {
	const try = "try kite status, kite submit FILE, kite q."
	want := filepath.Join(dir, "kite.toml")
	now := absPath(configIn(lookup))
	paste := "export KITE_HOME=" + shellQuote(dir)
	if c, _ := lookup("KITE_CONFIG"); c != "" && now != want {
		paste = "unset KITE_CONFIG; " + paste
	}
	switch {
	case now == want && absPath(configIn(noEnv)) == want:
		return "Tools find it by default: " + try + "\n"
	case now == want:
		return fmt.Sprintf("Tools find it where KITE_HOME or KITE_CONFIG point to it, as for this command; in a new shell first:\n  %s\nThen %s\n", paste, try)
	}
	using := "no configuration"
	if now != "" {
		using = now
	}
	return fmt.Sprintf("Tools do not find it by default (they use %s). Point them at it with:\n  %s\nThen %s\n", using, paste, try)
}

// noEnv is an environment without KITE_HOME and KITE_CONFIG.
func noEnv(string) (string, bool) { return "", false }

func absPath(p string) string {
	if p == "" {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
