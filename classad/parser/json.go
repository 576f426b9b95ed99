package parser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad/ast"
)

// JSONMaxDepth bounds the nesting of JSON ads, as MaxDepth bounds
// expressions.
const JSONMaxDepth = MaxDepth

// ParseJSON parses an ad in HTCondor's JSON form (see ast.AppendJSON): an
// object whose members are attributes. Strings of the form /Expr(...)/ are
// parsed as expressions; null is UNDEFINED.
func ParseJSON(data []byte) (*ast.Record, error) {
	dec := newJSONDecoder(bytes.NewReader(data))
	r, err := dec.record()
	if err != nil {
		return nil, err
	}
	if _, err := dec.d.Token(); err != io.EOF {
		return nil, fmt.Errorf("json ad: unexpected data after the object at offset %d", dec.d.InputOffset())
	}
	return r, nil
}

// JSONDecoder reads a stream of JSON ads: a sequence of objects or one
// array of objects (condor_q -json output).
type JSONDecoder struct {
	d       *json.Decoder
	inArray bool
	started bool
	depth   int
}

// NewJSONDecoder returns a decoder reading ads from r.
func NewJSONDecoder(r io.Reader) *JSONDecoder { return newJSONDecoder(r) }

func newJSONDecoder(r io.Reader) *JSONDecoder {
	d := json.NewDecoder(r)
	d.UseNumber()
	return &JSONDecoder{d: d}
}

// Next returns the next ad, or io.EOF when there are no more.
func (j *JSONDecoder) Next() (*ast.Record, error) {
	if !j.started {
		j.started = true
		t, err := j.d.Token()
		switch {
		case err == io.EOF:
			return nil, io.EOF
		case err != nil:
			return nil, j.wrap(err)
		case t == json.Delim('{'):
			return j.object()
		case t != json.Delim('['):
			return nil, fmt.Errorf("json ads: expected an object or an array of objects, found %v", t)
		}
		j.inArray = true
	}
	if !j.d.More() {
		if j.inArray {
			j.inArray = false
			if _, err := j.d.Token(); err != nil {
				return nil, j.wrap(err)
			}
		}
		return nil, io.EOF
	}
	return j.record()
}

func (j *JSONDecoder) wrap(err error) error {
	if err == io.EOF {
		return fmt.Errorf("json ad: unexpected end of input")
	}
	return fmt.Errorf("json ad at offset %d: %w", j.d.InputOffset(), err)
}

func (j *JSONDecoder) record() (*ast.Record, error) {
	t, err := j.d.Token()
	if err != nil {
		return nil, j.wrap(err)
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("json ad at offset %d: expected an object, found %v", j.d.InputOffset(), t)
	}
	return j.object()
}

// object reads the members of an object whose '{' has been read.
func (j *JSONDecoder) object() (*ast.Record, error) {
	if j.depth++; j.depth > JSONMaxDepth {
		return nil, fmt.Errorf("json ad: nested more than %d levels deep", JSONMaxDepth)
	}
	defer func() { j.depth-- }()
	r := &ast.Record{At: ast.NoPos}
	var defs definitions
	for j.d.More() {
		t, err := j.d.Token()
		if err != nil {
			return nil, j.wrap(err)
		}
		name, _ := t.(string)
		if name == "" {
			return nil, fmt.Errorf("json ad at offset %d: attribute name must be a non-empty string", j.d.InputOffset())
		}
		v, err := j.value()
		if err != nil {
			return nil, err
		}
		defs.define(r, ast.Attr{At: ast.NoPos, Name: name, Value: v})
	}
	if _, err := j.d.Token(); err != nil {
		return nil, j.wrap(err)
	}
	return r, nil
}

func (j *JSONDecoder) value() (ast.Expr, error) {
	t, err := j.d.Token()
	if err != nil {
		return nil, j.wrap(err)
	}
	switch x := t.(type) {
	case nil:
		return ast.Undefined(), nil
	case bool:
		return ast.Bool(x), nil
	case json.Number:
		return jsonNumber(x)
	case string:
		return j.stringValue(x)
	case json.Delim:
		switch x {
		case '{':
			return j.object()
		case '[':
			return j.array()
		}
	}
	return nil, fmt.Errorf("json ad at offset %d: unexpected %v", j.d.InputOffset(), t)
}

func (j *JSONDecoder) array() (ast.Expr, error) {
	if j.depth++; j.depth > JSONMaxDepth {
		return nil, fmt.Errorf("json ad: nested more than %d levels deep", JSONMaxDepth)
	}
	defer func() { j.depth-- }()
	l := &ast.List{At: ast.NoPos}
	for j.d.More() {
		v, err := j.value()
		if err != nil {
			return nil, err
		}
		l.Elems = append(l.Elems, v)
	}
	if _, err := j.d.Token(); err != nil {
		return nil, j.wrap(err)
	}
	return l, nil
}

// stringValue is a string, or the expression in /Expr(...)/.
func (j *JSONDecoder) stringValue(s string) (ast.Expr, error) {
	inner, ok := strings.CutPrefix(s, "/Expr(")
	if !ok || !strings.HasSuffix(inner, ")/") {
		return ast.Str(s), nil
	}
	e, err := ParseExpr(inner[:len(inner)-2])
	if err != nil {
		return nil, fmt.Errorf("json ad at offset %d: expression %q: %w", j.d.InputOffset(), inner[:len(inner)-2], err)
	}
	return e, nil
}

// jsonNumber is an integer literal when the number has no fraction or
// exponent and fits in 64 bits, else a real.
func jsonNumber(n json.Number) (ast.Expr, error) {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return ast.Int(i), nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return nil, fmt.Errorf("json ad: bad number %s", s)
	}
	return ast.Real(f), nil
}
