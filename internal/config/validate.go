package config

import (
	"errors"
	"net"
	"slices"
	"time"
)

// Daemons a master can run.
var knownDaemons = []string{"collector", "negotiator", "schedd", "startd"}

// Validate checks the whole configuration and reports every problem,
// each naming where the value came from.
func (c *Config) Validate() error {
	var errs []error
	check := func(ok bool, key, format string, args ...any) {
		if !ok {
			errs = append(errs, c.errorAt(key, format, args...))
		}
	}
	hostPort := func(key, v string, empty bool) {
		if v == "" {
			check(empty, key, "an address host:port is required")
			return
		}
		_, port, err := net.SplitHostPort(v)
		check(err == nil && port != "", key, "%q is not an address host:port", v)
	}
	positive := func(key string, d Duration) { check(d.Duration > 0, key, "must be a positive duration") }

	check(c.Pool.Name != "", "pool.name", "the pool needs a name")
	hostPort("pool.collector", c.Pool.Collector, false)
	check((c.TLS.Cert == "") == (c.TLS.Key == ""), "tls.cert", "tls.cert and tls.key go together")
	check(slices.Contains([]string{"debug", "info", "warn", "error"}, c.Log.Level), "log.level", "%q is not one of debug, info, warn, error", c.Log.Level)
	check(c.Log.Format == "text" || c.Log.Format == "json", "log.format", "%q is not text or json", c.Log.Format)

	hostPort("membership.bind", c.Membership.Bind, !c.Membership.Enabled)
	for _, j := range c.Membership.Join {
		hostPort("membership.join", j, false)
	}
	positive("membership.probe_interval", c.Membership.ProbeInterval)
	positive("membership.probe_timeout", c.Membership.ProbeTimeout)
	check(c.Membership.SuspicionMult >= 1, "membership.suspicion_mult", "must be at least 1")

	for _, d := range c.Master.Daemons {
		check(slices.Contains(knownDaemons, d), "master.daemons", "unknown daemon %q (known: collector, negotiator, schedd, startd)", d)
	}
	hostPort("master.listen", c.Master.Listen, false)
	positive("master.backoff_constant", c.Master.BackoffConstant)
	check(c.Master.BackoffFactor >= 1, "master.backoff_factor", "must be at least 1")
	check(c.Master.BackoffCeiling.Duration >= c.Master.BackoffConstant.Duration, "master.backoff_ceiling", "must not be below backoff_constant")
	positive("master.recover_after", c.Master.RecoverAfter)
	positive("master.update_interval", c.Master.UpdateInterval)

	hostPort("collector.listen", c.Collector.Listen, false)
	positive("collector.ad_lifetime", c.Collector.AdLifetime)
	check(c.Collector.DeadMemberGrace.Duration >= 0, "collector.dead_member_grace", "must not be negative")
	check(c.Collector.MaxBodyBytes >= 1024, "collector.max_body_bytes", "must be at least 1024")
	errs = append(errs, c.checkExprLimits("collector", c.Collector.MaxExpressionBytes, c.Collector.MaxExpressionTokens, c.Collector.MaxExpressionDepth)...)

	hostPort("negotiator.listen", c.Negotiator.Listen, false)
	positive("negotiator.interval", c.Negotiator.Interval)
	check(c.Negotiator.CycleDelay.Duration >= 0 && c.Negotiator.CycleDelay.Duration <= c.Negotiator.Interval.Duration,
		"negotiator.cycle_delay", "must be between 0 and negotiator.interval")

	hostPort("schedd.listen", c.Schedd.Listen, false)
	hostPort("startd.listen", c.Startd.Listen, false)
	errs = append(errs, c.validateExtra()...)
	return errors.Join(errs...)
}

// extraValidators are checks added by other files of this package (one per
// section as sections grow).
var extraValidators []func(c *Config) []error

func (c *Config) validateExtra() []error {
	var errs []error
	for _, v := range extraValidators {
		errs = append(errs, v(c)...)
	}
	return errs
}

// Seconds is a convenience for tests and defaults.
func Seconds(n float64) Duration { return Duration{time.Duration(n * float64(time.Second))} }
