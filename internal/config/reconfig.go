package config

import (
	"reflect"
	"slices"
	"strings"
)

// `kite reconfig` hands each running daemon the configuration read again.
// The keys below are applied there live; every other key is read when its
// daemon starts, and a reconfig that finds one changed names it as needing
// a restart of that daemon (HTCondor's manual, "Configuration Macros":
// some settings need condor_restart rather than condor_reconfig).

// liveKeys are the keys (or tables) running daemons apply on reconfig.
var liveKeys = []string{
	"master.daemons",           // the master starts and stops daemons
	"negotiator.limits",        // the negotiator's next cycle uses them
	"negotiator.default_limit", // likewise
}

// AppliesLive reports whether a running daemon applies key on reconfig.
func AppliesLive(key string) bool { return slices.Contains(liveKeys, key) }

// Changed returns the keys whose values differ between two
// configurations, sorted; a table of names ([negotiator.limits],
// [startd.attributes], ...) counts as one key, changed when any entry is.
func Changed(old, new *Config) []string {
	var out []string
	diffStruct(reflect.ValueOf(old).Elem(), reflect.ValueOf(new).Elem(), "", &out)
	slices.Sort(out)
	return out
}

func diffStruct(a, b reflect.Value, prefix string, out *[]string) {
	for _, f := range tomlFields(a.Type()) {
		av, bv := a.Field(f.index), b.Field(f.index)
		key := f.key
		if prefix != "" {
			key = prefix + "." + f.key
		}
		if av.Kind() == reflect.Struct && !isLeaf(av) {
			diffStruct(av, bv, key, out)
			continue
		}
		if (av.Kind() == reflect.Map || av.Kind() == reflect.Slice) && av.Len() == 0 && bv.Len() == 0 {
			continue // absent and empty are the same
		}
		if !reflect.DeepEqual(av.Interface(), bv.Interface()) {
			*out = append(*out, key)
		}
	}
}

// Daemon returns the daemon that reads key: collector, negotiator,
// schedd, startd or master; "" for the sections every daemon reads
// (pool, tls, log, membership).
func Daemon(key string) string {
	section, _, _ := strings.Cut(key, ".")
	switch section {
	case "collector", "negotiator", "schedd", "startd", "master":
		return section
	}
	return ""
}
