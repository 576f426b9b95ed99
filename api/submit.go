package api

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// SubmitDescription is a parsed submit description, in condor_submit's
// language (docs/submit.md), ready to be submitted.
type SubmitDescription struct {
	d   *submit.Description
	dir string
	// FileSystemDomain, when set, replaces the submit host's
	// FILESYSTEM_DOMAIN: jobs of a description submitted with the
	// execute hosts' domain share their files instead of transferring
	// them.
	FileSystemDomain string
}

// SubmitOptions are condor_submit's command-line additions.
type SubmitOptions struct {
	// Dir is the submit directory: relative paths in the description are
	// taken from it. "" is the current directory.
	Dir string
	// Vars are `name=value` definitions, as if at the top of the file.
	Vars []string
	// Append are `name = value` commands read before every queue
	// statement (condor_submit -append).
	Append []string
	// Queue is the queue statement's arguments for a description that
	// has none (condor_submit -queue).
	Queue string
}

// ParseSubmit parses a submit description; name names it in errors
// (file:line:col). The warnings are those condor_submit prints (unknown
// commands, ...): the description is usable despite them.
func ParseSubmit(name string, src []byte, o SubmitOptions) (*SubmitDescription, []string, error) {
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	d, warns, err := submit.ParseWith(name, src, submit.CommandLine{Vars: o.Vars, Append: o.Append, Queue: o.Queue})
	out := make([]string, len(warns))
	for i, w := range warns {
		out[i] = w.String()
	}
	if err != nil {
		return nil, out, err
	}
	return &SubmitDescription{d: d, dir: dir}, out, nil
}

// Submit queues the jobs of a submit description as one cluster,
// committed all or nothing, as kite submit does: a cluster id from the
// schedd, the description expanded with it, one request. The warnings are
// those of the expansion.
func (s *Schedd) Submit(ctx context.Context, sd *SubmitDescription) (SubmitResult, []string, error) {
	var nc wire.NewCluster
	if err := s.c.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		return SubmitResult{}, nil, err
	}
	env := submit.LocalEnv(sd.dir)
	if sd.FileSystemDomain != "" {
		env.Host.FileSystemDomain = sd.FileSystemDomain
	}
	env.Cluster, env.Owner, env.MaxJobs = int(nc.Cluster), nc.Owner, nc.MaxJobs
	cl, late, warns, err := sd.d.ExpandLate(env)
	out := make([]string, len(warns))
	for i, w := range warns {
		out[i] = w.String()
	}
	if err != nil {
		return SubmitResult{}, out, err
	}
	query := "?cluster=" + strconv.FormatInt(nc.Cluster, 10)
	var res SubmitResult
	if late != nil { // max_idle or max_materialize: a job factory
		err = s.c.CallRaw(ctx, "POST", wire.PathSubmitFactory+query, late.AppendJSON(nil), &res)
		return res, out, err
	}
	if len(cl.Procs) == 0 {
		return SubmitResult{}, out, fmt.Errorf("%s: no jobs to submit (queue 0)", sd.d.File())
	}
	err = s.c.CallRaw(ctx, "POST", wire.PathSubmit+query, cl.AppendJSON(nil), &res)
	return res, out, err
}

// SubmitAds queues jobs given as ads instead of a submit description:
// the cluster's ad (what its jobs share: Cmd, Requirements, ...) and one
// ad per job with its own attributes, committed all or nothing. The
// schedd sets ClusterId, Owner, QDate and its other attributes, and
// JobStatus to idle unless the cluster ad sets it; SubmitAds sets each
// job's ProcId (0, 1, ...) in its ad.
func (s *Schedd) SubmitAds(ctx context.Context, cluster *classad.Ad, procs []*classad.Ad) (SubmitResult, error) {
	if len(procs) == 0 {
		return SubmitResult{}, fmt.Errorf("submit: no jobs (want at least one job ad)")
	}
	var nc wire.NewCluster
	if err := s.c.Call(ctx, "POST", wire.PathNewCluster, nil, &nc); err != nil {
		return SubmitResult{}, err
	}
	for i, p := range procs {
		p.Set(attr.ProcID, ast.Int(int64(i)))
	}
	body := classad.AppendJSONArray(nil, append([]*classad.Ad{cluster}, procs...))
	var res SubmitResult
	err := s.c.CallRaw(ctx, "POST", wire.PathSubmit+"?cluster="+strconv.FormatInt(nc.Cluster, 10), body, &res)
	return res, err
}
