package ast

import (
	"math"
	"strconv"
	"strings"
)

// HTCondor's tools print an ad in long form (condor_q -long,
// condor_status -long, condor_history -long, condor_submit -dry-run, the
// job ad file) with the unparser in its old-ClassAd mode. That mode
// differs from the canonical printer, which the conformance tests hold to
// the new-ClassAd unparser, in two ways users' scripts see: reals are
// written short (%.16G: 0.25, not 2.500000000000000E-01), and identity
// comparisons keep their old spelling (=?= and =!=, not is and isnt).

// AppendLongAttr appends one attribute as HTCondor's tools print it in
// long form: `Name = Expr` in the old syntax of AppendOldAttr, with reals
// as AppendLongReal writes them and =?= and =!= for identity comparisons,
// at every depth. The text parses back to the same tree, except that a
// real needing all 17 significant digits loses the last, as in HTCondor.
func AppendLongAttr(buf []byte, name string, e Expr) []byte {
	p := printer{buf: buf, old: true, long: true}
	p.name(name)
	p.buf = append(p.buf, " = "...)
	p.expr(e)
	return p.buf
}

// AppendLongReal appends a real as HTCondor's old-ClassAd unparser writes
// it: C's %.16G (at most 16 significant digits, trailing zeros dropped,
// an exponent below -4 or from 16 up), with ".0" added when that reads as
// an integer (3.0, 1000000.0); zero, NaN and the infinities as the
// canonical printer writes them.
func AppendLongReal(buf []byte, f float64) []byte {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return AppendReal(buf, f)
	}
	start := len(buf)
	buf = strconv.AppendFloat(buf, f, 'G', 16, 64)
	if !strings.ContainsAny(string(buf[start:]), ".E") {
		buf = append(buf, ".0"...)
	}
	return buf
}

// opText returns a binary operator as the printer writes it: in the long
// form, identity comparisons as =?= and =!=.
func (p *printer) opText(op Op) string {
	if p.long {
		switch op {
		case OpIs:
			return "=?="
		case OpIsnt:
			return "=!="
		}
	}
	return op.String()
}
