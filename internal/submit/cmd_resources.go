package submit

import (
	"sort"
	"strings"

	"github.com/kite-sched/kite/classad/ast"
)

// Defaults for the resource requests (HTCondor's JOB_DEFAULT_REQUESTCPUS,
// JOB_DEFAULT_REQUESTMEMORY in MiB, JOB_DEFAULT_REQUESTDISK in KiB).
const (
	defaultRequestCpus   = 1
	defaultRequestMemory = 128
	defaultRequestDisk   = "MAX({1024, (TransferInputSizeMB+1) * 1.25}) * 1024"
)

// request describes one of the resource requests with a unit.
type request struct {
	keys []string
	attr string
	base float64 // bytes per unit of the attribute; 0: a plain expression
}

var (
	requestCpus   = request{keys: []string{"request_cpus", "requestcpus"}, attr: "RequestCpus"}
	requestMemory = request{keys: []string{"request_memory", "requestmemory"}, attr: "RequestMemory", base: 1 << 20}
	requestDisk   = request{keys: []string{"request_disk", "requestdisk"}, attr: "RequestDisk", base: 1 << 10}
)

// requestStep returns the step that sets one request: a quantity with an
// optional unit (scaled to the attribute's unit), "undefined" (no
// attribute), or any ClassAd expression; def when not given.
func requestStep(r request, def string) func(b *builder) error {
	return func(b *builder) error {
		v, m := b.value(r.keys...)
		if v == "" {
			return b.setExpr(r.attr, def, nil)
		}
		if strings.EqualFold(v, "undefined") {
			return nil
		}
		if r.base > 0 {
			if n, ok := parseQuantity(v, r.base); ok {
				b.setInt(r.attr, n)
				return nil
			}
		}
		return b.setExpr(r.attr, v, m)
	}
}

// customRequestStep returns the step for request_<name>, a custom machine
// resource: Request<name> is the value as an expression.
func customRequestStep(key string) func(b *builder) error {
	return func(b *builder) error {
		m := b.x.defs.lookup(key)
		v := b.expandCommand(key, m)
		if v == "" {
			return nil
		}
		return b.setExpr(requestAttr(m.name), v, m)
	}
}

// requestAttr returns the attribute of a request_<name> command.
func requestAttr(command string) string {
	tag := command[len("request_"):]
	if strings.EqualFold(tag, "gpus") {
		tag = "GPUs"
	}
	return "Request" + tag
}

// isCustomRequest reports whether a lower-cased command names a custom
// resource request.
func isCustomRequest(key string) bool {
	tag, ok := strings.CutPrefix(key, "request_")
	if !ok || len(tag) < 2 || tag[0] == '_' {
		return false
	}
	switch tag {
	case "cpus", "cpu", "memory", "disk":
		return false
	}
	return true
}

// machineRefs are the attributes an expression looks up in the machine
// ad: TARGET.x, and unscoped names that are not job attributes condor_submit
// knows (it knows only RequestMemory and VM_CkptMac).
func machineRefs(e ast.Expr) map[string]bool {
	refs := map[string]bool{}
	ast.Inspect(e, func(n ast.Expr) bool {
		switch x := n.(type) {
		case *ast.Select:
			if base, ok := x.X.(*ast.AttrRef); ok && !base.Absolute {
				if strings.EqualFold(base.Name, "target") {
					refs[strings.ToLower(x.Name)] = true
				}
				if strings.EqualFold(base.Name, "target") || strings.EqualFold(base.Name, "my") {
					return false
				}
			}
		case *ast.AttrRef:
			name := strings.ToLower(x.Name)
			if name != "requestmemory" && name != "vm_ckptmac" {
				refs[name] = true
			}
		}
		return true
	})
	return refs
}

// reqBuilder accumulates the Requirements expression as text, as
// condor_submit builds it.
type reqBuilder struct{ strings.Builder }

// and appends a clause with &&.
func (r *reqBuilder) and(clause string) {
	if r.Len() > 0 {
		r.WriteString(" && ")
	}
	r.WriteString(clause)
}

// stepRequirements sets Requirements: the user's expression, in
// parentheses so that its operators keep their meaning, and the clauses
// condor_submit adds for what it does not mention: Arch and OpSys of the
// submit host, disk, memory and CPUs at least the requests, custom
// resources, and a shared file system or file transfer.
func stepRequirements(b *builder) error {
	orig, m := b.value("requirements")
	if b.defined("my.requirements") {
		if orig != "" {
			b.warnf(m, "MY.Requirements (or +Requirements) overrides requirements; remove one of them")
		}
		return nil
	}
	var r reqBuilder
	refs := map[string]bool{}
	if orig != "" {
		e, err := b.x.parseExpr(orig, m)
		if err != nil {
			return err
		}
		refs = machineRefs(e)
		r.WriteString("(" + orig + ")")
	}
	b.hostClauses(&r, refs)
	b.resourceClauses(&r, refs)
	b.customClauses(&r, refs)
	b.transferClauses(&r, refs)
	b.checkpointClause(&r, refs)
	return b.setExpr("Requirements", r.String(), m)
}

// hostClauses requires the submit host's architecture and OS, or for a
// java universe job a machine with a JVM (HasJava), as condor_submit does.
func (b *builder) hostClauses(r *reqBuilder, refs map[string]bool) {
	if b.containerClauses(r, refs) {
		return
	}
	if b.isJava() {
		r.and("TARGET.HasJava")
		return
	}
	h := b.x.env.Host
	if !refs["arch"] {
		r.and(`(TARGET.Arch == ` + quote(h.Arch) + `)`)
	}
	for _, a := range []string{"opsys", "opsysandver", "opsyslongname", "opsysshortname", "opsysname", "opsyslegacy"} {
		if refs[a] {
			return
		}
	}
	r.and(`(TARGET.OpSys == ` + quote(h.OpSys) + `)`)
}

// quote returns s as a ClassAd string literal.
func quote(s string) string { return string(ast.AppendQuoted(nil, s)) }

// resourceClauses requires the requested disk, memory and CPUs.
func (b *builder) resourceClauses(r *reqBuilder, refs map[string]bool) {
	disk, hasDisk := b.attr("RequestDisk")
	switch {
	case hasDisk && (refs["disk"] || !literalAtMost(disk, 0)):
		r.and("(TARGET.Disk >= RequestDisk)")
	case !hasDisk && !refs["disk"]:
		r.and("(TARGET.Disk >= DiskUsage)")
	}
	if mem, ok := b.attr("RequestMemory"); ok && !literalAtMost(mem, 1) {
		r.and("(TARGET.Memory >= RequestMemory)")
	}
	if cpus, ok := b.attr("RequestCpus"); ok && !refs["cpus"] && !literalAtMost(cpus, 1) {
		r.and("(TARGET.Cpus >= RequestCpus)")
	}
}

// literalAtMost reports whether e is a number literal no greater than max.
func literalAtMost(e ast.Expr, max float64) bool {
	l, ok := e.(*ast.Literal)
	switch {
	case !ok:
		return false
	case l.Kind == ast.IntLit:
		return float64(l.Int) <= max
	case l.Kind == ast.RealLit:
		return l.Real <= max
	}
	return false
}

// customClauses requires each custom resource the job requests
// (Request<tag> > 0, or a string matched as a regular expression).
func (b *builder) customClauses(r *reqBuilder, refs map[string]bool) {
	for _, attr := range b.customRequests() {
		tag := attr[len("Request"):]
		if refs[strings.ToLower(tag)] {
			continue
		}
		e, _ := b.attr(attr)
		v, ok := b.x.evalConst(ast.String(e))
		if s, isStr := v.StringValue(); ok && isStr {
			if s != "" {
				r.and("regexp(" + attr + ", TARGET." + tag + ")")
			}
			continue
		}
		if n, isNum := v.NumberValue(); ok && isNum && n <= 0 {
			continue
		}
		r.and(requestClause(b, tag, attr))
	}
}

// customRequests returns the custom Request<tag> attributes the job has,
// sorted by tag without regard to case.
func (b *builder) customRequests() []string {
	seen := map[string]bool{}
	var attrs []string
	for _, key := range b.x.defs.order {
		name := b.x.defs.lookup(key).name
		switch {
		case isCustomRequest(key):
			name = requestAttr(name)
		case strings.HasPrefix(key, "my.request") && len(key) >= len("my.request")+2 && key[len("my.request")] != '_':
			name = name[len("my."):]
			if l := strings.ToLower(name); l == "requestcpus" || l == "requestmemory" || l == "requestdisk" {
				continue
			}
		default:
			continue
		}
		if l := strings.ToLower(name); !seen[l] && b.has(name) {
			seen[l] = true
			attrs = append(attrs, name)
		}
	}
	sort.Slice(attrs, func(i, j int) bool { return strings.ToLower(attrs[i]) < strings.ToLower(attrs[j]) })
	return attrs
}

// checkpointClause requires, for a self-checkpointing job
// (checkpoint_exit_code), a machine that sends its checkpoints and
// restarts it; as condor_submit does, the job then wants its files sent
// at each checkpoint (WantFTOnCheckpoint), without which HTCondor's
// starter ignores the code.
func (b *builder) checkpointClause(r *reqBuilder, refs map[string]bool) {
	if _, ok := b.attr("SuccessCheckpointExitCode"); !ok {
		return
	}
	b.setBool("WantFTOnCheckpoint", true)
	if !refs["hasselfcheckpointtransfers"] {
		r.WriteString(" && TARGET.HasSelfCheckpointTransfers")
	}
}

// transferClauses requires a machine in the submit host's file system
// domain, or one that can transfer files, as should_transfer_files says.
func (b *builder) transferClauses(r *reqBuilder, refs map[string]bool) {
	if b.runsOnSchedd() {
		return // no machine to move files to (condor_submit's mightTransfer)
	}
	const domain = "(TARGET.FileSystemDomain == MY.FileSystemDomain)"
	should := b.attrString("ShouldTransferFiles")
	if should == transferNo {
		if !refs["filesystemdomain"] {
			r.and(domain)
		}
		return
	}
	if refs["hasfiletransfer"] || refs["hasjobtransferplugins"] {
		return
	}
	open, close := " && (", ")"
	if should != transferYes && !refs["filesystemdomain"] {
		r.WriteString(" && (" + domain)
		open, close = " || (", "))"
	}
	// A job bringing its own plugins needs a machine that runs them
	// (condor_submit's rule), and no machine plugin for their schemes.
	check, own := "TARGET.HasFileTransfer", b.jobMethods()
	if len(own) > 0 {
		check = "TARGET.HasJobTransferPlugins"
	}
	r.WriteString(open + check)
	if !refs["hasfiletransferpluginmethods"] {
		for _, s := range urlSchemes(b.urls()) {
			if !own[s] {
				r.WriteString(` && stringListIMember("` + s + `",TARGET.HasFileTransferPluginMethods)`)
			}
		}
	}
	r.WriteString(close)
}
