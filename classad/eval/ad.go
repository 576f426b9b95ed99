package eval

import (
	"iter"
	"sync/atomic"
	"unsafe"

	"github.com/kite-sched/kite/classad/ast"
)

// Ad is a ClassAd ready for evaluation: attributes in definition order,
// names case-insensitive, each attribute's expression compiled on first use.
//
// An Ad may be evaluated from many goroutines at once; changing it (Set,
// Delete) must not overlap with any other use, as with a Go map.
type Ad struct {
	attrs   []attr
	index   []int32 // open addressing by name hash: attribute index+1, 0 empty; nil for small ads
	self    Scope
	special int // attributes whose names are scope keywords (my, target, parent, ...)
	// spec is the *specCache of attributes specialised for matching,
	// dropped on any change (see specialize.go).
	spec unsafe.Pointer
}

type attr struct {
	name string
	hash uint32
	expr ast.Expr
	// code is the *compiled expression, made on first use. It is read and
	// set atomically: concurrent first uses may both compile, and either
	// result is kept. (A plain pointer keeps attr copyable, unlike
	// atomic.Pointer.)
	code unsafe.Pointer
}

// compiled is an attribute's expression ready to run, with the depth of its
// tree (counted against the evaluation depth limit).
type compiled struct {
	n     node
	depth int32
	lit   bool // the expression is a constant: val is its value
	val   Value
}

// Scope is a record in its lexical context: an ad and the record it is
// nested in (nil for a top-level ad). Record values are scopes.
type Scope struct {
	ad     *Ad
	parent *Scope
}

// Ad returns the scope's record.
func (s *Scope) Ad() *Ad { return s.ad }

// Parent returns the enclosing record's scope, or nil.
func (s *Scope) Parent() *Scope { return s.parent }

// extraAttrs is room left in a new ad's attribute list for a few more
// (daemons add attributes to ads they receive).
const extraAttrs = 4

// smallAd is the size up to which lookups scan linearly.
const smallAd = 8

// NewAd returns an empty ad.
func NewAd() *Ad {
	a := &Ad{}
	a.self.ad = a
	return a
}

// FromRecord returns an ad holding r's attributes. The ad shares r's
// expressions; neither should be changed afterwards through r.
func FromRecord(r *ast.Record) *Ad { return FromAttrs(r.Attrs, nil) }

// FromAttrs returns an ad holding attrs, as FromRecord does. hashes, when
// not nil, are the ast.FoldHash of each name (as parser.ParseJSONAttrs
// gives them). The ad keeps neither slice.
func FromAttrs(attrs []ast.Attr, hashes []uint32) *Ad {
	a := new(Ad)
	a.load(attrs, hashes)
	return a
}

// load makes a hold attrs and nothing else.
func (a *Ad) load(attrs []ast.Attr, hashes []uint32) {
	*a = Ad{attrs: make([]attr, len(attrs), len(attrs)+extraAttrs)}
	a.self.ad = a
	for i, at := range attrs {
		var h uint32
		if hashes != nil {
			h = hashes[i]
		} else {
			h = ast.FoldHash(at.Name)
		}
		a.attrs[i] = attr{name: at.Name, hash: h, expr: at.Value}
		if isScopeName(at.Name) {
			a.special++
		}
	}
	internNames(a.attrs)
	if a.reindex() {
		return
	}
	// attrs define a name twice (parsed records never do): the later
	// definition replaces the earlier one, as Set does.
	*a = Ad{attrs: make([]attr, 0, len(attrs))}
	a.self.ad = a
	for _, at := range attrs {
		a.Set(at.Name, at.Value)
	}
}

// Scope returns the ad's own scope, for evaluating in it.
func (a *Ad) Scope() *Scope { return &a.self }

// Len returns the number of attributes.
func (a *Ad) Len() int { return len(a.attrs) }

// Name returns the i-th attribute's name as it was written.
func (a *Ad) Name(i int) string { return a.attrs[i].name }

// Expr returns the i-th attribute's expression.
func (a *Ad) Expr(i int) ast.Expr { return a.attrs[i].expr }

// All yields each attribute's name and expression in definition order.
func (a *Ad) All() iter.Seq2[string, ast.Expr] {
	return func(yield func(string, ast.Expr) bool) {
		for i := range a.attrs {
			if at := &a.attrs[i]; !yield(at.name, at.expr) {
				return
			}
		}
	}
}

// Lookup returns the expression of the attribute called name.
func (a *Ad) Lookup(name string) (ast.Expr, bool) {
	if i := a.find(name, ast.FoldHash(name)); i >= 0 {
		return a.attrs[i].expr, true
	}
	return nil, false
}

// Index returns the position of the attribute called name, or -1.
func (a *Ad) Index(name string) int { return a.find(name, ast.FoldHash(name)) }

// Set defines name as e, replacing an existing definition in place (the
// first spelling of the name is kept).
func (a *Ad) Set(name string, e ast.Expr) {
	a.forgetSpecialized()
	h := ast.FoldHash(name)
	if i := a.find(name, h); i >= 0 {
		a.attrs[i].expr = e
		a.attrs[i].code = nil
		return
	}
	if cap(a.attrs) == 0 {
		a.attrs = make([]attr, 0, smallAd) // not grown by one, two, four
	}
	a.attrs = append(a.attrs, attr{name: internHashed(name, h), hash: h, expr: e})
	if isScopeName(name) {
		a.special++
	}
	a.appendIndex()
}

// Delete removes the attribute called name and reports whether it existed.
func (a *Ad) Delete(name string) bool {
	i := a.find(name, ast.FoldHash(name))
	if i < 0 {
		return false
	}
	a.forgetSpecialized()
	if isScopeName(name) {
		a.special--
	}
	a.attrs = append(a.attrs[:i], a.attrs[i+1:]...)
	a.reindex()
	return true
}

// Clone returns a copy of the ad that can be changed independently.
// Expressions are shared; they are never changed in place.
func (a *Ad) Clone() *Ad { return a.CloneRoom(0) }

// Record returns the ad as a record expression, for printing.
func (a *Ad) Record() *ast.Record {
	r := &ast.Record{At: ast.NoPos, Attrs: make([]ast.Attr, len(a.attrs))}
	for i := range a.attrs {
		at := &a.attrs[i] // not copied: code may be being stored
		r.Attrs[i] = ast.Attr{At: ast.NoPos, Name: at.name, Value: at.expr}
	}
	return r
}

// compiled returns attribute i's compiled expression, compiling it on
// first use.
func (a *Ad) compiled(i int) *compiled {
	at := &a.attrs[i]
	if p := atomic.LoadPointer(&at.code); p != nil {
		return (*compiled)(p)
	}
	c := compileAttr(at.expr)
	atomic.StorePointer(&at.code, unsafe.Pointer(&c))
	return &c
}

// find returns the index of the attribute with the given name and hash, or -1.
func (a *Ad) find(name string, h uint32) int {
	if a.index == nil {
		for i := range a.attrs {
			if a.attrs[i].hash == h && sameName(a.attrs[i].name, name) {
				return i
			}
		}
		return -1
	}
	mask := uint32(len(a.index) - 1)
	for p := h & mask; ; p = (p + 1) & mask {
		j := a.index[p]
		if j == 0 {
			return -1
		}
		if at := &a.attrs[j-1]; at.hash == h && sameName(at.name, name) {
			return int(j - 1)
		}
	}
}

// appendIndex adds the last attribute to the hash index. A small ad has
// none unless made with room for more (NewAdRoom, CloneRoom).
func (a *Ad) appendIndex() {
	n := len(a.attrs)
	switch {
	case a.index != nil && 2*n <= len(a.index):
		a.insertIndex(n - 1)
	case n <= smallAd:
	default:
		a.reindex()
	}
}

// reindex rebuilds the hash index after the attribute list changed, and
// reports whether the names are all different.
func (a *Ad) reindex() bool {
	n := len(a.attrs)
	if n <= smallAd && a.index == nil {
		for i := 1; i < n; i++ {
			if a.find(a.attrs[i].name, a.attrs[i].hash) != i {
				return false
			}
		}
		return true
	}
	if size := indexSize(n); len(a.index) >= size {
		clear(a.index) // the ad's own: clones copy it
	} else {
		a.index = make([]int32, size)
	}
	unique := true
	for i := range a.attrs {
		unique = a.insertIndex(i) && unique
	}
	return unique
}

// insertIndex adds attribute i to the index and reports whether no
// attribute before it has the same name.
func (a *Ad) insertIndex(i int) bool {
	at := &a.attrs[i]
	mask := uint32(len(a.index) - 1)
	for p := at.hash & mask; ; p = (p + 1) & mask {
		j := a.index[p]
		if j == 0 {
			a.index[p] = int32(i + 1)
			return true
		}
		if o := &a.attrs[j-1]; o.hash == at.hash && sameName(o.name, at.name) {
			return false
		}
	}
}

// isScopeName reports whether name is one the evaluator resolves specially
// when no attribute of that name is in scope.
func isScopeName(name string) bool {
	switch len(name) {
	case 2:
		return ast.EqualFold(name, "my")
	case 4:
		return ast.EqualFold(name, "self") || ast.EqualFold(name, "root")
	case 5:
		return ast.EqualFold(name, "other")
	case 6:
		return ast.EqualFold(name, "target") || ast.EqualFold(name, "parent")
	case 8:
		return ast.EqualFold(name, "toplevel")
	}
	return false
}
