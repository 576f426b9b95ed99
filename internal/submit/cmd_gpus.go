package submit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad/ast"
)

// The GPU commands of HTCondor 25's condor_submit (HTCondor manual,
// man-pages/htcondor-jdl.rst, "request_gpus", "require_gpus",
// "gpus_minimum_capability" ...; users-manual/submitting-a-job.rst
// "Jobs That Require GPUs"). request_gpus itself is a custom resource
// request (RequestGPUs).
var gpuKeys = []string{"require_gpus", "gpus_minimum_capability", "gpus_maximum_capability",
	"gpus_minimum_memory", "gpus_minimum_runtime"}

func init() {
	for _, k := range gpuKeys {
		knownCommands[k] = true
	}
}

// gpuLimit is a gpus_* command: the attribute it sets, the GPU property
// its clause of RequireGPUs reads, and the clause.
type gpuLimit struct {
	key, attr, prop, clause string
	parse                   func(b *builder, v string, m *macro) (ast.Expr, error)
}

var gpuLimits = []gpuLimit{
	{"gpus_minimum_capability", "GPUsMinCapability", "capability", "Capability >= GPUsMinCapability", limitExpr},
	{"gpus_maximum_capability", "GPUsMaxCapability", "capability", "Capability <= GPUsMaxCapability", limitExpr},
	{"gpus_minimum_memory", "GPUsMinMemory", "globalmemorymb", "GlobalMemoryMb >= GPUsMinMemory", parseGPUMemory},
	{"gpus_minimum_runtime", "GPUsMinRuntime", "maxsupportedversion", "MaxSupportedVersion >= GPUsMinRuntime", parseRuntime},
}

// stepGPUs sets, for a job with a RequestGPUs, RequireGPUs and the
// limits' attributes, as condor_submit's SetRequestGpus and
// SetResourceRequirements do: RequireGPUs is require_gpus (in
// parentheses when && would split it) and, joined with &&, the clause
// of each limit whose GPU property it does not read already (an
// explicit Capability test wins over the capability limits). Each is
// evaluated by the startd in each GPU's property ad. Without a
// RequestGPUs they mean nothing: condor_submit drops them, and Kite
// says so.
func stepGPUs(b *builder) error {
	var first *macro
	for _, k := range gpuKeys {
		if v, m := b.value(k); v != "" && first == nil {
			first = m
		}
	}
	if first == nil {
		return nil
	}
	if !b.has("RequestGPUs") {
		b.warnf(first, "%s has no effect without request_gpus", first.name)
		return nil
	}
	var req ast.Expr
	refs := map[string]bool{}
	text, rm := b.value("require_gpus")
	if text != "" {
		var err error
		if req, err = b.x.parseExpr(text, rm); err != nil {
			return err
		}
		refs = machineRefs(req)
		b.set("RequireGPUs", req)
	}
	var clauses []string
	for _, l := range gpuLimits {
		v, m := b.value(l.key)
		if v == "" {
			continue
		}
		e, err := l.parse(b, v, m)
		if err != nil {
			return err
		}
		b.set(l.attr, e)
		if !refs[l.prop] {
			clauses = append(clauses, l.clause)
		}
	}
	if len(clauses) == 0 {
		return nil
	}
	if req != nil {
		clauses = append([]string{wrapForAnd(text, req)}, clauses...)
	}
	return b.setExpr("RequireGPUs", strings.Join(clauses, " && "), first)
}

// wrapForAnd puts an expression in parentheses when its top operator
// binds more loosely than && (||, ?:, a conditional), so that joining it
// with && keeps its meaning.
func wrapForAnd(text string, e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Binary:
		if x.Op.Precedence() < ast.OpAnd.Precedence() {
			return "(" + text + ")"
		}
	case *ast.Cond:
		return "(" + text + ")"
	}
	return text
}

// limitExpr takes a limit as a ClassAd expression (a capability: 8.0).
func limitExpr(b *builder, v string, m *macro) (ast.Expr, error) {
	return b.x.parseExpr(v, m)
}

// parseGPUMemory reads a GPU memory size, in MiB unless a unit says
// otherwise (20G is 20480, 4.1 GB is 4199); what is not a size is taken
// as an expression.
func parseGPUMemory(b *builder, v string, m *macro) (ast.Expr, error) {
	if n, ok := parseQuantity(v, 1<<20); ok {
		return b.x.intLit(n), nil
	}
	return b.x.parseExpr(v, m)
}

// parseRuntime reads a CUDA version: 12.1 is 12010 (major*1000 +
// minor*10), 12 is 12000, and a number above 1000 is taken as already in
// that form; anything else is taken as an expression.
func parseRuntime(b *builder, v string, m *macro) (ast.Expr, error) {
	maj, min, dotted := strings.Cut(strings.TrimSpace(v), ".")
	a, err1 := strconv.ParseInt(maj, 10, 64)
	c, err2 := strconv.ParseInt(min, 10, 64)
	switch {
	case err1 != nil || a < 0:
	case !dotted && a > 1000:
		return b.x.intLit(a), nil
	case !dotted:
		return b.x.intLit(a * 1000), nil
	case err2 == nil && c >= 0 && c < 100:
		return b.x.intLit(a*1000 + c*10), nil
	}
	return b.x.parseExpr(v, m)
}

// requestClause is the Requirements clause of a custom resource request: the
// slot has enough of it, or, when the job has Require<tag>, enough of its
// devices meet it (countMatches over the slot's Available<tag>), as
// condor_submit writes it.
func requestClause(b *builder, tag, attr string) string {
	if b.has("Require" + tag) {
		return fmt.Sprintf("(countMatches(MY.Require%s, TARGET.Available%s) >= %s)", tag, tag, attr)
	}
	return "(TARGET." + tag + " >= " + attr + ")"
}
