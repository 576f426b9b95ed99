package submit

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
)

// The macro functions of the HTCondor manual ("Function Macros in the
// Submit Description File", users-manual/submitting-a-job, and the config
// language's list, which the two languages share): $ENV, $INT, $REAL,
// $STRING, $EVAL, $SUBSTR, $CHOICE, $RANDOM_CHOICE, $RANDOM_INTEGER,
// $BASENAME, $DIRNAME and $F[fpdnxbqauw]. Function names are case
// sensitive; an unknown $NAME(...) stays as written. References inside
// the parentheses are expanded first; an argument that names a macro
// stands for the macro's value.

// funcError is a macro function that cannot be expanded; text is the
// function as written, so that the error can be placed in the file.
type funcError struct {
	text string
	in   string // the macro whose value holds it, "" for the command's own
	err  error
}

func (e *funcError) Error() string { return e.text + ": " + e.err.Error() }

// macroFunc computes a function from its argument text (expanded).
type macroFunc func(x *expansion, fn, body string) (string, error)

var macroFuncs map[string]macroFunc

func init() {
	macroFuncs = map[string]macroFunc{
		"INT": fnInt, "REAL": fnReal, "STRING": fnString, "EVAL": fnEval,
		"SUBSTR": fnSubstr, "CHOICE": fnChoice,
		"RANDOM_CHOICE": fnRandomChoice, "RANDOM_INTEGER": fnRandomInteger,
		"BASENAME": fnFile, "DIRNAME": fnFile,
	}
}

// lookupFunc returns the function named fn, or nil.
func lookupFunc(fn string) macroFunc {
	if f := macroFuncs[fn]; f != nil {
		return f
	}
	if isFileFunc(fn) {
		return fnFile
	}
	return nil
}

// isFileFunc reports whether fn is F followed by the letters of $F().
func isFileFunc(fn string) bool {
	if fn == "" || fn[0] != 'F' {
		return false
	}
	for i := 1; i < len(fn); i++ {
		if !strings.ContainsRune("fpdnxbqauw", rune(fn[i]|0x20)) {
			return false
		}
	}
	return true
}

// function writes the expansion of the macro function ref r, written
// text. It reports whether r is a function it knows.
func (x *expansion) function(text string, r ref) bool {
	f := lookupFunc(r.fn)
	if f == nil {
		return false
	}
	body := x.sub(r.name)
	if x.err != nil {
		return true
	}
	out, err := f(x, r.fn, body)
	if err != nil {
		fe := &funcError{text: text, err: err}
		if len(x.stack) > 0 {
			fe.in = x.stack[len(x.stack)-1]
		}
		x.fail(fe)
		return true
	}
	x.buf = append(x.buf, out...)
	return true
}

// sub returns the expansion of s, leaving the buffer as it was.
func (x *expansion) sub(s string) string {
	start := len(x.buf)
	x.expandTo(s)
	out := string(x.buf[start:])
	x.buf = x.buf[:start]
	return out
}

// macroValue returns the expanded value of the macro name, if it is one.
func (x *expansion) macroValue(name string) (string, bool) {
	if !validKey(name) || !x.sc.exists(name) {
		return "", false
	}
	return x.sub("$(" + name + ")"), true
}

// arg returns an argument: the value of the macro it names, or itself.
func (x *expansion) arg(s string) string {
	s = trimSpace(s)
	if v, ok := x.macroValue(s); ok {
		return trimSpace(v)
	}
	return s
}

// exists reports whether a name has a value (possibly empty).
func (sc *scope) exists(name string) bool {
	if _, ok := sc.hardInt(name); ok {
		return true
	}
	key := strings.ToLower(name)
	if _, ok := sc.loopVars[key]; ok {
		return true
	}
	if sc.defs.lookup(key) != nil {
		return true
	}
	if _, ok := sc.softInt(key); ok {
		return true
	}
	_, ok := sc.soft(key)
	return ok
}

// evalValue evaluates text as a constant ClassAd expression.
func evalValue(text string) (classad.Value, bool) {
	p, err := classad.Compile(text)
	if err != nil {
		return classad.Value{}, false
	}
	v, err := classad.Eval(p, nil, nil)
	return v, err == nil
}

// toInt reads an integer, written as one or as a constant expression (a
// real is truncated).
func toInt(text string) (int64, bool) {
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, true
	}
	v, ok := evalValue(text)
	if !ok {
		return 0, false
	}
	if n, ok := v.IntValue(); ok {
		return n, true
	}
	if f, ok := v.RealValue(); ok {
		return int64(f), true
	}
	return 0, false
}

// toReal reads a number, written as one or as a constant expression.
func toReal(text string) (float64, bool) {
	if f, err := strconv.ParseFloat(text, 64); err == nil {
		return f, true
	}
	v, ok := evalValue(text)
	if !ok {
		return 0, false
	}
	return v.NumberValue()
}

// fnInt is $INT(value[,format]): the value as an integer, printed with a
// C format (default %d). The format is everything after the first comma.
func fnInt(x *expansion, _, body string) (string, error) {
	name, format, hasFormat := strings.Cut(body, ",")
	goFmt := "%d"
	if hasFormat {
		var err error
		if goFmt, err = cFormat(format, "diuoxXc"); err != nil {
			return "", err
		}
	}
	v := x.arg(name)
	n, ok := toInt(v)
	if !ok {
		return "", fmt.Errorf("%q does not evaluate to an integer", v)
	}
	return fmt.Sprintf(goFmt, n), nil
}

// fnReal is $REAL(value[,format]): the value as a real, printed with a C
// format (default %.16G); a formatted result always has a decimal point.
func fnReal(x *expansion, _, body string) (string, error) {
	name, format, hasFormat := strings.Cut(body, ",")
	goFmt := "%.16G"
	if hasFormat {
		var err error
		if goFmt, err = cFormat(format, "eEfFgG"); err != nil {
			return "", err
		}
	}
	v := x.arg(name)
	f, ok := toReal(v)
	if !ok {
		return "", fmt.Errorf("%q does not evaluate to a real", v)
	}
	out := fmt.Sprintf(goFmt, f)
	if hasFormat && !strings.Contains(out, ".") {
		out += ".0"
	}
	return out, nil
}

// fnString is $STRING(value[,format]): the value evaluated as a ClassAd
// string expression (or taken as it is when it is not one), printed with
// a C format (default %s).
func fnString(x *expansion, _, body string) (string, error) {
	name, format, hasFormat := strings.Cut(body, ",")
	goFmt := "%s"
	if hasFormat {
		var err error
		if goFmt, err = cFormat(format, "s"); err != nil {
			return "", err
		}
	}
	s := x.arg(name)
	if v, ok := evalValue(s); ok {
		if str, ok := v.StringValue(); ok {
			s = str
		}
	}
	return fmt.Sprintf(goFmt, s), nil
}

// fnEval is $EVAL(value): the value evaluated as a ClassAd expression,
// a string printed without quotes and anything else as ClassAds print it.
// Text that does not evaluate stays as it is.
func fnEval(x *expansion, _, body string) (string, error) {
	s := x.arg(body)
	v, ok := evalValue(s)
	if !ok {
		return s, nil
	}
	if str, ok := v.StringValue(); ok {
		return str, nil
	}
	return v.String(), nil
}

// fnSubstr is $SUBSTR(name,start[,length]): part of a macro's value. A
// negative start counts from the end, a negative length leaves that many
// characters off the end.
func fnSubstr(x *expansion, _, body string) (string, error) {
	args := strings.Split(body, ",")
	if len(args) < 2 || len(args) > 3 {
		return "", errors.New("takes a macro name, a start index and an optional length")
	}
	start, ok := toInt(x.arg(args[1]))
	if !ok {
		return "", fmt.Errorf("%q is not a valid start index", trimSpace(args[1]))
	}
	length := int64(1 << 40)
	if len(args) == 3 {
		if length, ok = toInt(x.arg(args[2])); !ok {
			return "", fmt.Errorf("%q is not a valid length", trimSpace(args[2]))
		}
	}
	s, _ := x.macroValue(trimSpace(args[0]))
	n := int64(len(s))
	if start < 0 {
		start += n
	}
	start = min(max(start, 0), n)
	rest := n - start
	if length < 0 {
		length += rest
	}
	length = min(max(length, 0), rest)
	return s[start : start+length], nil
}

// fnChoice is $CHOICE(index,item0,item1,...) or $CHOICE(index,listname):
// the item at index (from 0) of the items, or of the comma-separated list
// the macro listname holds.
func fnChoice(x *expansion, _, body string) (string, error) {
	args := strings.Split(body, ",")
	if len(args) < 2 {
		return "", errors.New("takes an index and a list")
	}
	iv := x.arg(args[0])
	index, ok := toInt(iv)
	if !ok || index < 0 {
		return "", fmt.Errorf("%q is not a valid index", iv)
	}
	items := args[1:]
	if len(items) == 1 {
		name := trimSpace(items[0])
		list, ok := x.macroValue(name)
		if !ok {
			return "", fmt.Errorf("no list named %q", name)
		}
		items = strings.Split(list, ",")
	}
	if index >= int64(len(items)) {
		return "", fmt.Errorf("index %d is out of range: the list has %d items", index, len(items))
	}
	return trimSpace(items[index]), nil
}

// fnRandomChoice is $RANDOM_CHOICE(item,...): one of the items, at
// random; a single item that names a macro stands for the list the macro
// holds (split at commas and white space). It differs from job to job.
func fnRandomChoice(x *expansion, _, body string) (string, error) {
	items := strings.Split(body, ",")
	if len(items) == 1 {
		if list, ok := x.macroValue(trimSpace(items[0])); ok {
			items = strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
		}
	}
	if len(items) == 0 || len(items) == 1 && trimSpace(items[0]) == "" {
		return "", errors.New("the list is empty")
	}
	x.live = true
	return trimSpace(items[x.sc.randomInt(len(items))]), nil
}

// fnRandomInteger is $RANDOM_INTEGER(min,max[,step]): an integer from min
// to max inclusive, in steps of step (default 1), at random. It differs
// from job to job.
func fnRandomInteger(x *expansion, _, body string) (string, error) {
	args := strings.Split(body, ",")
	if len(args) < 2 || len(args) > 3 {
		return "", errors.New("takes a minimum, a maximum and an optional step")
	}
	var nums [3]int64
	nums[2] = 1
	for i, a := range args {
		n, err := strconv.ParseInt(trimSpace(a), 10, 64)
		if err != nil {
			return "", fmt.Errorf("%q is not an integer", trimSpace(a))
		}
		nums[i] = n
	}
	lo, hi, step := nums[0], nums[1], nums[2]
	switch {
	case step < 1:
		return "", fmt.Errorf("step %d is not positive", step)
	case lo > hi:
		return "", fmt.Errorf("the minimum %d is above the maximum %d", lo, hi)
	case (hi-lo)/step >= 1<<31:
		return "", errors.New("the range is too large")
	}
	x.live = true
	n := (hi-lo)/step + 1
	return strconv.FormatInt(lo+int64(x.sc.randomInt(int(n)))*step, 10), nil
}

// randomInt returns a random integer in [0, n).
func (sc *scope) randomInt(n int) int {
	if sc.random != nil {
		return sc.random(n)
	}
	return rand.IntN(n)
}

// cFormat checks a C printf format with exactly one conversion, one of
// convs, and returns it in Go's syntax: length modifiers dropped, %i and %u
// written %d, and %g given C's default precision.
func cFormat(f, convs string) (string, error) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			b.WriteString("%%")
			i++
			continue
		}
		spec, conv, end := cConversion(f, i)
		if conv == 0 || !strings.ContainsRune(convs, rune(conv)) {
			return "", fmt.Errorf("%q is not a valid format (one of %%%s is needed)", f, strings.Join(strings.Split(convs, ""), " %"))
		}
		switch conv {
		case 'i', 'u':
			conv = 'd'
		case 'g', 'G':
			if !strings.Contains(spec, ".") {
				spec += ".6"
			}
		}
		b.WriteString(spec)
		b.WriteByte(conv)
		n++
		i = end
	}
	if n != 1 {
		return "", fmt.Errorf("%q is not a valid format: it must have exactly one conversion", f)
	}
	return b.String(), nil
}

// cConversion reads the conversion that starts at f[i] ('%'): its flags,
// width and precision, its conversion letter (0 if there is none), and
// the index of that letter.
func cConversion(f string, i int) (string, byte, int) {
	j := i + 1
	for j < len(f) && strings.IndexByte("-+ #0", f[j]) >= 0 {
		j++
	}
	for j < len(f) && (f[j] >= '0' && f[j] <= '9' || f[j] == '.') {
		j++
	}
	spec := f[i:j]
	for j < len(f) && strings.IndexByte("hlLqjzt", f[j]) >= 0 {
		j++
	}
	if j >= len(f) {
		return spec, 0, j
	}
	return spec, f[j], j
}
