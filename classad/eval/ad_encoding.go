package eval

import (
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/parser"
)

// MarshalJSON encodes the ad in HTCondor's JSON form (one line).
func (a *Ad) MarshalJSON() ([]byte, error) {
	return ast.AppendJSONAttrs(nil, a, false), nil
}

// UnmarshalJSON decodes an ad in HTCondor's JSON form, replacing a's
// attributes.
func (a *Ad) UnmarshalJSON(data []byte) error {
	return parser.ParseJSONAttrs(data, a.load)
}

// String returns the ad in the new syntax, canonically printed.
func (a *Ad) String() string { return ast.String(a.Record()) }

// AppendOld appends the ad in the old syntax: one `Name = Expr` per line.
func (a *Ad) AppendOld(buf []byte) []byte {
	for i := range a.attrs {
		at := &a.attrs[i]
		buf = ast.AppendOldAttr(buf, at.name, at.expr)
		buf = append(buf, '\n')
	}
	return buf
}
