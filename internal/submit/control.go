package submit

import (
	"strings"
)

// Control statements, as the HTCondor manual's "Using Conditionals in the
// Submit Description File" and "Including Submit Commands Defined
// Elsewhere" describe them (users-manual/submitting-a-job), with the
// config language's `error :` and `warning :` (the two languages share a
// parser):
//
//	if <condition> / elif <condition> / else / endif   nest; checked by Parse
//	include [ifexist] [command] : <file>  or  : <command line> |
//	error : <message>   warning : <message>
//
// Parse checks that every if has its endif (errors name file, line and
// column); Expand evaluates the conditions, with the macros defined at that
// point, and reads included files through the Env.

// control is a control statement.
type control struct {
	kind    string // "if", "elif", "else", "endif", "include", "error", "warning"
	ifExist bool   // include ifexist: a missing file is not an error
	command bool   // include of a command's output
}

// condWords are the words of if statements, whose errors are never
// deferred: they say how the file nests.
var condWords = map[string]bool{"if": true, "elif": true, "else": true, "endif": true}

// controlWords are the words that start a control statement.
var controlWords = map[string]bool{
	"if": true, "elif": true, "else": true, "endif": true,
	"include": true, "error": true, "warning": true,
}

// openIf is an if statement whose endif Parse has not seen yet.
type openIf struct {
	at       pos
	seenElse bool
}

// control parses a control statement whose first word is word.
func (p *parser) control(l logical, word string) {
	at := l.sp.at(0)
	rest, skip := trimLeft(l.text[len(word):])
	argSp := l.sp.from(len(word) + skip)
	st := stmt{value: rest, sp: argSp, ctl: &control{kind: word}}
	switch word {
	case "if":
		if rest == "" {
			p.errorAt(at, "if without a condition")
			return
		}
		if len(p.ifs) == 0 {
			p.checkCondition(rest, argSp.at(0), word)
		}
		p.ifs = append(p.ifs, openIf{at: at})
	case "elif":
		if !p.inIf(at, word) {
			return
		}
		if rest == "" {
			p.errorAt(at, "elif without a condition")
			return
		}
	case "else":
		if !p.inIf(at, word) {
			return
		}
		p.ifs[len(p.ifs)-1].seenElse = true
	case "endif":
		if len(p.ifs) == 0 {
			p.errorAt(at, "endif without matching if")
			return
		}
		p.ifs = p.ifs[:len(p.ifs)-1]
	default:
		if !p.colonStatement(&st, at) {
			return
		}
	}
	p.d.stmts = append(p.d.stmts, st)
}

// inIf checks that an elif or else has an if to belong to, and follows no
// else.
func (p *parser) inIf(at pos, word string) bool {
	if len(p.ifs) == 0 {
		p.errorAt(at, "%s without matching if", word)
		return false
	}
	if p.ifs[len(p.ifs)-1].seenElse {
		p.errorAt(at, "%s is not allowed after else", word)
		return false
	}
	return true
}

// unclosedIfs reports the if statements the file leaves open.
func (p *parser) unclosedIfs() {
	for _, f := range p.ifs {
		p.errorAt(f.at, "if without matching endif")
	}
}

// colonStatement parses the options and argument of `include [options] :
// arg`, `error : message` or `warning : message` into st.
func (p *parser) colonStatement(st *stmt, at pos) bool {
	word := st.ctl.kind
	colon := strings.IndexByte(st.value, ':')
	if colon < 0 {
		p.errorAt(at, "%s statement without ':' (write %s : ...)", word, word)
		return false
	}
	opts := strings.Fields(strings.ToLower(st.value[:colon]))
	arg, skip := trimLeft(st.value[colon+1:])
	st.sp = st.sp.from(colon + 1 + skip)
	st.value = arg
	if word != "include" {
		if len(opts) > 0 {
			p.errorAt(at, "unexpected %q before ':' in %s statement", strings.Join(opts, " "), word)
			return false
		}
		return true
	}
	p.d.includes = true
	for _, o := range opts {
		switch o {
		case "ifexist", "ifexists":
			st.ctl.ifExist = true
		case "command", "output":
			st.ctl.command = true
		default:
			p.errorAt(at, "include option %q is not supported (only ifexist and command)", o)
			return false
		}
	}
	if cmd, ok := strings.CutSuffix(arg, "|"); ok {
		st.value, st.ctl.command = trimSpace(cmd), true
	}
	if st.value == "" {
		p.errorAt(at, "include of nothing: name a file, or a command followed by '|'")
		return false
	}
	return true
}

// checkCondition reports, at Parse, a condition that can never be valid:
// one without macros that is not a condition. Only the conditions of
// outermost ifs are checked so: the others are evaluated (and their
// errors reported) only if Expand reaches them.
func (p *parser) checkCondition(cond string, at pos, word string) {
	if strings.Contains(cond, "$") {
		return
	}
	if _, why := evalCondition(cond, nil); why != "" {
		p.errorAt(at, "%s is not a valid %s condition: %s", cond, word, why)
	}
}
