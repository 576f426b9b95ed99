package parser

import "github.com/kite-sched/kite/classad/ast"

// punct names an operator or punctuation token, so that the parser tests
// a token with one comparison and finds an operator by indexing, not by
// comparing or hashing its text.
type punct uint8

const (
	pNone punct = iota
	pLParen
	pRParen
	pLBrack
	pRBrack
	pLBrace
	pRBrace
	pComma
	pSemi
	pDot
	pColon
	pAssign // =
	pMetaEq // =?=
	pMetaNe // =!=
	pEq     // ==
	pNe     // !=
	pNot    // !
	pShl    // <<
	pLE     // <=
	pLT     // <
	pUshr   // >>>
	pShr    // >>
	pGE     // >=
	pGT     // >
	pPlus
	pMinus
	pMul
	pDiv
	pMod
	pBitNot // ~
	pBitXor // ^
	pAnd    // &&
	pBitAnd // &
	pOr     // ||
	pBitOr  // |
	pQuestion
	pElvis // ?:
	numPuncts
)

// punctText is each punctuation token's text, its Value for participle.
var punctText = [numPuncts]string{
	pLParen: "(", pRParen: ")", pLBrack: "[", pRBrack: "]", pLBrace: "{", pRBrace: "}",
	pComma: ",", pSemi: ";", pDot: ".", pColon: ":",
	pAssign: "=", pMetaEq: "=?=", pMetaNe: "=!=", pEq: "==", pNe: "!=", pNot: "!",
	pShl: "<<", pLE: "<=", pLT: "<", pUshr: ">>>", pShr: ">>", pGE: ">=", pGT: ">",
	pPlus: "+", pMinus: "-", pMul: "*", pDiv: "/", pMod: "%", pBitNot: "~", pBitXor: "^",
	pAnd: "&&", pBitAnd: "&", pOr: "||", pBitOr: "|", pQuestion: "?", pElvis: "?:",
}

// punctBinary is the binary operator each punctuation token is, if any.
var punctBinary = [numPuncts]ast.Op{
	pMul: ast.OpMul, pDiv: ast.OpDiv, pMod: ast.OpMod,
	pPlus: ast.OpAdd, pMinus: ast.OpSub,
	pShl: ast.OpShl, pShr: ast.OpShr, pUshr: ast.OpUshr,
	pLT: ast.OpLT, pLE: ast.OpLE, pGE: ast.OpGE, pGT: ast.OpGT,
	pEq: ast.OpEq, pNe: ast.OpNe, pMetaEq: ast.OpIs, pMetaNe: ast.OpIsnt,
	pBitAnd: ast.OpBitAnd, pBitXor: ast.OpBitXor, pBitOr: ast.OpBitOr,
	pAnd: ast.OpAnd, pOr: ast.OpOr,
}

// punctUnary is the unary operator each punctuation token is, if any.
var punctUnary = [numPuncts]ast.Op{pMinus: ast.OpNeg, pPlus: ast.OpPlus, pNot: ast.OpNot, pBitNot: ast.OpBitNot}

// punctOf returns the punctuation token whose text is s (pNone if none):
// how a token from participle's buffer gets its code back.
func punctOf(s string) punct {
	for p := pLParen; p < numPuncts; p++ {
		if punctText[p] == s {
			return p
		}
	}
	return pNone
}

// singlePunct is the token each character is when it is one on its own
// and starts no longer one.
var singlePunct = [256]punct{
	'(': pLParen, ')': pRParen, '[': pLBrack, ']': pRBrack, '{': pLBrace, '}': pRBrace,
	',': pComma, ';': pSemi, '.': pDot, ':': pColon,
	'+': pPlus, '-': pMinus, '*': pMul, '/': pDiv, '%': pMod, '~': pBitNot, '^': pBitXor,
}

// punct scans an operator that is not a single character on its own
// (singlePunct; scan reads those), the longest that matches.
func (s *scanner) punct(start int, t *token) error {
	src := s.src
	var p punct
	var c1, c2 byte
	if start+1 < len(src) {
		c1 = src[start+1]
	}
	if start+2 < len(src) {
		c2 = src[start+2]
	}
	switch src[start] {
	case '?':
		s.question(start, t)
		return nil
	case '=':
		switch {
		case c1 == '?' && c2 == '=':
			p = pMetaEq
		case c1 == '!' && c2 == '=':
			p = pMetaNe
		case c1 == '=':
			p = pEq
		default:
			p = pAssign
		}
	case '!':
		p = pick(c1 == '=', pNe, pNot)
	case '<':
		switch c1 {
		case '<':
			p = pShl
		case '=':
			p = pLE
		default:
			p = pLT
		}
	case '>':
		switch {
		case c1 == '>' && c2 == '>':
			p = pUshr
		case c1 == '>':
			p = pShr
		case c1 == '=':
			p = pGE
		default:
			p = pGT
		}
	case '&':
		p = pick(c1 == '&', pAnd, pBitAnd)
	case '|':
		p = pick(c1 == '|', pOr, pBitOr)
	default:
		return s.errorf(start, "unexpected character %q", src[start])
	}
	s.setTok(t, tokPunct, start, punctText[p])
	t.p = p
	s.off = start + len(t.val)
	return nil
}

func pick(cond bool, yes, no punct) punct {
	if cond {
		return yes
	}
	return no
}

// question scans "?", or the elvis operator "?:", which may have blanks
// between its two characters (HTCondor reads `a ? : b` as `a ?: b`).
func (s *scanner) question(start int, t *token) {
	i := start + 1
	for i < len(s.src) && (s.src[i] == ' ' || s.src[i] == '\t') {
		i++
	}
	s.setTok(t, tokPunct, start, "?")
	t.p = pQuestion
	s.off = start + 1
	if i < len(s.src) && s.src[i] == ':' {
		t.val, t.p = "?:", pElvis
		s.off = i + 1
	}
}
