package submit

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// maxIncludeDepth bounds the nesting of include statements, so that a
// file that includes itself through a command is stopped too.
const maxIncludeDepth = 16

// statements runs the statements of the submit file and the files it
// includes, in order, with the command line's additions (ParseWith). A
// file with no queue statement queues one job at its end, as
// condor_submit does, or as the -queue argument says.
func (x *expander) statements() error {
	x.defineVars()
	if err := x.run(x.d, []string{joinPath(x.env.Dir, x.d.file)}); err != nil {
		return err
	}
	if x.queued == 0 {
		if err := x.beforeQueue(nil); err != nil {
			return err
		}
		x.ran = append(x.ran, x.impliedQueue())
		if err := x.queue(&x.ran[len(x.ran)-1]); err != nil {
			return err
		}
	}
	if x.d.includes {
		for _, w := range unknownNames(x.ran) {
			x.warn(pos{File: w.File, Line: w.Line}, w.Msg)
		}
	}
	return nil
}

// run runs the statements of one file. chain names the files being
// included, outermost first, to find cycles.
func (x *expander) run(d *Description, chain []string) error {
	var ifs condStack
	for i := range d.stmts {
		st := &d.stmts[i]
		if st.ctl != nil {
			handled, err := ifs.step(x, st)
			if err != nil {
				return err
			}
			if handled {
				continue
			}
		}
		if !ifs.enabled() {
			continue
		}
		if st.bad != nil {
			return st.bad
		}
		x.ran = append(x.ran, *st)
		var err error
		switch {
		case st.ctl != nil:
			err = x.control(st, chain)
		case st.queue != nil:
			x.queued++
			if err = x.beforeQueue(st); err == nil {
				err = x.queue(st)
			}
		default:
			x.defs.define(st.key, st.value, st.sp)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// condStack is the if statements enclosing a statement of one file.
type condStack []condFrame

// condFrame is one if statement: whether the branch being read is taken,
// whether an earlier branch was, and whether the if itself is read.
type condFrame struct {
	on, taken, outer bool
}

func (s condStack) enabled() bool { return len(s) == 0 || s[len(s)-1].on }

// step handles st if it is an if, elif, else or endif. Conditions are
// evaluated only where they are read, as condor_submit does.
func (s *condStack) step(x *expander, st *stmt) (bool, error) {
	switch st.ctl.kind {
	case "if":
		f := condFrame{outer: s.enabled()}
		if f.outer {
			v, err := x.condition(st)
			if err != nil {
				return true, err
			}
			f.on, f.taken = v, v
		}
		*s = append(*s, f)
	case "elif":
		f := &(*s)[len(*s)-1]
		f.on = false
		if f.outer && !f.taken {
			v, err := x.condition(st)
			if err != nil {
				return true, err
			}
			f.on, f.taken = v, v
		}
	case "else":
		f := &(*s)[len(*s)-1]
		f.on, f.taken = f.outer && !f.taken, true
	case "endif":
		*s = (*s)[:len(*s)-1]
	default:
		return false, nil
	}
	return true, nil
}

// condition evaluates the condition of an if or elif with the macros
// defined so far. A condition whose macros expand to nothing is false.
func (x *expander) condition(st *stmt) (bool, error) {
	text := st.value
	if strings.Contains(text, "$") {
		exp := expansion{sc: x.sc}
		text = trimSpace(exp.expand(text))
		if exp.err != nil {
			return false, x.expansionError(exp.err, st.asMacro(), pos{})
		}
		if body := trimSpace(strings.TrimPrefix(text, "!")); body == "" {
			return body != text, nil
		}
	}
	v, why := evalCondition(text, x.sc.defined)
	if why != "" {
		shown := text
		if text != st.value {
			shown = fmt.Sprintf("%s (expanded from %s)", text, st.value)
		}
		return false, x.errorPos(st.sp.at(0), "%s is not a valid %s condition: %s", shown, st.ctl.kind, why)
	}
	return v, nil
}

// control runs an include, error or warning statement.
func (x *expander) control(st *stmt, chain []string) error {
	exp := expansion{sc: x.sc}
	arg := trimSpace(exp.expand(st.value))
	if exp.err != nil {
		return x.expansionError(exp.err, st.asMacro(), pos{})
	}
	switch st.ctl.kind {
	case "error":
		return x.errorPos(st.sp.at(0), "error: %s", arg)
	case "warning":
		x.warn(st.sp.where(), "warning: "+arg)
		return nil
	}
	return x.include(st, arg, chain)
}

// include reads a file, or runs a command, and runs the statements it
// gives as if they were written in place of the include statement.
func (x *expander) include(st *stmt, target string, chain []string) error {
	at := st.sp.at(0)
	name, key, data, err := x.includeSource(st, target)
	if err != nil {
		if st.ctl.ifExist && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return x.errorPos(at, "include : %s: %v", name, err)
	}
	for _, c := range chain {
		if c == key {
			return x.errorPos(at, "include : %s: the file includes itself (%s)", name, strings.Join(append(chain, key), " -> "))
		}
	}
	if len(chain) > maxIncludeDepth {
		return x.errorPos(at, "include : %s: includes nested more than %d deep", name, maxIncludeDepth)
	}
	sub, err := parseFile(name, data)
	if err != nil {
		return err
	}
	return x.run(sub, append(chain, key))
}

// includeSource reads what an include statement names: the file's text,
// or the command's output. name is how errors in that text name it, and
// key identifies it in the chain of includes.
func (x *expander) includeSource(st *stmt, target string) (name, key string, data []byte, err error) {
	if st.ctl.command {
		name = target + " |"
		if x.env.RunCommand == nil {
			return name, "", nil, errors.New("running commands is not enabled")
		}
		data, err = x.env.RunCommand(target)
		return name, "command: " + target, data, err
	}
	if x.env.ReadFile == nil {
		return target, "", nil, errors.New("reading files is not enabled")
	}
	path := fullPath(target, x.env.Dir)
	data, err = x.env.ReadFile(path)
	return target, path, data, err
}

// asMacro returns a control statement's argument as a macro, for errors.
func (st *stmt) asMacro() *macro {
	return &macro{name: st.ctl.kind, value: st.value, sp: st.sp}
}

// defined reports whether a name is defined and not empty, for `if
// defined NAME`.
func (sc *scope) defined(name string) bool {
	if _, ok := sc.hardInt(name); ok {
		return true
	}
	key := strings.ToLower(name)
	if v, ok := sc.loopVars[key]; ok {
		return v != ""
	}
	if m := sc.defs.lookup(key); m != nil {
		return m.value != ""
	}
	if _, ok := sc.softInt(key); ok {
		return true
	}
	v, ok := sc.soft(key)
	return ok && v != ""
}
