package daemon

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/gcpace"
)

// Service is a daemon: Run serves until ctx is done, then stops in order
// and returns.
type Service interface {
	Run(ctx context.Context) error
}

// Reconfigurer is a service that takes a new configuration while it runs
// (SIGHUP, which `kite reconfig` sends through the master). It applies
// what can change live and says in its log what needs a restart.
type Reconfigurer interface {
	Reconfigure(cfg *config.Config) error
}

// Run runs svc until SIGINT or SIGTERM, which stops it gracefully. A
// second signal, or the graceful stop taking longer than grace, ends the
// process at once: daemons commit what they acknowledge, so nothing
// acknowledged is lost that way. SIGHUP reloads the configuration with
// reload and hands it to svc if it is a Reconfigurer; a configuration that
// does not load is logged and the daemon goes on as it was. The garbage
// collector is paced for a daemon meanwhile (gcpace).
func Run(svc Service, log *slog.Logger, grace time.Duration, reload func() (*config.Config, error)) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go gcpace.Pace(ctx, gcpace.Headroom)
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	for stopping := false; !stopping; {
		select {
		case err := <-done:
			return err
		case sig := <-sigs:
			if sig == syscall.SIGHUP {
				reconfigure(svc, log, reload)
				continue
			}
			log.Info("stopping", "signal", sig.String())
			cancel()
			stopping = true
		}
	}
	select {
	case err := <-done:
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	case sig := <-sigs:
		log.Warn("stopping at once", "signal", sig.String())
	case <-time.After(grace):
		log.Warn("graceful stop took too long; stopping at once", "grace", grace)
	}
	os.Exit(1)
	return nil
}

// reconfigure applies a SIGHUP.
func reconfigure(svc Service, log *slog.Logger, reload func() (*config.Config, error)) {
	r, ok := svc.(Reconfigurer)
	if !ok || reload == nil {
		log.Info("reconfigure: this daemon takes its configuration at start only; restart it to apply changes")
		return
	}
	cfg, err := reload()
	if err != nil {
		log.Error("reconfigure: the configuration does not load; going on with the old one", "err", err)
		return
	}
	if err := r.Reconfigure(cfg); err != nil {
		log.Error("reconfigure", "err", err)
		return
	}
	log.Info("reconfigured")
}
