package submit

import (
	"fmt"
	"strings"
)

// Description is a parsed submit description file: its commands, macro
// definitions and queue statements in order. Expand turns it into job ads.
type Description struct {
	file  string
	stmts []stmt
	// lines is the number of lines of the file, for the queue statement a
	// file without one implies at its end.
	lines int
	// includes says the file has include statements: which names are
	// used as macros is known only once they are read, so unknown names
	// are warned about by Expand rather than Parse.
	includes bool
	// cl is what condor_submit's command line adds (ParseWith).
	cl *cmdLine
}

// stmt is one statement: `name = value` (every command is also a macro
// definition), a queue statement, or a control statement (if, elif,
// else, endif, include, error, warning).
type stmt struct {
	key   string     // the name; +Attr is written MY.Attr
	value string     // the value, or a control statement's argument
	sp    span       // where the value (or the queue arguments) starts
	queue *queueStmt // non-nil for a queue statement
	ctl   *control   // non-nil for a control statement
	// bad holds the errors of a line inside an if statement: they count
	// only if the line is read, as condor_submit skips the lines of the
	// branches it does not take (which may use syntax of a later version).
	bad ErrorList
}

// isDef reports whether st is a `name = value` line.
func (st *stmt) isDef() bool { return st.queue == nil && st.ctl == nil && st.bad == nil }

// queueStmt is a queue statement as written.
type queueStmt struct {
	args  string     // the text after "queue", macros not yet expanded
	lines []itemLine // the lines of an item list that spans lines
}

// itemLine is one line of a multi-line item list.
type itemLine struct {
	text string
	line int
}

// File returns the name the description was parsed under.
func (d *Description) File() string { return d.file }

// Parse reads a submit description file. name is the file's name, used in
// errors and warnings and for $(SUBMIT_FILE). Commands Kite does not know
// give warnings (from Expand instead when the file has include
// statements); syntax errors give an ErrorList naming file and line (and
// column where known), and no description. Errors on lines inside an if
// statement are reported by Expand, and only if it takes their branch.
func Parse(name string, src []byte) (*Description, []Warning, error) {
	d, err := parseFile(name, src)
	if err != nil {
		return nil, nil, err
	}
	if d.includes {
		return d, nil, nil
	}
	return d, unknownNames(d.stmts), nil
}

// parseFile is Parse without the warnings about unknown names, which need
// every file of the submit to be read.
func parseFile(name string, src []byte) (*Description, error) {
	if err := checkUTF8(name, src); err != nil {
		return nil, ErrorList{err}
	}
	p := &parser{d: &Description{file: name}, r: reader{src: string(src)}}
	for len(p.errs) < maxErrors {
		l, ok := p.r.next()
		if !ok {
			break
		}
		l.sp.file = name
		p.statementIn(l)
	}
	p.d.lines = max(p.r.line, 1)
	p.unclosedIfs()
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return p.d, nil
}

// parser holds the state of one Parse.
type parser struct {
	d    *Description
	r    reader
	errs ErrorList
	ifs  []openIf // the if statements not yet closed, innermost last
}

func (p *parser) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.d.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// errorAt records an error at a line and column.
func (p *parser) errorAt(at pos, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.d.file, Line: at.Line, Col: at.Col, Msg: fmt.Sprintf(format, args...)})
}

// statementIn parses one logical line; inside an if statement, the
// line's errors are kept for Expand, which reports them if it reads the
// line.
func (p *parser) statementIn(l logical) {
	word, n := firstWord(l.text), len(p.errs)
	p.statement(l)
	if len(p.ifs) == 0 || len(p.errs) == n || condWords[word] {
		return
	}
	bad := append(ErrorList(nil), p.errs[n:]...)
	p.errs = p.errs[:n]
	p.d.stmts = append(p.d.stmts, stmt{sp: l.sp, bad: bad})
}

// statement parses one logical line.
func (p *parser) statement(l logical) {
	line := l.sp.line()
	if args, ok := queueArgsOf(l.text); ok {
		p.queue(l, args)
		return
	}
	if word := firstWord(l.text); controlWords[word] {
		p.control(l, word)
		return
	}
	eq := strings.IndexByte(l.text, '=')
	if eq < 0 {
		p.errorf(line, "syntax error: expected name = value or a queue statement, found %q", clip(l.text))
		return
	}
	key := trimSpace(l.text[:eq])
	if name, ok := strings.CutSuffix(key, "@"); ok {
		p.multiLine(trimSpace(name), trimSpace(l.text[eq+1:]), l)
		return
	}
	value, skip := trimLeft(l.text[eq+1:])
	p.assign(key, value, l.sp.from(eq+1+skip), line)
}

// firstWord returns the first word of a statement that is not an
// assignment (one whose first word is followed by a space or ':', not '=').
func firstWord(s string) string {
	i := strings.IndexAny(s, " \t:=")
	if i < 0 {
		return strings.ToLower(s)
	}
	if rest, _ := trimLeft(s[i:]); strings.HasPrefix(rest, "=") {
		return ""
	}
	return strings.ToLower(s[:i])
}

// clip shortens text quoted in an error.
func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// assign records name = value.
func (p *parser) assign(key, value string, sp span, line int) {
	if strings.HasPrefix(key, "+") {
		key = "MY." + trimSpace(key[1:])
	}
	if !validKey(key) {
		p.errorf(line, "invalid name %q: names are letters, digits, '_' and '.'", key)
		return
	}
	if len(key) > 3 && strings.EqualFold(key[:3], "my.") {
		key = "MY." + key[3:]
		if !validAttrName(key[3:]) {
			p.errorf(line, "invalid attribute name %q", key[3:])
			return
		}
	}
	sp.file = p.d.file
	p.d.stmts = append(p.d.stmts, stmt{key: key, value: value, sp: sp})
}

// validKey reports whether s is a valid command or macro name.
func validKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

// validAttrName reports whether s is a plain ClassAd attribute name.
func validAttrName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

// multiLine reads a value written `name @=tag`, lines, `@tag`.
func (p *parser) multiLine(key, tag string, l logical) {
	start := l.sp.line()
	var b strings.Builder
	var sp span
	for {
		text, n, ok := p.r.physical()
		if !ok {
			p.errorf(start, "value of %s not closed: no line @%s before the end of the file", key, tag)
			return
		}
		if trimSpace(text) == "@"+tag {
			break
		}
		if len(sp.pieces) > 0 {
			b.WriteByte('\n')
		}
		sp.pieces = append(sp.pieces, piece{off: b.Len(), at: pos{Line: n, Col: 1}})
		b.WriteString(text)
	}
	if len(sp.pieces) == 0 {
		sp.pieces = []piece{{off: 0, at: pos{Line: start, Col: 1}}}
	}
	p.assign(key, b.String(), sp, start)
}

// queueArgsOf returns the arguments of a queue statement.
func queueArgsOf(s string) (string, bool) {
	if len(s) < 5 || !strings.EqualFold(s[:5], "queue") {
		return "", false
	}
	if len(s) > 5 && !isBlank(s[5]) {
		return "", false
	}
	return s[5:], true
}

// queue records a queue statement, reading the lines of an item list that
// spans lines.
func (p *parser) queue(l logical, args string) {
	line := l.sp.line()
	st := stmt{key: "queue", sp: l.sp, queue: &queueStmt{args: args}}
	q, err := parseQueueArgs(args)
	if err != nil && !strings.Contains(args, "$") {
		p.errorf(line, "invalid queue statement: %v", err)
		return
	}
	if err == nil && q.open {
		lines, ok := p.itemLines()
		if !ok {
			p.errorf(line, "queue item list not closed: no line starting with ')' before the end of the file")
			return
		}
		st.queue.lines = lines
	}
	p.d.stmts = append(p.d.stmts, st)
}

// itemLines reads the lines of a multi-line item list up to the line that
// starts with ')', skipping blank lines and # comments.
func (p *parser) itemLines() ([]itemLine, bool) {
	lines := []itemLine{}
	for {
		text, n, ok := p.r.physical()
		if !ok {
			return nil, false
		}
		text = trimSpace(text)
		switch {
		case strings.HasPrefix(text, ")"):
			return lines, true
		case text == "" || isComment(text):
		default:
			lines = append(lines, itemLine{text: text, line: n})
		}
	}
}

// unknownNames warns about names that are neither commands nor used as
// macros, as condor_submit warns about unused lines.
func unknownNames(stmts []stmt) []Warning {
	used := map[string]bool{}
	for _, st := range stmts {
		text := st.value
		if st.queue != nil {
			text = st.queue.args
		}
		references(text, func(name string) { used[strings.ToLower(name)] = true })
	}
	seen := map[string]bool{}
	var warns []Warning
	for _, st := range stmts {
		key := strings.ToLower(st.key)
		if !st.isDef() || seen[key] || used[key] || knownCommands[key] ||
			strings.Contains(key, ".") || isCustomRequest(key) {
			continue
		}
		seen[key] = true
		at := st.sp.where()
		warns = append(warns, Warning{File: at.File, Line: at.Line, Msg: unknownKey(st.key, key)})
	}
	return warns
}

// unknownKey says what is wrong with one unknown or ignored name.
func unknownKey(name, key string) string {
	if reason, ok := ignoredReason(key); ok {
		if reason == "" {
			reason = "Kite ignores it"
		}
		return name + " is not supported: " + reason
	}
	if key == "request_cpu" {
		return "request_cpu is not a submit command; did you mean request_cpus?"
	}
	return "unknown command " + name + ", and no macro uses it: is it a typo?"
}
