package submit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad/ast"
)

// scope resolves macro references at one point of the file: the submit
// file's definitions, the automatic variables of the proc being made, the
// loop variables of its item, and the submit host's facts.
//
// Lookup order, as condor_submit's: Cluster, ClusterId, Process, ProcId
// and the loop variables first; then the file's definitions; then the
// other automatic variables (Step, Row, ItemIndex, JobId, Node, ARCH,
// OPSYS, ...), which a file may therefore redefine.
type scope struct {
	defs     *macros
	cluster  int64
	proc     int
	step     int
	row      int
	loopVars map[string]string // lower-cased name -> raw value
	host     map[string]string // lower-cased name -> value, constant
	environ  map[string]string
	lowered  map[string]string // names as written -> lower case
	dir      string            // the submit directory, for $Ff()
	random   func(n int) int   // Env.Random
}

func newScope(defs *macros, env *Env, file string) *scope {
	h := env.Host
	sc := &scope{
		defs:    defs,
		cluster: int64(env.Cluster),
		environ: map[string]string{},
		lowered: map[string]string{},
		dir:     env.Dir,
		random:  env.Random,
		host: map[string]string{
			"arch": h.Arch, "opsys": h.OpSys, "opsysandver": h.OpSysAndVer,
			"opsysmajorver": h.OpSysMajorVer, "opsysver": h.OpSysVer,
			"islinux":     boolDigit(strings.EqualFold(h.OpSys, "LINUX")),
			"iswindows":   boolDigit(strings.EqualFold(h.OpSys, "WINDOWS")),
			"submit_file": joinPath(env.Dir, file), "node": "", "spool": "",
			"jobid": "$(ClusterId).$(ProcId)", "joblistid": "$(ClusterId)",
		},
	}
	now := time.Now()
	if env.Now != nil {
		now = env.Now()
	}
	sc.host["submit_time"] = strconv.FormatInt(now.Unix(), 10)
	sc.host["year"] = fmt.Sprintf("%04d", now.Year())
	sc.host["month"] = fmt.Sprintf("%02d", int(now.Month()))
	sc.host["day"] = fmt.Sprintf("%02d", now.Day())
	for _, kv := range env.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			sc.environ[k] = v
		}
	}
	return sc
}

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// expansion expands macro references in values, tracking whether the
// result depends on the proc being made.
type expansion struct {
	sc    *scope
	live  bool     // a reference to a per-proc variable was expanded
	stack []string // macros being expanded, to find cycles
	err   error
	buf   []byte // the expansion being built, reused
}

// maxDepth bounds the nesting of macro expansion, and maxExpansion the
// length of its result (recursive definitions can double it at each level).
const (
	maxDepth     = 64
	maxExpansion = 1 << 20
)

// expand returns s with its macro references expanded.
func (x *expansion) expand(s string) string {
	if strings.IndexByte(s, '$') < 0 {
		return s
	}
	x.buf = x.buf[:0]
	x.expandTo(s)
	return string(x.buf)
}

func (x *expansion) expandTo(s string) {
	for i := 0; i < len(s); {
		if len(x.buf) > maxExpansion {
			x.fail(errors.New("macro expansion too long (more than 1 MiB)"))
			return
		}
		j := strings.IndexByte(s[i:], '$')
		if j < 0 {
			x.buf = append(x.buf, s[i:]...)
			return
		}
		x.buf = append(x.buf, s[i:i+j]...)
		i += j
		r, ok := parseRef(s, i)
		if !ok {
			x.buf = append(x.buf, '$')
			i++
			continue
		}
		x.expandRef(s[i:r.end], r)
		i = r.end
	}
}

// expandRef writes the expansion of one reference whose text is text.
func (x *expansion) expandRef(text string, r ref) {
	switch {
	case r.dollars == 2:
		x.buf = append(x.buf, text...) // run-time substitution, done by the starter
	case r.fn == "ENV":
		name, def, hasDef := strings.Cut(r.name, ":")
		if v, ok := x.sc.environ[trimSpace(name)]; ok {
			x.buf = append(x.buf, v...)
		} else if hasDef {
			x.expandTo(def)
		} else {
			x.buf = append(x.buf, "UNDEFINED"...) // as condor_submit expands an unset variable
		}
	case r.fn != "":
		if !x.function(text, r) {
			x.buf = append(x.buf, text...) // an unknown function stays as written
		}
	default:
		x.expandName(r)
	}
}

// expandName writes the value of the macro a plain reference names, in
// condor_submit's order (see scope).
func (x *expansion) expandName(r ref) {
	if n, ok := x.sc.hardInt(r.name); ok {
		x.live = x.live || n.live
		x.buf = strconv.AppendInt(x.buf, n.v, 10)
		return
	}
	key := x.sc.lower(r.name)
	if v, ok := x.sc.loopVars[key]; ok {
		x.live = true
		x.nested(r.name, v)
		return
	}
	if m := x.sc.defs.lookup(key); m != nil {
		x.nested(m.name, m.value)
		return
	}
	if n, ok := x.sc.softInt(key); ok {
		x.live = true
		x.buf = strconv.AppendInt(x.buf, n, 10)
		return
	}
	if v, ok := x.sc.soft(key); ok {
		x.nested(r.name, v)
		return
	}
	if r.hasDef {
		x.expandTo(r.def)
	}
}

// nested expands the value of the macro name, which may refer to others.
func (x *expansion) nested(name, value string) {
	if strings.IndexByte(value, '$') < 0 {
		x.buf = append(x.buf, value...)
		return
	}
	for _, n := range x.stack {
		if strings.EqualFold(n, name) {
			x.fail(&errCycle{chain: append(append([]string(nil), x.stack...), name)})
			return
		}
	}
	if len(x.stack) >= maxDepth {
		x.fail(&errCycle{chain: append(append([]string(nil), x.stack...), name)})
		return
	}
	x.stack = append(x.stack, name)
	x.expandTo(value)
	x.stack = x.stack[:len(x.stack)-1]
}

func (x *expansion) fail(err error) {
	if x.err == nil {
		x.err = err
	}
}

// intVal is an integer variable's value and whether it varies by proc.
type intVal struct {
	v    int64
	live bool
}

// hardInt returns the numeric variables a submit file cannot redefine:
// Cluster, ClusterId, Process and ProcId.
func (sc *scope) hardInt(name string) (intVal, bool) {
	switch len(name) {
	case 6:
		return intVal{int64(sc.proc), true}, ast.EqualFold(name, "procid")
	case 7:
		if ast.EqualFold(name, "cluster") {
			return intVal{sc.cluster, false}, true
		}
		return intVal{int64(sc.proc), true}, ast.EqualFold(name, "process")
	case 9:
		return intVal{sc.cluster, false}, ast.EqualFold(name, "clusterid")
	}
	return intVal{}, false
}

// softInt returns the numeric per-proc variables a submit file may
// redefine: Step, Row and ItemIndex.
func (sc *scope) softInt(key string) (int64, bool) {
	switch key {
	case "step":
		return int64(sc.step), true
	case "row", "itemindex":
		return int64(sc.row), true
	}
	return 0, false
}

// soft returns the other automatic variables, which a submit file may
// redefine.
func (sc *scope) soft(key string) (string, bool) {
	switch key {
	case "dollar":
		return "$", true
	case "dollardollar":
		return "$$", true
	}
	v, ok := sc.host[key]
	return v, ok
}

// lower returns a name lower-cased, remembering the answers so that the
// names a file uses are lowered once.
func (sc *scope) lower(name string) string {
	if l, ok := sc.lowered[name]; ok {
		return l
	}
	l := strings.ToLower(name)
	if len(sc.lowered) < 1024 {
		sc.lowered[name] = l
	}
	return l
}
