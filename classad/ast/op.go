package ast

// Op is a unary or binary operator.
type Op uint8

// Operators, grouped by HTCondor's precedence levels
// (../shared/docs/htcondor-reference.md §2.2).
const (
	OpInvalid Op = iota

	// Unary (level 11).
	OpNeg    // -x
	OpPlus   // +x
	OpNot    // !x
	OpBitNot // ~x

	// Multiplicative (level 10).
	OpMul // *
	OpDiv // /
	OpMod // %

	// Additive (level 9).
	OpAdd // +
	OpSub // -

	// Shifts (level 8).
	OpShl  // <<
	OpShr  // >> (arithmetic)
	OpUshr // >>> (logical)

	// Relational (level 7).
	OpLT // <
	OpLE // <=
	OpGE // >=
	OpGT // >

	// Equality (level 6).
	OpEq     // ==
	OpNe     // !=
	OpIs     // =?= and is
	OpIsnt   // =!= and isnt
	OpBitAnd // & (level 5)
	OpBitXor // ^ (level 4)
	OpBitOr  // | (level 3)
	OpAnd    // && (level 2)
	OpOr     // || (level 1)
	OpElvis  // ?: (level 0, with the conditional)
)

var opText = [...]string{
	OpInvalid: "?",
	OpNeg:     "-", OpPlus: "+", OpNot: "!", OpBitNot: "~",
	OpMul: "*", OpDiv: "/", OpMod: "%",
	OpAdd: "+", OpSub: "-",
	OpShl: "<<", OpShr: ">>", OpUshr: ">>>",
	OpLT: "<", OpLE: "<=", OpGE: ">=", OpGT: ">",
	OpEq: "==", OpNe: "!=", OpIs: "is", OpIsnt: "isnt",
	OpBitAnd: "&", OpBitXor: "^", OpBitOr: "|",
	OpAnd: "&&", OpOr: "||", OpElvis: "?:",
}

// String returns the operator as the canonical printer writes it. Identity
// comparison prints as `is` and `isnt`, as HTCondor's unparser does.
func (op Op) String() string {
	if int(op) < len(opText) {
		return opText[op]
	}
	return "?"
}

var opPrec = [...]int8{
	OpMul: 10, OpDiv: 10, OpMod: 10,
	OpAdd: 9, OpSub: 9,
	OpShl: 8, OpShr: 8, OpUshr: 8,
	OpLT: 7, OpLE: 7, OpGE: 7, OpGT: 7,
	OpEq: 6, OpNe: 6, OpIs: 6, OpIsnt: 6,
	OpBitAnd: 5, OpBitXor: 4, OpBitOr: 3,
	OpAnd: 2, OpOr: 1, OpElvis: 0,
}

// Precedence returns a binary operator's precedence level (higher binds
// tighter), or -1 for operators that are not binary.
func (op Op) Precedence() int {
	if op < OpMul || int(op) >= len(opPrec) {
		return -1
	}
	return int(opPrec[op])
}

// IsUnary reports whether op is a prefix operator.
func (op Op) IsUnary() bool { return op >= OpNeg && op <= OpBitNot }

// IsComparison reports whether op is one of the six ordinary comparisons.
func (op Op) IsComparison() bool { return op >= OpLT && op <= OpNe }
