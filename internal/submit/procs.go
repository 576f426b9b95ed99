package submit

import (
	"path"
	"sort"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// queue makes the procs of one queue statement.
func (x *expander) queue(st *stmt) error {
	q, err := x.queueArgs(st)
	if err != nil {
		return err
	}
	count, err := x.queueCount(q, st)
	if err != nil {
		return err
	}
	items, err := x.items(q, st)
	if err != nil {
		return err
	}
	vars := q.vars
	if q.mode != foreachNone && len(vars) == 0 {
		vars = []string{"Item"}
	}
	b := &builder{x: x, stmt: st, cache: map[string]cached{}, exp: expansion{sc: x.sc}}
	b.nprocs = count * selectedCount(q.slice, len(items))
	if x.maxProcs > 0 && !x.lateMaterialized() && x.nextProc+b.nprocs > x.maxProcs {
		return x.errorPos(st.sp.where(), "too many jobs: more than %d in one submit (the schedd's limit, schedd.max_jobs_per_submission)", x.maxProcs)
	}
	steps := x.steps()
	for row, item := range items {
		if !q.slice.selected(row, len(items)) {
			continue
		}
		x.setLoopVars(vars, splitItem(item, len(vars)))
		for s := range count {
			if err := x.makeProc(b, steps, s, row); err != nil {
				return err
			}
		}
	}
	for _, v := range vars {
		x.defs.define(v, "", span{}) // condor_submit leaves loop variables empty
	}
	x.sc.loopVars = nil
	return nil
}

// selectedCount returns how many of n items a slice selects.
func selectedCount(s slice, n int) int {
	c := 0
	for i := range n {
		if s.selected(i, n) {
			c++
		}
	}
	return c
}

// setLoopVars sets the loop variables for one item.
func (x *expander) setLoopVars(vars, vals []string) {
	if x.sc.loopVars == nil {
		x.sc.loopVars = make(map[string]string, len(vars))
	}
	for i, v := range vars {
		x.sc.loopVars[strings.ToLower(v)] = vals[i]
	}
}

// makeProc makes the next proc: the statement's first proc runs every
// step, the others only the dynamic ones. The proc's own attributes are
// kept in its group's arena; cluster makes the ads at the end.
func (x *expander) makeProc(b *builder, steps []step, stepNum, row int) error {
	x.sc.proc, x.sc.step, x.sc.row = x.nextProc, stepNum, row
	b.dyn = b.dyn[:0]
	if b.static == nil {
		if err := x.firstProc(b, steps); err != nil {
			return err
		}
	} else {
		for _, i := range b.dynamic {
			if err := b.runStep(i, steps[i]); err != nil {
				return err
			}
		}
	}
	g := x.groups[len(x.groups)-1]
	if g.procs == nil {
		// Size the arena from the first proc, so that it rarely grows.
		g.procs = make([]procAttrs, 0, b.nprocs)
		g.attrs = make([]attrVal, 0, b.nprocs*len(b.dyn))
	}
	g.procs = append(g.procs, procAttrs{id: x.nextProc, start: len(g.attrs), end: len(g.attrs) + len(b.dyn)})
	g.attrs = append(g.attrs, b.dyn...)
	x.nextProc++
	return nil
}

// firstProc builds the statement's first proc in tracking mode.
func (x *expander) firstProc(b *builder, steps []step) error {
	b.static = classad.NewAd()
	b.static.Set("ClusterId", x.intLit(int64(x.env.Cluster)))
	if x.env.Owner != "" {
		b.static.Set("Owner", ast.Str(x.env.Owner))
	}
	b.tracking = true
	for i, s := range steps {
		if err := b.runStep(i, s); err != nil {
			return err
		}
	}
	b.tracking = false
	x.groups = append(x.groups, &group{static: b.static})
	return nil
}

// queueArgs expands and parses the arguments of a queue statement, adding
// the lines of a list that spans lines.
func (x *expander) queueArgs(st *stmt) (queueArgs, error) {
	x.sc.proc, x.sc.step, x.sc.row = x.nextProc, 0, 0
	exp := expansion{sc: x.sc}
	text := exp.expand(st.queue.args)
	if exp.err != nil {
		return queueArgs{}, x.errorPos(st.sp.where(), "%v", exp.err)
	}
	q, err := parseQueueArgs(text)
	if err != nil {
		return q, x.errorPos(st.sp.where(), "invalid queue statement: %v", err)
	}
	if q.open != (st.queue.lines != nil) {
		return q, x.errorPos(st.sp.where(), "invalid queue statement: the item list's parentheses do not match")
	}
	for _, l := range st.queue.lines {
		q.addItems(l.text)
	}
	return q, nil
}

// queueCount evaluates the count of a queue statement.
func (x *expander) queueCount(q queueArgs, st *stmt) (int, error) {
	if q.count == "" {
		return 1, nil
	}
	n, ok := x.evalInt(q.count)
	if !ok || n < 0 || n >= 1<<31-1 {
		return 0, x.errorPos(st.sp.where(), "invalid queue statement: the count %q is not a non-negative integer", q.count)
	}
	return int(n), nil
}

// items returns the items of a queue statement; a statement without a
// list has one empty item.
func (x *expander) items(q queueArgs, st *stmt) ([]string, error) {
	switch {
	case q.mode == foreachNone:
		return []string{""}, nil
	case q.mode == foreachFrom && q.file != "":
		return x.fromFile(q.file, st)
	case q.mode == foreachMatching:
		return x.matching(q, st)
	}
	return q.items, nil
}

// fromFile reads the items of `queue ... from file`: one per line, blank
// lines and # comments skipped. A name ending in '|' is a command whose
// output is the list.
func (x *expander) fromFile(name string, st *stmt) ([]string, error) {
	var data []byte
	var err error
	if cmd, ok := strings.CutSuffix(name, "|"); ok {
		if x.env.RunCommand == nil {
			return nil, x.errorPos(st.sp.where(), "queue from %q: running commands is not enabled", name)
		}
		data, err = x.env.RunCommand(trimSpace(cmd))
	} else {
		if x.env.ReadFile == nil {
			return nil, x.errorPos(st.sp.where(), "queue from %q: reading files is not enabled", name)
		}
		data, err = x.env.ReadFile(fullPath(name, x.env.Dir))
	}
	if err != nil {
		return nil, x.errorPos(st.sp.where(), "queue from %s: %v", name, err)
	}
	if err := checkUTF8(name, data); err != nil {
		return nil, x.errorPos(st.sp.where(), "queue from %v", err)
	}
	var items []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = trimSpace(line); line != "" && !isComment(line) {
			items = append(items, line)
		}
	}
	return items, nil
}

// matching expands the globs of `queue ... matching` as condor_submit
// does: relative to the submit directory (not the initial directory, which
// may depend on the items), sorted per glob, directories marked with a
// trailing '/', names starting with '.' matched only by a dotted glob, and
// a name that an earlier glob matched skipped.
func (x *expander) matching(q queueArgs, st *stmt) ([]string, error) {
	if x.env.Glob == nil {
		return nil, x.errorPos(st.sp.where(), "queue matching: file globbing is not enabled")
	}
	seen := map[string]bool{}
	var items []string
	for _, pat := range q.items {
		found, err := x.glob(pat, q.match)
		if err != nil {
			return nil, x.errorPos(st.sp.where(), "queue matching %q: %v", pat, err)
		}
		if len(found) == 0 {
			x.warn(st.sp.where(), "'"+pat+"' does not match any files")
		}
		for _, f := range found {
			if seen[f] {
				x.warn(st.sp.where(), "'"+f+"' matching pattern '"+pat+"' is a duplicate, skipping")
				continue
			}
			seen[f] = true
			items = append(items, f)
		}
	}
	return items, nil
}

// glob returns the names matching one pattern (relative to the submit
// directory when the pattern is), directories with a trailing '/'.
func (x *expander) glob(pat string, kind matchKind) ([]string, error) {
	names, err := x.env.Glob(fullPath(pat, x.env.Dir))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	dotted := strings.HasPrefix(path.Base(pat), ".")
	var out []string
	for _, n := range names {
		if strings.HasPrefix(path.Base(n), ".") && !dotted {
			continue // as glob(3), * does not match a leading dot
		}
		dir := x.isDir(n)
		if kind == matchFiles && dir || kind == matchDirs && !dir {
			continue
		}
		if !path.IsAbs(pat) {
			n = strings.TrimPrefix(strings.TrimPrefix(n, compressPath(x.env.Dir)), "/")
		}
		if dir {
			n += "/"
		}
		out = append(out, n)
	}
	return out, nil
}

// isDir reports whether name is a directory, when the Env can tell.
func (x *expander) isDir(name string) bool {
	if x.env.Stat == nil {
		return false
	}
	fi, err := x.env.Stat(name)
	return err == nil && fi.IsDir()
}
