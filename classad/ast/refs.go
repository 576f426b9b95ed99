package ast

// Which attributes does an evaluation read? Autoclusters and slot classes
// are keyed by the answer: two jobs that agree on every attribute a match
// can read are the same job to the matchmaker. The walk starts at some
// attributes of an ad and follows references through the ad's own
// expressions; a name the ad does not define, or one read through
// TARGET. or OTHER., belongs to the other ad of the match.

// Attributes is an ad as the reference walk sees it: its own attributes
// by name (case-insensitive). *classad.Ad satisfies it.
type Attributes interface {
	Lookup(name string) (Expr, bool)
}

// Refs collects what evaluating expressions of one ad reads, on the two
// sides of a match. The maps are keyed by lower-case name and hold the
// name as a reference spelled it. The ad is an argument of each call (a
// nil ad defines nothing: every name read is then the other ad's), so
// that one Refs can walk many ads after a Reset.
type Refs struct {
	// Self holds the ad's own attributes that the walk read (and followed
	// into their expressions): names it defines, read unscoped or through
	// MY. or SELF.
	Self map[string]string
	// Other holds the names read of the other ad: names the ad does not
	// define, read unscoped, and anything read through TARGET. or OTHER.
	Other map[string]string
	// Escape reports an eval() of a computed string, which can read any
	// attribute of either ad. eval() of a string literal is not followed
	// into: as in HTCondor, references inside the string are invisible.
	Escape bool
}

// NewRefs returns an empty walk.
func NewRefs() *Refs {
	return &Refs{Self: map[string]string{}, Other: map[string]string{}}
}

// Reset empties r for another walk, keeping its maps' storage.
func (r *Refs) Reset() {
	r.Escape = false
	clear(r.Self)
	clear(r.Other)
}

// Follow adds what evaluating ad's attributes called names reads. A name
// the ad does not define adds nothing.
func (r *Refs) Follow(ad Attributes, names ...string) {
	for _, n := range names {
		if e, ok := lookup(ad, n); ok {
			r.follow(ad, Lower(n), n, e)
		}
	}
}

// Attr adds a reference to name read unscoped or through MY.: ad's own
// attribute, followed into its expression, or else the other ad's.
func (r *Refs) Attr(ad Attributes, name string) {
	k := Lower(name)
	if _, seen := r.Self[k]; seen {
		return
	}
	e, ok := lookup(ad, name)
	if !ok {
		r.Other[k] = name
		return
	}
	r.follow(ad, k, name, e)
}

// follow records ad's attribute name (lower case k) and walks its
// expression, once.
func (r *Refs) follow(ad Attributes, k, name string, e Expr) {
	if _, seen := r.Self[k]; seen {
		return
	}
	r.Self[k] = name
	r.Expr(ad, e)
}

func lookup(ad Attributes, name string) (Expr, bool) {
	if ad == nil {
		return nil, false
	}
	return ad.Lookup(name)
}

// Expr adds the references of e, an expression evaluated in ad.
func (r *Refs) Expr(ad Attributes, e Expr) {
	Inspect(e, func(x Expr) bool {
		switch n := x.(type) {
		case *AttrRef:
			r.Attr(ad, n.Name)
		case *Select:
			return r.selected(ad, n)
		case *Call:
			if EqualFold(n.Name, "eval") && !isStringArg(n) {
				r.Escape = true
			}
		}
		return true
	})
}

// selected adds a scoped reference (MY.x, TARGET.x) and reports whether
// the walk goes on into n's base: it does for any other base (a nested
// record's attribute is read through the reference to the record).
func (r *Refs) selected(ad Attributes, n *Select) bool {
	base, ok := n.X.(*AttrRef)
	if !ok {
		return true
	}
	switch Lower(base.Name) {
	case "my", "self":
		r.Attr(ad, n.Name)
		return false
	case "target", "other":
		r.Other[Lower(n.Name)] = n.Name
		return false
	}
	return true
}

// isStringArg reports a call with one argument, a string literal.
func isStringArg(c *Call) bool {
	if len(c.Args) != 1 {
		return false
	}
	l, ok := c.Args[0].(*Literal)
	return ok && l.Kind == StringLit
}
