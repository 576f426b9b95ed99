package parser

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/kite-sched/kite/classad/ast"
)

// JSONMaxDepth bounds the nesting of JSON ads, as MaxDepth bounds
// expressions.
const JSONMaxDepth = MaxDepth

// ParseJSON parses an ad in HTCondor's JSON form (see ast.AppendJSON): an
// object whose members are attributes. Strings of the form /Expr(...)/ are
// parsed as expressions; null is UNDEFINED. Ads cross the wire in this
// form, so it is read by a scanner of its own rather than encoding/json,
// whose token interface measured at five times the cost.
func ParseJSON(data []byte) (*ast.Record, error) {
	// One copy of the text, which names and strings are sliced from,
	// rather than a copy each.
	s := jsonScanner{data: string(data), sc: scratches.Get().(*scratch)}
	defer s.sc.release()
	s.space()
	r, err := s.object()
	if err != nil {
		return nil, err
	}
	if s.space(); s.pos < len(s.data) {
		return nil, s.errorf("unexpected data after the object")
	}
	return r, nil
}

// ParseJSONAttrs parses an ad in JSON form as ParseJSON does, and hands
// build its attributes (each name once, in order) and the ast.FoldHash
// of each name, so that an ad can be made of them without a record in
// between. The slices are the parser's: build must not keep them.
func ParseJSONAttrs(data []byte, build func(attrs []ast.Attr, hashes []uint32)) error {
	s := jsonScanner{data: string(data), sc: scratches.Get().(*scratch)}
	defer s.sc.release()
	s.space()
	defs, err := s.members(true)
	if err != nil {
		return err
	}
	if s.space(); s.pos < len(s.data) {
		return s.errorf("unexpected data after the object")
	}
	build(defs.attrs())
	defs.end()
	return nil
}

// view returns data as a string without copying it, for scanning while
// data is not changed: nothing sliced from it may be kept (see objectAt).
func view(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	return unsafe.String(&data[0], len(data))
}

// objectAt parses the object at s.pos of a scanner over a view. The
// object's text is copied first, so that the record slices its own copy
// rather than keeping all the input alive; where the object's end cannot
// be found, or it has an error, it is parsed from the view, which gives
// the same error at its place in the whole input.
func (s *jsonScanner) objectAt() (*ast.Record, error) {
	start := s.pos
	if end := objectEnd(s.data, start); end > start {
		o := jsonScanner{data: strings.Clone(s.data[start:end]), depth: s.depth, sc: s.sc}
		if r, err := o.object(); err == nil && o.pos == len(o.data) {
			s.pos = end
			return r, nil
		}
	}
	if _, err := s.object(); err != nil {
		return nil, err
	}
	// Parsed from the view after all: parse a copy, so as to keep
	// nothing of the view.
	o := jsonScanner{data: strings.Clone(s.data[start:s.pos]), depth: s.depth, sc: s.sc}
	return o.object()
}

// ObjectEnd returns the offset just past the JSON object starting at
// data[start] ('{'), matching brackets outside strings, or -1 if it has
// no end: where one value of a JSON array ends, without reading it.
func ObjectEnd(data []byte, start int) int { return objectEnd(view(data), start) }

// objectEnd is ObjectEnd on a string.
func objectEnd(data string, start int) int {
	depth := 0
	for i := start; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		}
	}
	return -1
}

// ParseJSONArray parses a JSON array of ads and returns, with each ad, the
// bytes of data it was read from (so that a store can keep an ad's JSON
// as it came). The slices alias data.
func ParseJSONArray(data []byte) ([]*ast.Record, [][]byte, error) {
	s := jsonScanner{data: view(data), sc: scratches.Get().(*scratch)}
	defer s.sc.release()
	if err := s.expect('['); err != nil {
		return nil, nil, err
	}
	var recs []*ast.Record
	var raws [][]byte
	for s.space(); s.peek() != ']'; s.space() {
		if len(recs) > 0 {
			if err := s.expect(','); err != nil {
				return nil, nil, err
			}
			s.space()
		}
		start := s.pos
		if s.peek() != '{' {
			return nil, nil, s.errorf("expected %q, found %s", '{', s.found())
		}
		r, err := s.objectAt()
		if err != nil {
			return nil, nil, err
		}
		recs = append(recs, r)
		raws = append(raws, data[start:s.pos])
	}
	s.pos++
	if s.space(); s.pos < len(s.data) {
		return nil, nil, s.errorf("unexpected data after the array")
	}
	return recs, raws, nil
}

// JSONDecoder reads a stream of JSON ads: objects one after another, or
// one array of objects (condor_q -json output).
type JSONDecoder struct {
	r       io.Reader
	s       jsonScanner
	read    bool
	inArray bool
	err     error
}

// NewJSONDecoder returns a decoder reading ads from r. It reads r whole
// before the first ad.
func NewJSONDecoder(r io.Reader) *JSONDecoder { return &JSONDecoder{r: r} }

// Next returns the next ad, or io.EOF when there are no more.
func (d *JSONDecoder) Next() (*ast.Record, error) {
	if !d.read {
		d.read = true
		data, err := io.ReadAll(d.r)
		if err != nil {
			return nil, err
		}
		d.s = jsonScanner{data: view(data)} // data is the decoder's own
		if d.s.space(); d.s.peek() == '[' {
			d.s.pos++
			d.inArray = true
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	r, err := d.next()
	d.err = err
	return r, err
}

func (d *JSONDecoder) next() (*ast.Record, error) {
	s := &d.s
	s.space()
	if d.inArray {
		switch s.peek() {
		case ']':
			s.pos++
			return nil, io.EOF
		case ',':
			s.pos++
			s.space()
		}
	}
	if s.pos >= len(s.data) {
		if d.inArray {
			return nil, s.errorf("unexpected end of input in an array of ads")
		}
		return nil, io.EOF
	}
	if s.peek() != '{' {
		return nil, s.errorf("expected %q, found %s", '{', s.found())
	}
	s.sc = scratches.Get().(*scratch)
	defer func() { s.sc.release(); s.sc = nil }()
	return s.objectAt()
}

// jsonScanner reads JSON from a byte slice.
type jsonScanner struct {
	data  string
	pos   int
	depth int
	sc    *scratch // literals, attributes and expressions are made with it
}

// lit returns a new literal of kind.
func (s *jsonScanner) lit(kind ast.LitKind) *ast.Literal {
	l := s.sc.lits.alloc(len(s.data) - s.pos)
	l.At, l.Kind = ast.NoPos, kind
	return l
}

func (s *jsonScanner) errorf(format string, args ...any) error {
	line := 1 + strings.Count(s.data[:min(s.pos, len(s.data))], "\n")
	return fmt.Errorf("json ad: line %d, offset %d: %s", line, s.pos, fmt.Sprintf(format, args...))
}

func (s *jsonScanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *jsonScanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *jsonScanner) expect(c byte) error {
	s.space()
	if s.peek() != c {
		return s.expected(c)
	}
	s.pos++
	return nil
}

// unexpected is the error format (with a %s for what was found) at the
// scanner's position. Errors are made in functions of their own, so as
// not to take room on the stack of the functions that find them.
//
//go:noinline
func (s *jsonScanner) unexpected(format string) error {
	return s.errorf(format, s.found())
}

// expected is the error of finding something else than c.
//
//go:noinline
func (s *jsonScanner) expected(c byte) error {
	return s.errorf("expected %q, found %s", c, s.found())
}

// tooDeep is the error of nesting past JSONMaxDepth.
//
//go:noinline
func (s *jsonScanner) tooDeep() error {
	return s.errorf("nested more than %d levels deep", JSONMaxDepth)
}

func (s *jsonScanner) found() string {
	if s.pos >= len(s.data) {
		return "end of input"
	}
	return strconv.QuoteRune(rune(s.data[s.pos]))
}

func (s *jsonScanner) enter() error {
	if s.depth++; s.depth > JSONMaxDepth {
		return s.tooDeep()
	}
	return nil
}

// object reads an object as a record.
func (s *jsonScanner) object() (*ast.Record, error) {
	defs, err := s.members(false)
	if err != nil {
		return nil, err
	}
	return &ast.Record{At: ast.NoPos, Attrs: defs.take()}, nil
}

// members reads an object's members into definitions (hashed by
// ast.FoldHash with fold), which the caller ends. After an error the
// definitions are not begun or left as they are, for the scratch's
// release.
func (s *jsonScanner) members(fold bool) (definitions, error) {
	if err := s.expect('{'); err != nil {
		return definitions{}, err
	}
	if err := s.enter(); err != nil {
		return definitions{}, err
	}
	// The depth is restored on success only: after an error, the
	// scanner is not read on.
	defs := s.sc.definitions(fold)
	if s.space(); s.peek() == '}' {
		s.pos++
		s.depth--
		return defs, nil
	}
	for {
		a, err := s.member()
		if err != nil {
			return definitions{}, err
		}
		defs.define(a)
		s.space()
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return defs, nil
		default:
			return definitions{}, s.unexpected("expected ',' or '}' after an attribute, found %s")
		}
	}
}

// member reads "name": value.
func (s *jsonScanner) member() (ast.Attr, error) {
	s.space()
	if s.peek() != '"' {
		return ast.Attr{}, s.unexpected("expected an attribute name in quotes, found %s")
	}
	name, err := s.str()
	if err != nil {
		return ast.Attr{}, err
	}
	if name == "" {
		return ast.Attr{}, s.errorf("attribute name must not be empty")
	}
	if err := s.expect(':'); err != nil {
		return ast.Attr{}, err
	}
	v, err := s.value()
	if err != nil {
		return ast.Attr{}, err
	}
	return ast.Attr{At: ast.NoPos, Name: name, Value: v}, nil
}

func (s *jsonScanner) value() (ast.Expr, error) {
	s.space()
	switch c := s.peek(); {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == '"':
		if src, ok := s.plainExpr(); ok {
			return s.expr(src)
		}
		text, err := s.str()
		if err != nil {
			return nil, err
		}
		return s.stringValue(text)
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	switch {
	case s.word("true"):
		l := s.lit(ast.BoolLit)
		l.Bool = true
		return l, nil
	case s.word("false"):
		return s.lit(ast.BoolLit), nil
	case s.word("null"):
		return s.lit(ast.UndefinedLit), nil
	}
	return nil, s.unexpected("expected a value, found %s")
}

// jsonStop marks the bytes that end a string's fast path: the quote, a
// backslash, control characters and the bytes of multi-byte characters.
var jsonStop = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

// plainExpr consumes a string "\/Expr(...)\/" whose expression is ASCII
// without escapes, as AppendJSON writes most, and returns the expression's text,
// a slice of the input rather than a decoded copy.
func (s *jsonScanner) plainExpr() (string, bool) {
	const open, end = `"\/Expr(`, `)\/"`
	if !strings.HasPrefix(s.data[s.pos:], open) {
		return "", false
	}
	i := s.pos + len(open)
	j := i
	for j < len(s.data) && !jsonStop[s.data[j]] {
		j++
	}
	if j == i || !strings.HasPrefix(s.data[j-1:], end) {
		return "", false
	}
	s.pos = j - 1 + len(end)
	return s.data[i : j-1], true
}

// word consumes w if the input continues with it.
func (s *jsonScanner) word(w string) bool {
	if !strings.HasPrefix(s.data[s.pos:], w) {
		return false
	}
	s.pos += len(w)
	return true
}

func (s *jsonScanner) array() (ast.Expr, error) {
	s.pos++
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer func() { s.depth-- }()
	l := &ast.List{At: ast.NoPos}
	if s.space(); s.peek() == ']' {
		s.pos++
		return l, nil
	}
	sc := s.sc
	from := len(sc.elems)
	for {
		v, err := s.value()
		if err != nil {
			return nil, err
		}
		sc.elems = append(sc.elems, v)
		s.space()
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			l.Elems = sc.takeElems(from)
			return l, nil
		default:
			return nil, s.unexpected("expected ',' or ']' in a list, found %s")
		}
	}
}

// stringValue is a string, or the expression in /Expr(...)/.
func (s *jsonScanner) stringValue(text string) (ast.Expr, error) {
	inner, ok := strings.CutPrefix(text, "/Expr(")
	if !ok || !strings.HasSuffix(inner, ")/") {
		l := s.lit(ast.StringLit)
		l.Str = text
		return l, nil
	}
	src := inner[:len(inner)-2]
	return s.expr(src)
}

// expr parses the expression src of a /Expr(...)/ string.
func (s *jsonScanner) expr(src string) (ast.Expr, error) {
	st := &s.sc.st
	st.init("", src)
	st.after = len(s.data) - s.pos
	e, err := parseWhole(st, s.sc)
	if err != nil {
		return nil, s.exprError(src, err)
	}
	return e, nil
}

// exprError is the error of a /Expr(...)/ string whose expression src
// does not parse.
func (s *jsonScanner) exprError(src string, err error) error {
	return s.errorf("expression %q: %v", src, newError(src, "", err))
}

// number reads a JSON number: an integer literal when it has no fraction
// or exponent and fits in 64 bits, else a real.
func (s *jsonScanner) number() (ast.Expr, error) {
	start := s.pos
	isReal := false
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if c == '.' || c == 'e' || c == 'E' {
			isReal = true
		} else if !(c >= '0' && c <= '9' || c == '-' || c == '+') {
			break
		}
		s.pos++
	}
	text := s.data[start:s.pos]
	if !isReal {
		if i, ok := jsonInt(text); ok {
			l := s.lit(ast.IntLit)
			l.Int = i
			return l, nil
		}
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			l := s.lit(ast.IntLit)
			l.Int = i
			return l, nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		s.pos = start
		return nil, s.errorf("bad number %q", text)
	}
	l := s.lit(ast.RealLit)
	l.Real = f
	return l, nil
}

// str reads a JSON string, decoding its escapes.
// jsonInt converts an integer of at most 18 digits, with an optional
// minus sign; ok is false for anything else, which ParseInt then judges.
func jsonInt(text string) (v int64, ok bool) {
	digits := strings.TrimPrefix(text, "-")
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = 10*v + int64(c-'0')
	}
	if len(digits) < len(text) {
		v = -v
	}
	return v, true
}

func (s *jsonScanner) str() (string, error) {
	s.pos++ // the opening quote
	start := s.pos
	// Fast path: ASCII without escapes, which needs no UTF-8 check.
	i := start
	for i < len(s.data) && !jsonStop[s.data[i]] {
		i++
	}
	if i < len(s.data) && s.data[i] == '"' {
		s.pos = i + 1
		return s.data[start:i], nil
	}
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; {
		case c == '"':
			if err := s.checkUTF8(start); err != nil {
				return "", err
			}
			text := s.data[start:s.pos]
			s.pos++
			return text, nil
		case c == '\\':
			return s.escapedStr(start)
		case c < 0x20:
			return "", s.errorf("control character in a string")
		}
		s.pos++
	}
	return "", s.errorf("string not terminated")
}

// escapedStr reads the rest of a string that has escapes.
func (s *jsonScanner) escapedStr(start int) (string, error) {
	var b strings.Builder
	b.Grow(rawEnd(s.data, s.pos) - start) // at least the decoded length
	b.WriteString(s.data[start:s.pos])
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			if err := s.checkUTF8(start); err != nil {
				return "", err
			}
			s.pos++
			return b.String(), nil
		case c < 0x20:
			return "", s.errorf("control character in a string")
		case c != '\\':
			b.WriteByte(c)
			s.pos++
			continue
		}
		if err := s.escape(&b); err != nil {
			return "", err
		}
	}
	return "", s.errorf("string not terminated")
}

// rawEnd returns the offset of the quote that ends the string whose text
// goes on at i, escapes skipped, or len(data) if it does not end.
func rawEnd(data string, i int) int {
	for ; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(data)
}

var jsonEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape decodes the escape at s.pos (a backslash).
func (s *jsonScanner) escape(b *strings.Builder) error {
	if s.pos+1 >= len(s.data) {
		return s.errorf("string not terminated")
	}
	e := s.data[s.pos+1]
	if r := jsonEscapes[e]; r != 0 {
		b.WriteByte(r)
		s.pos += 2
		return nil
	}
	if e != 'u' {
		return s.errorf("bad escape \\%c", e)
	}
	r, n := s.hex4(s.pos + 2)
	if n < 0 {
		return s.errorf("bad \\u escape")
	}
	at := s.pos
	s.pos = n
	if utf16.IsSurrogate(r) {
		d := utf8.RuneError
		if s.pos+1 < len(s.data) && s.data[s.pos] == '\\' && s.data[s.pos+1] == 'u' {
			if r2, n2 := s.hex4(s.pos + 2); n2 >= 0 {
				if d = utf16.DecodeRune(r, r2); d != utf8.RuneError {
					s.pos = n2
				}
			}
		}
		if d == utf8.RuneError {
			s.pos = at
			return s.errorf("\\u%04x is half of a UTF-16 surrogate pair: the text is not valid Unicode", r)
		}
		r = d
	}
	b.WriteRune(r)
	return nil
}

// hex4 reads four hex digits at i, returning the rune and the offset after
// them (-1 if they are not hex digits).
func (s *jsonScanner) hex4(i int) (rune, int) {
	if i+4 > len(s.data) {
		return 0, -1
	}
	v, err := strconv.ParseUint(s.data[i:i+4], 16, 32)
	if err != nil {
		return 0, -1
	}
	return rune(v), i + 4
}

// checkUTF8 refuses a string, from start to the scanner's position, that
// is not valid UTF-8: JSON text is UTF-8, and an ad stored with other
// bytes would be sent back as JSON that is not valid. The error gives the
// offset of the first bad byte.
func (s *jsonScanner) checkUTF8(start int) error {
	text := s.data[start:s.pos]
	if utf8.ValidString(text) {
		return nil
	}
	i := InvalidUTF8(text)
	s.pos = start + i
	return s.errorf("byte 0x%02x is not valid UTF-8", text[i])
}

// InvalidUTF8 returns the offset of the first byte of s that is not valid
// UTF-8, or -1 when s is valid.
func InvalidUTF8(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}
