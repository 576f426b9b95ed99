package submit

import (
	"fmt"
	"strings"
)

// CommandLine is what condor_submit's command line adds to a submit
// description (condor_submit(1), Options): definitions read before the
// file, commands read before its queue statements, and a queue statement
// for a file without one. The file itself is not changed.
type CommandLine struct {
	// Vars are the `name=value` arguments: each defines a submit command
	// or macro as if written at the top of the file, so the file's own
	// definitions win. +Attr=value is MY.Attr, as in the file.
	Vars []string
	// Append are the -append commands, `name = value` each, read
	// immediately before every queue statement, after all the file's
	// other commands (and before the queue one a file without a queue
	// statement implies). An -append that is a queue statement is taken
	// as the -queue argument, as condor_submit takes it.
	Append []string
	// Queue is the -queue argument: the arguments of the queue statement
	// of a file that has none. A file that has one is refused.
	Queue string
}

// cmdLine is a CommandLine parsed.
type cmdLine struct {
	vars, appends []stmt
	queue         *stmt
}

// ParseWith is Parse with condor_submit's command-line additions. Errors
// in them name the argument: "name=value argument 1", "-append argument
// 2", "-queue argument".
func ParseWith(name string, src []byte, cl CommandLine) (*Description, []Warning, error) {
	c, err := parseCommandLine(cl)
	if err != nil {
		return nil, nil, err
	}
	d, err := parseFile(name, src)
	if err != nil {
		return nil, nil, err
	}
	d.cl = c
	if d.includes {
		return d, nil, nil
	}
	stmts := append(append(append([]stmt(nil), c.vars...), d.stmts...), c.appends...)
	if c.queue != nil {
		stmts = append(stmts, *c.queue)
	}
	return d, unknownNames(stmts), nil
}

// parseCommandLine parses each argument as a one-line submit file of its
// own, named for the argument.
func parseCommandLine(cl CommandLine) (*cmdLine, error) {
	c := &cmdLine{}
	for i, v := range cl.Vars {
		where := fmt.Sprintf("name=value argument %d", i+1)
		if !strings.Contains(v, "=") {
			return nil, ErrorList{{File: where, Msg: fmt.Sprintf("%q is not name=value", v)}}
		}
		st, err := oneStatement(where, v)
		if err != nil {
			return nil, err
		}
		if !st.isDef() {
			return nil, ErrorList{{File: where, Msg: fmt.Sprintf("%q is not name=value", v)}}
		}
		c.vars = append(c.vars, st)
	}
	queue := cl.Queue
	for i, a := range cl.Append {
		where := fmt.Sprintf("-append argument %d", i+1)
		st, err := oneStatement(where, a)
		switch {
		case err != nil:
			return nil, err
		case st.queue != nil && queue != "":
			return nil, ErrorList{{File: where, Msg: "only one queue statement may be given on the command line (-queue, or -append \"queue ...\")"}}
		case st.queue != nil:
			queue = st.queue.args
		case !st.isDef():
			return nil, ErrorList{{File: where, Msg: fmt.Sprintf("%q is not a submit command (name = value) or a queue statement", a)}}
		default:
			c.appends = append(c.appends, st)
		}
	}
	if queue != "" {
		st, err := oneStatement("-queue argument", "queue "+queue)
		if err != nil {
			return nil, err
		}
		c.queue = &st
	}
	return c, nil
}

// oneStatement parses text as a file of one line named where.
func oneStatement(where, text string) (stmt, error) {
	if strings.ContainsAny(text, "\r\n") {
		return stmt{}, ErrorList{{File: where, Msg: fmt.Sprintf("%q spans lines: give one statement per argument", text)}}
	}
	d, err := parseFile(where, []byte(text))
	if err != nil {
		return stmt{}, err
	}
	if len(d.stmts) != 1 {
		return stmt{}, ErrorList{{File: where, Msg: fmt.Sprintf("%q is not one statement", text)}}
	}
	return d.stmts[0], nil
}

// defineVars defines the name=value arguments, before the file's first
// statement.
func (x *expander) defineVars() {
	if x.d.cl == nil {
		return
	}
	for _, st := range x.d.cl.vars {
		x.ran = append(x.ran, st)
		x.defs.define(st.key, st.value, st.sp)
	}
}

// beforeQueue runs what the command line puts before a queue statement
// of the file (at, nil for the one a file without any implies): the
// -append commands. A file's own queue statement conflicts with -queue.
func (x *expander) beforeQueue(at *stmt) error {
	if x.d.cl == nil {
		return nil
	}
	if at != nil && x.d.cl.queue != nil {
		return x.errorPos(at.sp.where(), "-queue argument conflicts with this queue statement: give one or the other")
	}
	for _, st := range x.d.cl.appends {
		x.ran = append(x.ran, st)
		x.defs.define(st.key, st.value, st.sp)
	}
	return nil
}

// impliedQueue is the queue statement run after the file when it has
// none: the -queue argument, or `queue` at the file's end.
func (x *expander) impliedQueue() stmt {
	if x.d.cl != nil && x.d.cl.queue != nil {
		return *x.d.cl.queue
	}
	return stmt{key: "queue", queue: &queueStmt{},
		sp: span{file: x.d.file, pieces: []piece{{at: pos{Line: x.d.lines}}}}}
}
