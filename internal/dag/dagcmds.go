package dag

import (
	"path"
	"strings"

	"github.com/kite-sched/kite/classad"
)

// dagCommands are the commands about the whole DAG.
var dagCommands = map[string]func(p *parser, l *logical, args []token, at Pos){
	"MAXJOBS":          maxJobs,
	"CONFIG":           configCmd,
	"SET_JOB_ATTR":     setJobAttr,
	"ENV":              envCmd,
	"DOT":              dotCmd,
	"NODE_STATUS_FILE": nodeStatusFile,
	"JOBSTATE_LOG":     jobstateLog,
}

func maxJobs(p *parser, l *logical, args []token, at Pos) {
	if len(args) != 2 {
		p.errorf(at, "MAXJOBS needs a category and a number: MAXJOBS <category> <n>")
		return
	}
	n, ok := p.atoi(l, args[1], "MAXJOBS's limit")
	if !ok {
		return
	}
	if n < 0 {
		p.errorf(l.pos(args[1].off), "MAXJOBS's limit must not be negative")
		return
	}
	if p.d.MaxJobs == nil {
		p.d.MaxJobs = map[string]int{}
	}
	p.d.MaxJobs[args[0].text] = n
}

func configCmd(p *parser, l *logical, args []token, at Pos) {
	if len(args) != 1 {
		p.errorf(at, "CONFIG needs one file name")
		return
	}
	if p.d.Config != "" && p.d.Config != args[0].text {
		p.errorf(at, "a second CONFIG file %s (%s is one already); a DAG has at most one", args[0].text, p.d.Config)
		return
	}
	p.d.Config = args[0].text
}

// setJobAttr reads SET_JOB_ATTR <name> = <value> (the value is the rest
// of the line).
func setJobAttr(p *parser, l *logical, args []token, at Pos) {
	if len(args) == 0 {
		p.errorf(at, "SET_JOB_ATTR needs <name> = <value>")
		return
	}
	rest := strings.TrimSpace(l.text[args[0].off:])
	name, value, ok := strings.Cut(rest, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || value == "" || strings.ContainsAny(name, " \t") {
		p.errorf(l.pos(args[0].off), "SET_JOB_ATTR needs <name> = <value>")
		return
	}
	if _, err := classad.ParseExpr(value); err != nil {
		_, after, _ := strings.Cut(rest, "=")
		p.errorf(l.pos(args[0].off+len(rest)-len(strings.TrimLeft(after, " \t"))), "SET_JOB_ATTR %s: the value is not a ClassAd expression: %v", name, err)
		return
	}
	for i, a := range p.d.JobAttrs {
		if strings.EqualFold(a.Name, name) {
			p.d.JobAttrs[i].Value = value
			return
		}
	}
	p.d.JobAttrs = append(p.d.JobAttrs, Attr{name, value})
}

// envCmd reads ENV GET <names...> and ENV SET <k=v;k=v>.
func envCmd(p *parser, l *logical, args []token, at Pos) {
	if len(args) < 2 {
		p.errorf(at, "ENV needs GET <variables> or SET <name=value;...>")
		return
	}
	switch keyword(args[0].text) {
	case "GET":
		for _, t := range args[1:] {
			p.d.EnvGet = append(p.d.EnvGet, strings.Split(t.text, ",")...)
		}
	case "SET":
		for kv := range strings.SplitSeq(strings.TrimSpace(l.text[args[1].off:]), ";") {
			if kv = strings.TrimSpace(kv); kv == "" {
				continue
			}
			if !strings.Contains(kv, "=") {
				p.errorf(l.pos(args[1].off), "ENV SET: %q is not name=value", kv)
				return
			}
			p.d.EnvSet = append(p.d.EnvSet, kv)
		}
	default:
		p.errorf(l.pos(args[0].off), "ENV: expected GET or SET, found %q", args[0].text)
	}
}

func dotCmd(p *parser, l *logical, args []token, at Pos) {
	if len(args) == 0 {
		p.errorf(at, "DOT needs a file name")
		return
	}
	d := &DOT{File: args[0].text, Overwrite: true}
	for i := 1; i < len(args); i++ {
		switch keyword(args[i].text) {
		case "UPDATE":
			d.Update = true
		case "DONT_UPDATE":
			d.Update = false
		case "OVERWRITE":
			d.Overwrite = true
		case "DONT_OVERWRITE":
			d.Overwrite = false
		case "INCLUDE":
			if i+1 >= len(args) {
				p.errorf(l.pos(args[i].off), "DOT INCLUDE needs a file name")
				return
			}
			d.Include = args[i+1].text
			i++
		default:
			p.errorf(l.pos(args[i].off), "DOT: unexpected %q", args[i].text)
			return
		}
	}
	p.d.Dot = d
}

func nodeStatusFile(p *parser, l *logical, args []token, at Pos) {
	if len(args) == 0 || len(args) > 3 {
		p.errorf(at, "NODE_STATUS_FILE needs a file name, then optionally a minimum interval and ALWAYS-UPDATE")
		return
	}
	f := &NodeStatusFile{File: args[0].text, MinSecs: 60}
	for _, t := range args[1:] {
		if keyword(t.text) == "ALWAYS_UPDATE" {
			f.Always = true
			continue
		}
		n, ok := p.atoi(l, t, "NODE_STATUS_FILE's interval")
		if !ok {
			return
		}
		f.MinSecs = n
	}
	if p.depth == 0 || p.d.NodeStatusFile == nil {
		p.d.NodeStatusFile = f
	}
}

func jobstateLog(p *parser, l *logical, args []token, at Pos) {
	if len(args) != 1 {
		p.errorf(at, "JOBSTATE_LOG needs one file name")
		return
	}
	if p.d.JobstateLog == "" { // the first one wins
		p.d.JobstateLog = args[0].text
	}
}

// spliceCmd reads SPLICE <name> <dag file> [DIR <dir>]: the file is read
// as a DAG of its own, whose nodes join this one as name+node.
func (p *parser) spliceCmd(l *logical, args []token, at Pos) {
	if len(args) != 2 && !(len(args) == 4 && keyword(args[2].text) == "DIR") {
		p.errorf(at, "SPLICE needs a name and a DAG file: SPLICE <name> <dag file> [DIR <dir>]")
		return
	}
	name := args[0].text
	if !p.nodeName(l, args[0]) {
		return
	}
	if _, dup := p.splices[name]; dup {
		p.errorf(l.pos(args[0].off), "splice %s is defined twice", name)
		return
	}
	if _, dup := p.d.index[name]; dup {
		p.errorf(l.pos(args[0].off), "splice %s has the name of a node", name)
		return
	}
	dir := ""
	if len(args) == 4 {
		dir = args[3].text
	}
	src, ok := p.read(l, args[1], dir, "SPLICE")
	if !ok {
		return
	}
	sub := newParser(Options{Dir: path.Join(p.o.Dir, dir), ReadFile: p.o.ReadFile}, p.depth+1)
	sub.file(p.resolve(dir, args[1].text), src)
	sd := sub.finish()
	for _, e := range sub.errs {
		p.errorf(e.Pos, "%s", e.Msg)
	}
	if len(sub.errs) > 0 {
		return
	}
	p.merge(l.pos(args[0].off), name, dir, sd)
}

// merge adds a spliced DAG's nodes as name+node, its categories scoped
// the same way (a category written +cat is global).
func (p *parser) merge(at Pos, name, dir string, sd *DAG) {
	if sd.Final >= 0 || sd.Provisioner >= 0 {
		p.errorf(at, "splice %s: a spliced DAG may have no FINAL or PROVISIONER node", name)
		return
	}
	base := len(p.d.Nodes)
	s := &splice{}
	for i, n := range sd.Nodes {
		c := *n
		c.Name = name + "+" + n.Name
		c.Dir = joinDir(dir, n.Dir)
		c.Category = scopeCategory(name, n.Category)
		c.Parents, c.Weak, c.Children = offset(n.Parents, base), offset(n.Weak, base), offset(n.Children, base)
		p.d.index[c.Name] = base + i
		p.d.Nodes = append(p.d.Nodes, &c)
		if len(n.Parents) == 0 && len(n.Weak) == 0 {
			s.initial = append(s.initial, base+i)
		}
		if len(n.Children) == 0 {
			s.terminal = append(s.terminal, base+i)
		}
	}
	for cat, n := range sd.MaxJobs {
		if p.d.MaxJobs == nil {
			p.d.MaxJobs = map[string]int{}
		}
		if _, outer := p.d.MaxJobs[scopeCategory(name, cat)]; !outer {
			p.d.MaxJobs[scopeCategory(name, cat)] = n
		}
	}
	p.splices[name] = s
}

func joinDir(outer, inner string) string {
	switch {
	case outer == "" || strings.HasPrefix(inner, "/"):
		return inner
	case inner == "":
		return outer
	}
	return outer + "/" + inner
}

func scopeCategory(splice, cat string) string {
	switch {
	case cat == "":
		return ""
	case strings.HasPrefix(cat, "+"):
		return cat
	}
	return splice + "+" + cat
}

func offset(idx []int, base int) []int {
	if idx == nil {
		return nil
	}
	out := make([]int, len(idx))
	for i, x := range idx {
		out[i] = x + base
	}
	return out
}
