package submit

import "strings"

// File name parts for $F(), as its letters select them.
const (
	partExt  = 1 << iota // x: the extension, with its '.'
	partName             // n: the file name without its extension
	partPath             // p: the whole directory part, with a trailing '/'
	partDir              // d: the last directory (dd: the last two ...)
)

// fileOpts are the letters of one $F() call.
type fileOpts struct {
	parts int
	dirs  int  // how many d letters
	bare  bool // b: no trailing '/' after p or d, no '.' before x
	full  bool // f: make a relative name absolute first
	quote byte // q: '"', or with a, '\''
	sep   byte // u: '/', w: '\\', or 0 to leave separators alone
}

// fileFuncOpts returns the options of $BASENAME, $DIRNAME or $F<letters>.
func fileFuncOpts(fn string) fileOpts {
	switch fn {
	case "BASENAME":
		return fileOpts{parts: partName | partExt}
	case "DIRNAME":
		return fileOpts{parts: partPath}
	}
	var o fileOpts
	q, a := false, false
	for _, c := range strings.ToLower(fn[1:]) {
		switch c {
		case 'x':
			o.parts |= partExt
		case 'n':
			o.parts |= partName
		case 'p':
			o.parts |= partPath
		case 'd':
			o.parts |= partDir
			o.dirs++
		case 'b':
			o.bare = true
		case 'f':
			o.full = true
		case 'q':
			q = true
		case 'a':
			a = true
		case 'u':
			o.sep = '/'
		case 'w':
			o.sep = '\\'
		}
	}
	if q {
		o.quote = '"'
		if a {
			o.quote = '\''
		}
	}
	return o
}

// fnFile is $F<letters>(name), $BASENAME(name[,suffix]) and
// $DIRNAME(name): parts of a file name (the value of the macro name, or
// name itself), without the double quotes around it. $BASENAME's suffix,
// when the name ends with it, is left off as if it were the extension.
func fnFile(x *expansion, fn, body string) (string, error) {
	suffix := ""
	if fn == "BASENAME" {
		if i := strings.LastIndexByte(body, ','); i >= 0 {
			body, suffix = body[:i], trimSpace(body[i+1:])
		}
	}
	o := fileFuncOpts(fn)
	name := unquote(x.arg(body))
	if o.full && name != "" && !strings.HasPrefix(name, "/") {
		name = fullPath(name, x.sc.dir)
	}
	seps := "/"
	switch o.sep {
	case '/':
		name = strings.ReplaceAll(name, `\`, "/")
	case '\\':
		name, seps = strings.ReplaceAll(name, "/", `\`), `\`
	}
	out := o.part(name, suffix, seps)
	if o.quote != 0 {
		out = string(o.quote) + out + string(o.quote)
	}
	return out, nil
}

// part returns the parts of name the options select.
func (o fileOpts) part(name, suffix, seps string) string {
	base := strings.LastIndexAny(name, seps) + 1 // start of the file name
	ext := len(name)                             // start of the extension
	if k := strings.LastIndexByte(name[base:], '.'); k > 0 {
		ext = base + k
	}
	parts := o.parts
	if suffix != "" && len(name)-len(suffix) >= base && strings.EqualFold(name[len(name)-len(suffix):], suffix) {
		ext, parts = len(name)-len(suffix), parts&^partExt
	}
	if base == 0 && parts&(partName|partExt) != 0 {
		parts &^= partPath | partDir
	}
	dirEnd := base
	if o.bare && base > 0 {
		dirEnd--
	}
	switch parts {
	case partExt:
		if o.bare && ext < len(name) {
			return name[ext+1:]
		}
		return name[ext:]
	case partName | partExt:
		return name[base:]
	case partName:
		return name[base:ext]
	case 0, partPath | partName | partExt, partPath | partExt:
		return name
	case partPath:
		return name[:dirEnd]
	case partPath | partName:
		return name[:ext]
	}
	if base == 0 {
		return ""
	}
	start := dirsStart(name, base, o.dirs, seps)
	switch parts & (partName | partExt) {
	case partName:
		return name[start:ext]
	case 0:
		return name[start:dirEnd]
	}
	return name[start:]
}

// dirsStart returns where the last n directories of name start; base is
// where its file name starts (after a separator).
func dirsStart(name string, base, n int, seps string) int {
	i := base - 1
	for range n {
		j := strings.LastIndexAny(name[:i], seps)
		if j < 0 {
			return 0
		}
		i = j
	}
	return i + 1
}

// unquote removes the double quotes around s.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}
