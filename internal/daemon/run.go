package daemon

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Service is a daemon: Run serves until ctx is done, then stops in order
// and returns.
type Service interface {
	Run(ctx context.Context) error
}

// Run runs svc until SIGINT or SIGTERM, which stops it gracefully. A
// second signal, or the graceful stop taking longer than grace, ends the
// process at once: daemons commit what they acknowledge, so nothing
// acknowledged is lost that way.
func Run(svc Service, log *slog.Logger, grace time.Duration) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	select {
	case err := <-done:
		return err
	case sig := <-sigs:
		log.Info("stopping", "signal", sig.String())
		cancel()
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
