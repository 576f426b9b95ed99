package dag

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Options are what Parse needs from outside the file.
type Options struct {
	// Dir is the DAG's directory, against which INCLUDE and SPLICE files
	// are found.
	Dir string
	// ReadFile reads INCLUDE and SPLICE files. Nil: such commands are
	// errors.
	ReadFile func(name string) ([]byte, error)
}

// maxDepth bounds nested INCLUDE and SPLICE files.
const maxDepth = 20

// Parse reads a DAG file. The error is an ErrorList, each at
// file:line:col.
func Parse(name string, src []byte, o Options) (*DAG, error) {
	p := newParser(o, 0)
	p.file(name, src)
	d := p.finish()
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	if err := d.check(); err != nil {
		return nil, err
	}
	return d, nil
}

// parser reads one scope: the top DAG or one splice (INCLUDE files share
// their includer's scope).
type parser struct {
	o        Options
	depth    int
	d        *DAG
	errs     ErrorList
	descs    map[string]desc
	splices  map[string]*splice
	pending  []func() // commands that name nodes, applied once all are known
	edgeRecs []edgeRec
	uses     []descUse
	toks     []token // the current line's words (reused line to line)
	slab     []Node  // nodes are allocated from here, many at a time
	// edgeSlab and tokSlab hold the PARENT ... CHILD commands and their
	// words, many at a time.
	edgeSlab []edgeCmd
	tokSlab  []token
}

// desc is a SUBMIT-DESCRIPTION.
type desc struct {
	text string
	pos  Pos
}

// descUse is a node whose description is a name: a SUBMIT-DESCRIPTION,
// or else a file.
type descUse struct {
	node *Node
	name string
}

// splice is a spliced DAG's initial and terminal nodes.
type splice struct {
	initial, terminal []int
}

func newParser(o Options, depth int) *parser {
	return &parser{
		o: o, depth: depth,
		d:     &DAG{Final: -1, Provisioner: -1, index: map[string]int{}},
		descs: map[string]desc{}, splices: map[string]*splice{},
	}
}

func (p *parser) errorf(at Pos, format string, args ...any) {
	if len(p.errs) < maxErrors {
		p.errs = append(p.errs, &Error{Pos: at, Msg: fmt.Sprintf(format, args...)})
	}
}

// file reads a file into the scope.
func (p *parser) file(name string, src []byte) {
	if p.d.File == "" {
		p.d.File = name
		p.presize(src)
	}
	r := newLines(name, src)
	for {
		l, ok := r.logical()
		if !ok {
			return
		}
		p.line(r, l)
	}
}

// finish resolves what names nodes or descriptions, in file order.
func (p *parser) finish() *DAG {
	for _, u := range p.uses {
		n := u.node
		if ds, ok := p.descs[u.name]; ok {
			n.Inline, n.InlinePos = ds.text, ds.pos
		} else {
			n.Submit = u.name
		}
	}
	for _, f := range p.pending {
		f()
	}
	p.buildEdges()
	return p.d
}

// presize makes room for the nodes of a DAG file, counted roughly as the
// lines that begin with JOB, so that a large DAG is not grown a step at a
// time.
func (p *parser) presize(src []byte) {
	n := bytes.Count(src, []byte("\nJOB ")) + 1
	p.d.Nodes = make([]*Node, 0, n)
	p.d.index = make(map[string]int, n)
}

// newNode returns a zero node from the parser's slab.
func (p *parser) newNode() *Node {
	if len(p.slab) == cap(p.slab) {
		p.slab = make([]Node, 0, 256)
	}
	p.slab = p.slab[:len(p.slab)+1]
	return &p.slab[len(p.slab)-1]
}

// line reads one command.
func (p *parser) line(r *lines, l *logical) {
	toks := l.fields(p.toks)
	p.toks = toks
	kw := keyword(toks[0].text)
	args := toks[1:]
	at := l.pos(toks[0].off)
	switch kw {
	case "JOB":
		p.nodeCmd(r, l, args, at, KindJob)
	case "FINAL":
		p.nodeCmd(r, l, args, at, KindFinal)
	case "PROVISIONER":
		p.nodeCmd(r, l, args, at, KindProvisioner)
	case "SERVICE":
		p.nodeCmd(r, l, args, at, KindService)
	case "SUBDAG":
		if len(args) == 0 || keyword(args[0].text) != "EXTERNAL" {
			p.errorf(at, "SUBDAG needs EXTERNAL: SUBDAG EXTERNAL <name> <dag file> [DIR <dir>] [NOOP] [DONE]")
			return
		}
		p.nodeCmd(r, l, args[1:], at, KindSubDAG)
	case "SUBMIT_DESCRIPTION":
		p.submitDescription(r, l, args, at)
	case "SPLICE":
		p.spliceCmd(l, args, at)
	case "PARENT", "WEAK":
		p.edges(l, toks)
	case "SCRIPT":
		p.script(l, args, at)
	case "INCLUDE":
		p.include(l, args, at)
	case "REJECT":
		p.d.Reject = true
	default:
		if f, ok := dagCommands[kw]; ok {
			f(p, l, args, at)
			return
		}
		if _, ok := nodeCommands[kw]; ok {
			p.nodeProperty(l, kw, args, at)
			return
		}
		if unsupported[kw] {
			p.errorf(at, "%s is not supported by Kite", toks[0].text)
			return
		}
		p.errorf(at, "unknown command %q", toks[0].text)
	}
}

// unsupported are DAGMan commands Kite refuses by name.
var unsupported = map[string]bool{"CONNECT": true, "PIN_IN": true, "PIN_OUT": true, "TOLERANCE": true}

// reservedNames may not name a node.
var reservedNames = [...]string{"PARENT", "CHILD", "ALL_NODES"}

// isReserved reports whether name is one of reservedNames, in any case.
func isReserved(name string) bool {
	for _, r := range reservedNames {
		if strings.EqualFold(name, r) {
			return true
		}
	}
	return false
}

// nodeCmd reads JOB, FINAL, PROVISIONER, SERVICE and SUBDAG EXTERNAL:
// <name> <description> [DIR <dir>] [NOOP] [DONE].
func (p *parser) nodeCmd(r *lines, l *logical, args []token, at Pos, kind Kind) {
	if len(args) < 2 {
		p.errorf(at, "%s needs a node name and a %s", kind, map[bool]string{true: "DAG file", false: "submit description"}[kind == KindSubDAG])
		return
	}
	name := args[0]
	if !p.nodeName(l, name) {
		return
	}
	n := p.newNode()
	n.Name, n.Pos, n.Kind = name.text, l.pos(name.off), kind
	descTok := args[1]
	rest := args[2:]
	switch {
	case kind == KindSubDAG:
		n.Submit = descTok.text
	case descTok.text == "{" || strings.HasPrefix(descTok.text, "@="):
		text, pos, ok := p.inlineBody(r, l, descTok)
		if !ok {
			return
		}
		n.Inline, n.InlinePos = text, pos
	}
	for i := 0; i < len(rest); i++ {
		switch kw := keyword(rest[i].text); {
		case kw == "DIR" && i+1 < len(rest):
			n.Dir = rest[i+1].text
			i++
		case kw == "NOOP" && kind != KindProvisioner && kind != KindService:
			n.Noop = true
		case kw == "DONE" && (kind == KindJob || kind == KindSubDAG):
			n.Done = true
		default:
			p.errorf(l.pos(rest[i].off), "unexpected %q after %s %s's description", rest[i].text, kind, name.text)
			return
		}
	}
	if p.addNode(n, l.pos(args[0].off)) && n.Inline == "" && kind != KindSubDAG {
		p.uses = append(p.uses, descUse{n, descTok.text})
	}
}

// addNode adds a node, refusing a second FINAL or PROVISIONER.
func (p *parser) addNode(n *Node, at Pos) bool {
	d := p.d
	if _, dup := d.index[n.Name]; dup {
		p.errorf(at, "node %s is defined twice (first at %s)", n.Name, d.Nodes[d.index[n.Name]].Pos)
		return false
	}
	i := len(d.Nodes)
	switch n.Kind {
	case KindFinal:
		if d.Final >= 0 {
			p.errorf(at, "a second FINAL node %s (%s is one already)", n.Name, d.Nodes[d.Final].Name)
			return false
		}
		d.Final = i
	case KindProvisioner:
		if d.Provisioner >= 0 {
			p.errorf(at, "a second PROVISIONER node %s (%s is one already)", n.Name, d.Nodes[d.Provisioner].Name)
			return false
		}
		d.Provisioner = i
	}
	d.index[n.Name] = i
	d.Nodes = append(d.Nodes, n)
	return true
}

// nodeName checks a new node's name.
func (p *parser) nodeName(l *logical, t token) bool {
	switch {
	case isReserved(t.text):
		p.errorf(l.pos(t.off), "%s is a reserved word and may not name a node", t.text)
	case strings.Contains(t.text, "+"):
		p.errorf(l.pos(t.off), "node name %s: '+' is reserved for splices", t.text)
	case t.text == "{" || t.text == "}":
		p.errorf(l.pos(t.off), "missing node name before %q", t.text)
	default:
		return true
	}
	return false
}

// inlineBody reads an inline submit description: the lines after `{` up
// to a line that is `}`, or after `@=tag` up to `@tag`. It returns the
// text and where its first line is.
func (p *parser) inlineBody(r *lines, l *logical, open token) (string, Pos, bool) {
	end := "}"
	if strings.HasPrefix(open.text, "@=") {
		end = "@" + open.text[2:]
	}
	start := l.pos(open.off)
	var body []string
	first := 0
	for {
		raw, line, ok := r.raw()
		if !ok {
			p.errorf(start, "the submit description begun here has no closing %q", end)
			return "", Pos{}, false
		}
		if first == 0 {
			first = line
		}
		if strings.TrimSpace(raw) == end {
			return strings.Join(body, "\n") + "\n", Pos{File: l.file, Line: first}, true
		}
		body = append(body, raw)
	}
}

// submitDescription reads SUBMIT-DESCRIPTION <name> { ... }.
func (p *parser) submitDescription(r *lines, l *logical, args []token, at Pos) {
	if len(args) != 2 || (args[1].text != "{" && !strings.HasPrefix(args[1].text, "@=")) {
		p.errorf(at, "SUBMIT-DESCRIPTION needs a name and an inline description: SUBMIT-DESCRIPTION <name> {")
		return
	}
	text, pos, ok := p.inlineBody(r, l, args[1])
	if !ok {
		return
	}
	name := args[0].text
	if prev, dup := p.descs[name]; dup {
		p.errorf(l.pos(args[0].off), "submit description %s is defined twice (first at %s)", name, prev.pos)
		return
	}
	p.descs[name] = desc{text, pos}
}

// include reads INCLUDE <file> in place.
func (p *parser) include(l *logical, args []token, at Pos) {
	if len(args) != 1 {
		p.errorf(at, "INCLUDE needs one file name")
		return
	}
	src, ok := p.read(l, args[0], "", "INCLUDE")
	if !ok {
		return
	}
	p.depth++
	p.file(p.resolve("", args[0].text), src)
	p.depth--
}

// resolve makes a file name relative to the DAG's directory (and dir).
func (p *parser) resolve(dir, name string) string {
	if path.IsAbs(name) {
		return name
	}
	return path.Join(p.o.Dir, dir, name)
}

// read reads an INCLUDE or SPLICE file.
func (p *parser) read(l *logical, t token, dir, what string) ([]byte, bool) {
	at := l.pos(t.off)
	if p.o.ReadFile == nil {
		p.errorf(at, "%s %s: files cannot be read here", what, t.text)
		return nil, false
	}
	if p.depth >= maxDepth {
		p.errorf(at, "%s %s: more than %d nested files", what, t.text, maxDepth)
		return nil, false
	}
	src, err := p.o.ReadFile(p.resolve(dir, t.text))
	if err != nil {
		p.errorf(at, "%s: %v", what, err)
		return nil, false
	}
	return src, true
}

// atoi reads an integer argument.
func (p *parser) atoi(l *logical, t token, what string) (int, bool) {
	n, err := strconv.Atoi(t.text)
	if err != nil {
		p.errorf(l.pos(t.off), "%s must be an integer, not %q", what, t.text)
		return 0, false
	}
	return n, true
}
