package config

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Sita configures the SITA-E size interval an execute host serves
// ([startd.sita]). The startd turns it into ad attributes and a
// Requirements clause with internal/sita.HostAd; the field list is the
// same as sita.HostConfig's, so sita.HostConfig(cfg.Startd.Sita) converts
// it. Intervals = 0 leaves SITA-E off. `kite sita config` writes it.
type Sita struct {
	// Attribute is the job attribute that measures a job's size.
	// HTCondor's paper setup uses ImageSize (KiB).
	Attribute string `toml:"attribute"`
	// Intervals is the number of size intervals n the pool is cut into,
	// typically the number of hosts or host groups (4 in paper 003).
	Intervals int `toml:"intervals"`
	// Interval is this host's interval i, 1..Intervals; 0 when the Hosts
	// table assigns it.
	Interval int `toml:"interval"`
	// Source says where the bounded Pareto parameters k, p, a come from:
	// "job" (each job's Min_size_of_job, Max_size_of_job and
	// Pareto_variability, as `sita_fit` in a submit file writes them) or
	// "config" (K, P and A below). A job without the size attribute, or
	// with source = "job" and no k, p, a below, without all three of its
	// own, is not sized: every slot admits it.
	Source string `toml:"source"`
	// K, P and A are the bounded Pareto B(k, p, a): the smallest size,
	// the largest (in the size attribute's unit) and the variability
	// (typically 0.5 to 2; 1.01 in paper 003). Required with source =
	// "config"; with source = "job" they are optional (0 when unset) and
	// serve jobs that carry no parameters of their own.
	K float64 `toml:"k"`
	P float64 `toml:"p"`
	A float64 `toml:"a"`
	// Hosts is a central table, [startd.sita.hosts], mapping slot names
	// (slot1@host), host names or short host names to intervals, so one
	// file can serve every host of a pool. A slot it does not name uses
	// Interval.
	Hosts map[string]int `toml:"hosts"`
}

// The sources of k, p and a.
var sitaSources = []string{"job", "config"}

// sitaMaxIntervals matches internal/sita.MaxIntervals.
const sitaMaxIntervals = 1 << 16

func init() { extraValidators = append(extraValidators, validateSita) }

// validateSita checks [startd.sita]; with SITA-E off nothing else matters.
func validateSita(c *Config) []error {
	s := c.Startd.Sita
	var errs []error
	check := func(ok bool, key, format string, args ...any) {
		if !ok {
			errs = append(errs, c.errorAt("startd.sita."+key, format, args...))
		}
	}
	n := s.Intervals
	check(n >= 0 && n <= sitaMaxIntervals, "intervals", "%d: must be between 0 (off) and %d", n, sitaMaxIntervals)
	if n <= 0 || n > sitaMaxIntervals {
		return errs
	}
	check(s.Interval >= 0 && s.Interval <= n, "interval", "%d: must be between 1 and intervals = %d", s.Interval, n)
	check(s.Interval != 0 || len(s.Hosts) > 0, "interval", "SITA-E is on (intervals = %d): set this host's interval, 1..%d, or a [startd.sita.hosts] table", n, n)
	check(sitaAttrName(s.Attribute), "attribute", "%q is not a ClassAd attribute name", s.Attribute)
	check(slices.Contains(sitaSources, s.Source), "source", "%q is not job or config", s.Source)
	errs = append(errs, c.validateSitaParams(s)...)
	return append(errs, c.validateSitaHosts(s)...)
}

// validateSitaParams checks k, p and a: required with source = "config",
// all or none with source = "job".
func (c *Config) validateSitaParams(s Sita) []error {
	set := s.K != 0 || s.P != 0 || s.A != 0
	if s.Source == "job" && !set {
		return nil
	}
	var errs []error
	check := func(ok bool, key, format string, args ...any) {
		if !ok {
			errs = append(errs, c.errorAt("startd.sita."+key, format, args...))
		}
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	why := "with source = config"
	if s.Source == "job" {
		why = "for jobs without their own parameters (or leave k, p and a all unset)"
	}
	check(finite(s.K) && s.K > 0, "k", "%g: the smallest size must be positive %s", s.K, why)
	check(finite(s.P) && s.P > s.K && finite(s.P/s.K), "p", "%g: the largest size must be above k = %g %s", s.P, s.K, why)
	check(finite(s.A) && s.A > 0, "a", "%g: the variability must be positive %s", s.A, why)
	return errs
}

// validateSitaHosts checks the table: intervals in range, no name twice.
func (c *Config) validateSitaHosts(s Sita) []error {
	names := make([]string, 0, len(s.Hosts))
	for name := range s.Hosts {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs []error
	seen := map[string]string{}
	for _, name := range names {
		key := toml.Key{"startd", "sita", "hosts", name}.String()
		if i := s.Hosts[name]; i < 1 || i > s.Intervals {
			errs = append(errs, c.errorAt(key, "interval %d: must be between 1 and intervals = %d", i, s.Intervals))
		}
		if name == "" {
			errs = append(errs, c.errorAt(key, "a host name is required"))
		}
		if other, dup := seen[strings.ToLower(name)]; dup {
			errs = append(errs, c.errorAt(key, "the same name as %q (names are compared without regard to case)", other))
		}
		seen[strings.ToLower(name)] = name
	}
	return errs
}

var sitaAttrRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// sitaAttrName reports whether name can be written TARGET.name: an
// identifier that is not a ClassAd keyword.
func sitaAttrName(name string) bool {
	switch strings.ToLower(name) {
	case "true", "false", "undefined", "error", "is", "isnt":
		return false
	}
	return sitaAttrRE.MatchString(name)
}
