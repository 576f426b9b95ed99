package ast

// Pos is a byte offset into the source text an expression was parsed from.
// NoPos marks nodes built in code rather than parsed.
type Pos int32

// NoPos is the position of nodes that were not parsed from text.
const NoPos Pos = -1

// Node is any syntax tree node.
type Node interface {
	// Pos returns the offset of the node's first byte in the source.
	Pos() Pos
}

// Expr is a ClassAd expression. The set of expression kinds is closed: only
// this package can add one, so a type switch over Expr is exhaustive.
type Expr interface {
	Node
	exprNode()
}

// LitKind says which literal a Literal holds.
type LitKind uint8

// Literal kinds.
const (
	UndefinedLit LitKind = iota
	ErrorLit
	BoolLit
	IntLit
	RealLit
	StringLit
)

// Literal is a constant: undefined, error, a boolean, an integer, a real or a string.
type Literal struct {
	At   Pos
	Kind LitKind
	Bool bool
	Int  int64
	Real float64
	Str  string
}

// AttrRef is a reference to an attribute by name: `Memory`, or `.Memory` when
// Absolute (looked up from the outermost record).
type AttrRef struct {
	At       Pos
	Name     string
	Absolute bool
}

// Select picks an attribute out of a record: `X.Name`. `MY.Memory` is a
// Select whose X is the AttrRef `MY`.
type Select struct {
	At   Pos
	X    Expr
	Name string
}

// Index is a subscript: `X[Index]` on a list (by position) or a record (by name).
type Index struct {
	At    Pos
	X     Expr
	Index Expr
}

// Unary is a prefix operation: `-X`, `+X`, `!X`, `~X`.
type Unary struct {
	At Pos
	Op Op
	X  Expr
}

// Binary is an infix operation `X Op Y`, including the elvis `X ?: Y`.
type Binary struct {
	At Pos
	Op Op
	X  Expr
	Y  Expr
}

// Cond is the conditional `Cond ? Then : Else`.
type Cond struct {
	At   Pos
	Cond Expr
	Then Expr
	Else Expr
}

// Paren is an expression written in parentheses. HTCondor keeps them, so
// printing gives back what was written.
type Paren struct {
	At Pos
	X  Expr
}

// Call is a function call. Function names are case-insensitive; Name keeps
// the spelling that was written.
type Call struct {
	At   Pos
	Name string
	Args []Expr
}

// List is a list literal `{ a, b, c }`.
type List struct {
	At    Pos
	Elems []Expr
}

// Record is a record (a ClassAd) literal `[ a = 1; b = a + 1 ]`. Attribute
// names are case-insensitive; a later definition of a name replaces the
// earlier one in place, keeping the first spelling and position.
type Record struct {
	At    Pos
	Attrs []Attr
}

// Attr is one attribute definition of a Record.
type Attr struct {
	At    Pos
	Name  string
	Value Expr
}

func (x *Literal) Pos() Pos { return x.At }
func (x *AttrRef) Pos() Pos { return x.At }
func (x *Select) Pos() Pos  { return x.At }
func (x *Index) Pos() Pos   { return x.At }
func (x *Unary) Pos() Pos   { return x.At }
func (x *Binary) Pos() Pos  { return x.At }
func (x *Cond) Pos() Pos    { return x.At }
func (x *Paren) Pos() Pos   { return x.At }
func (x *Call) Pos() Pos    { return x.At }
func (x *List) Pos() Pos    { return x.At }
func (x *Record) Pos() Pos  { return x.At }

func (*Literal) exprNode() {}
func (*AttrRef) exprNode() {}
func (*Select) exprNode()  {}
func (*Index) exprNode()   {}
func (*Unary) exprNode()   {}
func (*Binary) exprNode()  {}
func (*Cond) exprNode()    {}
func (*Paren) exprNode()   {}
func (*Call) exprNode()    {}
func (*List) exprNode()    {}
func (*Record) exprNode()  {}

// Lookup returns the index in r.Attrs of the attribute called name
// (case-insensitively), or -1.
func (r *Record) Lookup(name string) int {
	for i := range r.Attrs {
		if EqualFold(r.Attrs[i].Name, name) {
			return i
		}
	}
	return -1
}

// Set defines name in r: it replaces the value of an existing attribute of
// that name in place, or appends a new attribute.
func (r *Record) Set(name string, v Expr) {
	if i := r.Lookup(name); i >= 0 {
		r.Attrs[i].Value = v
		return
	}
	r.Attrs = append(r.Attrs, Attr{At: NoPos, Name: name, Value: v})
}

// Constructors for literals built in code.

// Undefined returns the literal undefined.
func Undefined() *Literal { return &Literal{At: NoPos, Kind: UndefinedLit} }

// Error returns the literal error.
func Error() *Literal { return &Literal{At: NoPos, Kind: ErrorLit} }

// Bool returns a boolean literal.
func Bool(b bool) *Literal { return &Literal{At: NoPos, Kind: BoolLit, Bool: b} }

// Int returns an integer literal.
func Int(i int64) *Literal { return &Literal{At: NoPos, Kind: IntLit, Int: i} }

// Real returns a real literal.
func Real(f float64) *Literal { return &Literal{At: NoPos, Kind: RealLit, Real: f} }

// Str returns a string literal.
func Str(s string) *Literal { return &Literal{At: NoPos, Kind: StringLit, Str: s} }
