// Package jobenv reads the command line and environment a job's process
// runs with from its ad, as HTCondor's starter does: Arguments (the V2
// syntax) when the ad has it, else the old Args (V1); Environment (V2)
// when the ad has it, else the old Env (V1). Every place that starts a
// job's process (the startd's starter, the schedd's local and scheduler
// universes) uses it, so they read a job the same way.
package jobenv

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/envargs"
	"github.com/kite-sched/kite/internal/attr"
)

// DefaultPath is the PATH a job gets when its environment has none.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin"

// Arguments returns the job's arguments: Arguments (V2) when set, else
// Args (V1).
func Arguments(ad *classad.Ad) ([]string, error) {
	if _, ok := ad.Lookup(attr.Arguments); ok {
		return envargs.SplitArgsV2(classad.EvalStringOr(ad, attr.Arguments, ""))
	}
	return envargs.SplitArgsV1(classad.EvalStringOr(ad, attr.Args, "")), nil
}

// Environment returns the job's own environment: Environment (V2) when
// set, else Env (V1).
func Environment(ad *classad.Ad) (*envargs.Env, error) {
	env := &envargs.Env{}
	var err error
	if _, ok := ad.Lookup(attr.Environment); ok {
		err = env.MergeV2(classad.EvalStringOr(ad, attr.Environment, ""))
	} else {
		err = env.MergeV1Auto(classad.EvalStringOr(ad, "Env", ""))
	}
	if err != nil {
		return nil, fmt.Errorf("the job's environment: %w", err)
	}
	return env, nil
}

// List returns env as sorted NAME=VALUE entries, the form exec.Cmd.Env
// takes, with PATH set to DefaultPath when env has none. The entries are
// cut from one string: the list costs two allocations (its names, that
// string), not one for each variable.
func List(env *envargs.Env) []string {
	if _, ok := env.Get("PATH"); !ok {
		env.Set("PATH", DefaultPath)
	}
	names := env.Names()
	size := 0
	for _, n := range names {
		v, _ := env.Get(n)
		size += len(n) + 1 + len(v)
	}
	var b strings.Builder
	b.Grow(size)     // never grown again: each entry stays a piece of one string
	out := names[:0] // each name is read before its entry takes its place
	for _, n := range names {
		v, _ := env.Get(n)
		start := b.Len()
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(v)
		out = append(out, b.String()[start:])
	}
	sort.Strings(out)
	return out
}
