package wire

import (
	"errors"
	"fmt"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/parser"
)

// ExprLimits are a daemon's bounds on the expressions a request carries
// (constraints, qedit values, projections), with the configuration
// section that sets them, so that a refusal names the key to change.
type ExprLimits struct {
	classad.Limits
	// Section is the configuration section of the keys
	// max_expression_bytes, max_expression_tokens, max_expression_depth.
	Section string
}

// limitKeys names the key of each bound.
var limitKeys = map[string]string{
	parser.LimitBytes:  "max_expression_bytes",
	parser.LimitTokens: "max_expression_tokens",
	parser.LimitDepth:  "max_expression_depth",
}

// Parse parses an expression of a request; what names it in errors (a
// constraint, an attribute). Any error is a BadRequest; one over a bound
// names the bound's key.
func (l ExprLimits) Parse(what, src string) (classad.Expr, error) {
	x, err := classad.ParseExpr(src, classad.Filename(what), classad.WithLimits(l.Limits))
	if err != nil {
		return nil, l.refuse(err)
	}
	return x, nil
}

// Compile parses and compiles an expression of a request, as Parse.
func (l ExprLimits) Compile(what, src string) (*classad.Program, error) {
	p, err := classad.Compile(src, classad.Filename(what), classad.WithLimits(l.Limits))
	if err != nil {
		return nil, l.refuse(err)
	}
	return p, nil
}

// Names checks a projection: its names count as an expression's tokens.
func (l ExprLimits) Names(what string, names []string) error {
	if l.Tokens > 0 && len(names) > l.Tokens {
		return BadRequest("%s: %d attributes, more than %d (the limit is %s)", what, len(names), l.Tokens, l.key(parser.LimitTokens))
	}
	return nil
}

func (l ExprLimits) refuse(err error) error {
	var pe *classad.ParseError
	if errors.As(err, &pe) && pe.Limit != "" {
		named := *pe
		named.Msg += " (the limit is " + l.key(pe.Limit) + ")"
		return BadRequest("%v", &named)
	}
	return BadRequest("%v", err)
}

func (l ExprLimits) key(limit string) string {
	return fmt.Sprintf("%s.%s", l.Section, limitKeys[limit])
}
