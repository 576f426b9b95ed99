package dag

import (
	"slices"
	"strings"
)

// nodeCommands are the commands that set a property of a node (or of
// ALL_NODES): each reads its arguments after the node's name and returns
// what it sets, or false after reporting a mistake.
var nodeCommands = map[string]func(p *parser, l *logical, args []token, at Pos) (func(*Node), bool){
	"PRE_SKIP":        preSkip,
	"RETRY":           retry,
	"ABORT_DAG_ON":    abortDAGOn,
	"VARS":            vars,
	"PRIORITY":        priority,
	"CATEGORY":        category,
	"DONE":            done,
	"SAVE_POINT_FILE": savePoint,
}

// nodeProperty reads a command of nodeCommands: the node (or ALL_NODES)
// is found once every node of the scope is known.
func (p *parser) nodeProperty(l *logical, kw string, args []token, at Pos) {
	if len(args) == 0 {
		p.errorf(at, "%s needs a node name", kw)
		return
	}
	set, ok := nodeCommands[kw](p, l, args[1:], at)
	if !ok {
		return
	}
	p.onNodes(l, args[0], kw, kw != "DONE" && kw != "SAVE_POINT_FILE", set)
}

// onNodes applies set, once the scope is read, to the node target names,
// or to every node but FINAL and SERVICE ones for ALL_NODES when all is
// allowed.
func (p *parser) onNodes(l *logical, target token, what string, all bool, set func(*Node)) {
	at := l.pos(target.off)
	p.pending = append(p.pending, func() {
		if strings.EqualFold(target.text, "ALL_NODES") {
			if !all {
				p.errorf(at, "%s does not take ALL_NODES", what)
				return
			}
			for _, n := range p.d.Nodes {
				if n.Kind != KindFinal && n.Kind != KindService && !strings.Contains(n.Name, "+") {
					set(n)
				}
			}
			return
		}
		i, ok := p.d.index[target.text]
		if !ok {
			if _, sp := p.splices[target.text]; sp {
				p.errorf(at, "%s: %s is a splice, which takes no %s", what, target.text, what)
				return
			}
			p.errorf(at, "%s names node %s, which is not defined", what, target.text)
			return
		}
		n := p.d.Nodes[i]
		if n.Kind == KindFinal && (what == "RETRY" || what == "ABORT_DAG_ON" || what == "PRIORITY" || what == "CATEGORY") {
			p.errorf(at, "%s may not name the FINAL node %s", what, n.Name)
			return
		}
		set(n)
	})
}

func preSkip(p *parser, l *logical, args []token, at Pos) (func(*Node), bool) {
	if len(args) != 1 {
		p.errorf(at, "PRE_SKIP needs a node and an exit code: PRE_SKIP <node> <code>")
		return nil, false
	}
	code, ok := p.atoi(l, args[0], "PRE_SKIP's exit code")
	return func(n *Node) { n.PreSkip, n.HasPreSkip = code, true }, ok
}

func retry(p *parser, l *logical, args []token, at Pos) (func(*Node), bool) {
	if len(args) != 1 && len(args) != 3 {
		p.errorf(at, "RETRY needs a node and a count: RETRY <node> <n> [UNLESS-EXIT <code>]")
		return nil, false
	}
	count, ok := p.atoi(l, args[0], "RETRY's count")
	if !ok {
		return nil, false
	}
	if count < 0 {
		p.errorf(l.pos(args[0].off), "RETRY's count must not be negative")
		return nil, false
	}
	if len(args) == 1 {
		return func(n *Node) { n.Retry, n.HasUnlessExit = count, false }, true
	}
	if keyword(args[1].text) != "UNLESS_EXIT" {
		p.errorf(l.pos(args[1].off), "expected UNLESS-EXIT, found %q", args[1].text)
		return nil, false
	}
	unless, ok := p.atoi(l, args[2], "UNLESS-EXIT's exit code")
	return func(n *Node) { n.Retry, n.UnlessExit, n.HasUnlessExit = count, unless, true }, ok
}

func abortDAGOn(p *parser, l *logical, args []token, at Pos) (func(*Node), bool) {
	if len(args) != 1 && len(args) != 3 {
		p.errorf(at, "ABORT-DAG-ON needs a node and an exit value: ABORT-DAG-ON <node> <value> [RETURN <code>]")
		return nil, false
	}
	v, ok := p.atoi(l, args[0], "ABORT-DAG-ON's exit value")
	if !ok {
		return nil, false
	}
	if len(args) == 1 {
		return func(n *Node) { n.HasAbort, n.AbortOn, n.HasAbortReturn = true, v, false }, true
	}
	if keyword(args[1].text) != "RETURN" {
		p.errorf(l.pos(args[1].off), "expected RETURN, found %q", args[1].text)
		return nil, false
	}
	rc, ok := p.atoi(l, args[2], "ABORT-DAG-ON's return code")
	if ok && (rc < 0 || rc > 255) {
		p.errorf(l.pos(args[2].off), "ABORT-DAG-ON's return code must be 0 to 255")
		return nil, false
	}
	return func(n *Node) { n.HasAbort, n.AbortOn, n.AbortReturn, n.HasAbortReturn = true, v, rc, true }, ok
}

func priority(p *parser, l *logical, args []token, at Pos) (func(*Node), bool) {
	if len(args) != 1 {
		p.errorf(at, "PRIORITY needs a node and a number: PRIORITY <node> <n>")
		return nil, false
	}
	v, ok := p.atoi(l, args[0], "PRIORITY")
	return func(n *Node) { n.Priority = v }, ok
}

func category(p *parser, l *logical, args []token, at Pos) (func(*Node), bool) {
	if len(args) != 1 {
		p.errorf(at, "CATEGORY needs a node and a category: CATEGORY <node> <category>")
		return nil, false
	}
	c := args[0].text
	return func(n *Node) { n.Category = c }, true
}

func done(p *parser, l *logical, args []token, at Pos) (func(*Node), bool) {
	if len(args) != 0 {
		p.errorf(l.pos(args[0].off), "DONE takes one node name")
		return nil, false
	}
	return func(n *Node) { n.Done = true }, true
}

func savePoint(p *parser, l *logical, args []token, at Pos) (func(*Node), bool) {
	if len(args) > 1 {
		p.errorf(l.pos(args[1].off), "SAVE_POINT_FILE takes a node and at most one file name")
		return nil, false
	}
	file := ""
	if len(args) == 1 {
		file = args[0].text
	}
	return func(n *Node) {
		n.SavePoint = file
		if n.SavePoint == "" {
			n.SavePoint = n.Name + "-" + path0(p.d.File) + ".save"
		}
	}, true
}

// path0 is the last element of a slash-separated path.
func path0(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// edges reads [WEAK] PARENT p... CHILD c...: every parent to every child.
func (p *parser) edges(l *logical, toks []token) {
	weak := keyword(toks[0].text) == "WEAK"
	if weak {
		if len(toks) == 1 || keyword(toks[1].text) != "PARENT" {
			p.errorf(l.pos(toks[0].off), "WEAK must be followed by PARENT")
			return
		}
		toks = toks[1:]
	}
	at := l.pos(toks[0].off)
	child := slices.IndexFunc(toks, func(t token) bool { return keyword(t.text) == "CHILD" })
	switch {
	case child < 0:
		p.errorf(at, "PARENT without CHILD")
		return
	case child == 1:
		p.errorf(at, "PARENT names no parent node")
		return
	case child == len(toks)-1:
		p.errorf(l.pos(toks[child].off), "CHILD names no child node")
		return
	}
	e := p.newEdgeCmd(l, toks, child, weak)
	p.pending = append(p.pending, e.apply)
}

// edgeCmd is a PARENT ... CHILD command kept until every node is known.
type edgeCmd struct {
	p                 *parser
	line              logical // for positions; its text is not kept
	parents, children []token
	weak              bool
}

// newEdgeCmd keeps a PARENT ... CHILD command, its words copied out of
// the line (which is reused), both from slabs shared by many commands.
func (p *parser) newEdgeCmd(l *logical, toks []token, child int, weak bool) *edgeCmd {
	if len(p.edgeSlab) == cap(p.edgeSlab) {
		p.edgeSlab = make([]edgeCmd, 0, 256)
	}
	if cap(p.tokSlab)-len(p.tokSlab) < len(toks) {
		p.tokSlab = make([]token, 0, max(1024, len(toks)))
	}
	start := len(p.tokSlab)
	p.tokSlab = append(p.tokSlab, toks...)
	kept := p.tokSlab[start:len(p.tokSlab):len(p.tokSlab)]
	p.edgeSlab = append(p.edgeSlab, edgeCmd{
		p: p, line: *l, parents: kept[1:child], children: kept[child+1:], weak: weak,
	})
	e := &p.edgeSlab[len(p.edgeSlab)-1]
	e.line.text = ""
	return e
}

// apply names the command's dependencies (each parent to each child).
func (e *edgeCmd) apply() {
	p := e.p
	var pb, cb [1]int
	ps := p.allEndpoints(&e.line, e.parents, false, &pb)
	cs := p.allEndpoints(&e.line, e.children, true, &cb)
	for _, a := range ps {
		for _, b := range cs {
			p.edgeRecs = append(p.edgeRecs, edgeRec{int32(a), int32(b), e.weak})
		}
	}
}

// allEndpoints returns the nodes that names in PARENT or CHILD stand for;
// one name that is a node is returned in one, without allocating.
func (p *parser) allEndpoints(l *logical, toks []token, asChild bool, one *[1]int) []int {
	if len(toks) == 1 {
		return p.endpoints(l, toks[0], asChild, one)
	}
	var out []int
	for _, t := range toks {
		out = append(out, p.endpoints(l, t, asChild, one)...)
	}
	return out
}

// endpoints returns the nodes a name in PARENT or CHILD stands for: the
// node (in one), or a splice's terminal nodes (as a parent) or initial
// ones (as a child).
func (p *parser) endpoints(l *logical, t token, asChild bool, one *[1]int) []int {
	if i, ok := p.d.index[t.text]; ok {
		if k := p.d.Nodes[i].Kind; k == KindFinal || k == KindService || k == KindProvisioner {
			p.errorf(l.pos(t.off), "%s node %s may not be in PARENT ... CHILD", k, t.text)
			return nil
		}
		one[0] = i
		return one[:]
	}
	if s, ok := p.splices[t.text]; ok {
		if asChild {
			return s.initial
		}
		return s.terminal
	}
	p.errorf(l.pos(t.off), "node %s is not defined", t.text)
	return nil
}

// edgeRec is a dependency as a PARENT ... CHILD command names it: edges
// are resolved once every command is read (buildEdges).
type edgeRec struct {
	parent, child int32
	weak          bool
}

// buildEdges adds each dependency once, in the order the commands name
// them: a parent is strong if any command names it so (strong wins over
// weak), else weak. Edges are grouped by child and marked seen per parent,
// so that the cost is linear in the edges named.
func (p *parser) buildEdges() {
	recs := p.edgeRecs
	p.edgeRecs = nil
	if len(recs) == 0 {
		return
	}
	n := len(p.d.Nodes)
	start := make([]int32, n+1) // recs of child c: order[start[c]:start[c+1]]
	for _, e := range recs {
		start[e.child+1]++
	}
	for c := range n {
		start[c+1] += start[c]
	}
	order := make([]int32, len(recs))
	fill := slices.Clone(start[:n])
	for i, e := range recs {
		order[fill[e.child]] = int32(i)
		fill[e.child]++
	}
	keep := make([]bool, len(recs))
	strong, weak := make([]int32, n), make([]int32, n) // child+1 where seen
	for c := range n {
		stamp, group := int32(c+1), order[start[c]:start[c+1]]
		for _, i := range group {
			if e := recs[i]; !e.weak && strong[e.parent] != stamp {
				strong[e.parent], keep[i] = stamp, true
			}
		}
		for _, i := range group {
			if e := recs[i]; e.weak && strong[e.parent] != stamp && weak[e.parent] != stamp {
				weak[e.parent], keep[i] = stamp, true
			}
		}
	}
	p.addEdges(recs, keep)
}

// addEdges appends the kept dependencies to the nodes, room for them
// made first.
func (p *parser) addEdges(recs []edgeRec, keep []bool) {
	nodes := p.d.Nodes
	parents, children := make([]int32, len(nodes)), make([]int32, len(nodes))
	total := 0
	for i, e := range recs {
		if keep[i] && !e.weak {
			parents[e.child]++
			children[e.parent]++
			total += 2
		}
	}
	backing := make([]int, total)
	room := func(s []int, k int32) []int {
		if k == 0 || len(s) > 0 {
			return s
		}
		r := backing[:0:k]
		backing = backing[k:]
		return r
	}
	for i, nd := range nodes {
		nd.Parents, nd.Children = room(nd.Parents, parents[i]), room(nd.Children, children[i])
	}
	for i, e := range recs {
		switch pa, ch := nodes[e.parent], nodes[e.child]; {
		case !keep[i]:
		case e.weak:
			ch.Weak = append(ch.Weak, int(e.parent))
		default:
			ch.Parents = append(ch.Parents, int(e.parent))
			pa.Children = append(pa.Children, int(e.child))
		}
	}
}

// script reads SCRIPT [DEFER <status> <secs>] [DEBUG <file> STDOUT|STDERR|ALL]
// PRE|POST|HOLD <node> <executable> [args...].
func (p *parser) script(l *logical, args []token, at Pos) {
	s := &Script{}
	if len(args) > 0 && keyword(args[0].text) == "DEFER" {
		if len(args) < 3 {
			p.errorf(at, "SCRIPT DEFER needs an exit status and a delay in seconds")
			return
		}
		var ok bool
		if s.DeferStatus, ok = p.atoi(l, args[1], "DEFER's exit status"); !ok {
			return
		}
		if s.DeferSecs, ok = p.atoi(l, args[2], "DEFER's delay"); !ok {
			return
		}
		// as DAGMan's parser: a positive status, a delay of 0 or more
		if s.DeferStatus < 1 {
			p.errorf(l.pos(args[1].off), "DEFER's exit status must be positive")
			return
		}
		if s.DeferSecs < 0 {
			p.errorf(l.pos(args[2].off), "DEFER's delay must not be negative")
			return
		}
		args = args[3:]
	}
	if len(args) > 0 && keyword(args[0].text) == "DEBUG" {
		if len(args) < 3 || !slices.Contains([]string{"STDOUT", "STDERR", "ALL"}, strings.ToUpper(args[2].text)) {
			p.errorf(at, "SCRIPT DEBUG needs a file and STDOUT, STDERR or ALL")
			return
		}
		s.Debug, s.DebugWhich = args[1].text, strings.ToUpper(args[2].text)
		args = args[3:]
	}
	if len(args) < 3 {
		p.errorf(at, "SCRIPT needs PRE, POST or HOLD, a node and an executable")
		return
	}
	var kind ScriptKind
	switch keyword(args[0].text) {
	case "PRE":
		kind = Pre
	case "POST":
		kind = Post
	case "HOLD":
		kind = Hold
	default:
		p.errorf(l.pos(args[0].off), "SCRIPT: expected PRE, POST or HOLD, found %q", args[0].text)
		return
	}
	s.Pos = l.pos(args[2].off)
	for _, t := range args[2:] {
		s.Argv = append(s.Argv, t.text)
	}
	p.onNodes(l, args[1], "SCRIPT", true, func(n *Node) { c := *s; n.Scripts[kind] = &c })
}

// vars reads VARS's [PREPEND|APPEND] name="value" ... (values in double
// quotes, with \" and \\ escaped).
func vars(p *parser, l *logical, args []token, at Pos) (func(*Node), bool) {
	if len(args) == 0 {
		p.errorf(at, "VARS needs a node and at least one name=\"value\"")
		return nil, false
	}
	appendMode := false
	switch keyword(args[0].text) {
	case "PREPEND":
		args = args[1:]
	case "APPEND":
		appendMode = true
		args = args[1:]
	}
	if len(args) == 0 {
		p.errorf(at, "VARS needs at least one name=\"value\"")
		return nil, false
	}
	vs, ok := p.scanVars(l, args[0].off, appendMode)
	if !ok {
		return nil, false
	}
	return func(n *Node) {
		for _, v := range vs {
			n.Vars = slices.DeleteFunc(n.Vars, func(o Var) bool { return strings.EqualFold(o.Name, v.Name) })
			n.Vars = append(n.Vars, v)
		}
	}, true
}

// scanVars reads name="value" pairs from off to the end of the line.
func (p *parser) scanVars(l *logical, off int, appendMode bool) ([]Var, bool) {
	s := l.text
	var out []Var
	i := off
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
		if i >= len(s) {
			return out, true
		}
		start := i
		for i < len(s) && (isNameByte(s[i]) || (i == start && s[i] == '+')) {
			i++
		}
		name := s[start:i]
		switch {
		case name == "" || name == "+":
			p.errorf(l.pos(start), "VARS: expected a macro name, found %q", s[start:])
			return nil, false
		case strings.HasPrefix(strings.ToLower(name), "queue"):
			p.errorf(l.pos(start), "VARS: macro names may not begin with \"queue\"")
			return nil, false
		}
		if i >= len(s) || s[i] != '=' {
			p.errorf(l.pos(i), "VARS: expected = after %s", name)
			return nil, false
		}
		i++
		if i >= len(s) || s[i] != '"' {
			p.errorf(l.pos(i), "VARS: the value of %s must be in double quotes", name)
			return nil, false
		}
		val, next, ok := unquote(s, i)
		if !ok {
			p.errorf(l.pos(i), "VARS: the value of %s has no closing quote", name)
			return nil, false
		}
		i = next
		out = append(out, Var{Name: name, Value: val, Append: appendMode})
	}
}

func isNameByte(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// unquote reads a double-quoted value at s[i] with \" and \\ escapes.
func unquote(s string, i int) (string, int, bool) {
	if j := strings.IndexAny(s[i+1:], `"\\`); j >= 0 && s[i+1+j] == '"' { // no escapes: a part of s
		return s[i+1 : i+1+j], i + 2 + j, true
	}
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\'):
			b.WriteByte(s[j+1])
			j++
		case c == '"':
			return b.String(), j + 1, true
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}
