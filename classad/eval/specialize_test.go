package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/parser"
)

// describe prints a specialised expression: literals by value, inlined
// attributes in braces, && || ?: and comparisons parenthesised.
func describe(n node) string {
	switch x := n.(type) {
	case *litNode:
		return x.v.String()
	case *refNode:
		return x.name
	case *scopedRefNode:
		return x.scopeName + "." + x.name
	case *targetRefNode:
		return "TARGET." + x.name
	case *inlineNode:
		return "{" + describe(x.c.n) + "}"
	case *boolNode:
		return "bool(" + describe(x.x) + ")"
	case *andNode:
		return "(" + describe(x.a) + " && " + describe(x.b) + ")"
	case *orNode:
		return "(" + describe(x.a) + " || " + describe(x.b) + ")"
	case *elvisNode:
		return "(" + describe(x.a) + " ?: " + describe(x.b) + ")"
	case *condNode:
		return "(" + describe(x.c) + " ? " + describe(x.a) + " : " + describe(x.b) + ")"
	case *isNode:
		op := " =?= "
		if x.not {
			op = " =!= "
		}
		return "(" + describe(x.a) + op + describe(x.b) + ")"
	case *cmpNode:
		return "(" + describe(x.x) + " " + x.op.String() + " " + describe(x.y) + ")"
	case *cmpIntNode:
		return "(" + describe(x.x) + " " + x.op.String() + " " + x.kv.String() + ")"
	case *intCmpNode:
		return "(" + x.kv.String() + " " + x.op.String() + " " + describe(x.y) + ")"
	case *eqStringNode:
		op := " == "
		if x.ne {
			op = " != "
		}
		return "(" + describe(x.x) + op + x.kv.String() + ")"
	case *binaryNode:
		return "(" + describe(x.x) + " " + x.op.String() + " " + describe(x.y) + ")"
	case *unaryNode:
		return x.op.String() + describe(x.x)
	case *callNode:
		args := make([]string, len(x.args))
		for i, a := range x.args {
			args[i] = describe(a)
		}
		return x.src.Name + "(" + strings.Join(args, ", ") + ")"
	}
	return fmt.Sprintf("%T", n)
}

func parseAd(t *testing.T, src string) *Ad {
	t.Helper()
	r, err := parser.ParseRecord(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return FromRecord(r)
}

// TestSpecialize shows what specialising an ad's Requirements folds and
// what it must leave to evaluation. HTCondor's matchmaker does the same to
// the machine ad (manual: "Matchmaking with ClassAds", Requirements and
// Rank evaluated with MY the machine and TARGET the job).
func TestSpecialize(t *testing.T) {
	tests := []struct {
		name, ad, want string
	}{
		{"own attribute folds", `[ Memory = 4096; Req = MY.Memory >= 2048 ]`, "true"},
		{"unscoped own attribute folds", `[ Memory = 4096; Req = Memory * 2 ]`, "8192"},
		{"TARGET stays", `[ Memory = 4096; Req = TARGET.RequestMemory <= MY.Memory ]`, "(TARGET.RequestMemory <= 4096)"},
		{"unknown name is looked up in TARGET", `[ Req = Foo > 1 ]`, "(TARGET.Foo > 1)"},
		{"MY of a missing attribute is undefined", `[ Req = MY.Foo ]`, "undefined"},
		{"varying attribute is inlined", `[ K = 5; Start = TARGET.X > MY.K; Req = Start && true ]`, "{(TARGET.X > 5)}"},
		{"constant integer on the left", `[ Cpus = 4; Req = MY.Cpus >= TARGET.RequestCpus ]`, "(4 >= TARGET.RequestCpus)"},
		{"decided &&", `[ Idle = false; Req = Idle && TARGET.X ]`, "false"},
		{"decided ||", `[ Idle = 3; Req = Idle || TARGET.X ]`, "true"},
		{"&& true converts to boolean", `[ Req = TARGET.X && true ]`, "bool(TARGET.X)"},
		{"|| false keeps a comparison", `[ Req = TARGET.X > 1 || false ]`, "(TARGET.X > 1)"},
		{"undefined && keeps the operator", `[ A = undefined; Req = A && TARGET.X ]`, "(undefined && TARGET.X)"},
		{"error && is error", `[ A = 1/0; Req = A && TARGET.X ]`, "error"},
		{"non-boolean || is error", `[ A = "s"; Req = A || TARGET.X ]`, "error"},
		{"constant condition picks a branch", `[ Big = true; Req = Big ? TARGET.A : TARGET.B ]`, "TARGET.A"},
		{"undefined condition", `[ Req = MY.Nope ? TARGET.A : TARGET.B ]`, "undefined"},
		{"elvis", `[ A = undefined; Req = A ?: TARGET.B ]`, "TARGET.B"},
		{"pure call folds", `[ Name = "Slot1"; Req = toLower(Name) == TARGET.S ]`, `("slot1" == TARGET.S)`},
		{"eval() stays", `[ A = 1; Req = eval("A") == 1 ]`, "(eval(\"A\") == 1)"},
		{"time() stays", `[ Req = time() > MY.T; T = 7 ]`, "(time() > 7)"},
		{"random() stays", `[ Req = random(10) < 20 ]`, "(random(10) < 20)"},
		{"attribute using time() is inlined, not folded", `[ Now = time(); Req = Now > 0 ]`, "({time()} > 0)"},
		{"cycle is left to evaluation", `[ A = B; B = A; Req = A ]`, "{{A}}"},
		{"cycle through Requirements", `[ X = Req; Req = X ]`, "{Req}"},
		{"constant reaching a cycle does not fold", `[ A = B + 1; B = C; C = B; Req = A ]`, "{({{B}} + 1)}"},
		{"list element references are not specialised", `[ A = 1; Req = member(TARGET.X, { A, 2 }) ]`, "member(TARGET.X, *eval.listNode)"},
		{"own nested record stays", `[ R = [ A = 1 ]; Req = R.A ]`, "*eval.selectNode"},
		{"PARENT stays", `[ Req = PARENT.A ]`, "PARENT.A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ad := parseAd(t, tt.ad)
			sp := ad.specialized(ad.Index("Req"))
			if sp == nil {
				t.Fatal("not specialised")
			}
			if got := describe(sp.c.n); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestSpecializeNotApplied covers ads evaluated as written.
func TestSpecializeNotApplied(t *testing.T) {
	for _, src := range []string{
		`[ Target = [ X = 1 ]; Req = TARGET.X ]`, // an attribute shadows a scope keyword
		`[ Req = 1 + 2 ]`,                        // already a constant
	} {
		ad := parseAd(t, src)
		if sp := ad.specialized(ad.Index("Req")); sp != nil {
			t.Errorf("%s: specialised to %s", src, describe(sp.c.n))
		}
	}
}

// TestSpecializeForgotten checks that changing an ad drops what was
// specialised from it.
func TestSpecializeForgotten(t *testing.T) {
	ad := parseAd(t, `[ Memory = 4096; Req = MY.Memory >= TARGET.Need ]`)
	job := parseAd(t, `[ Need = 3000 ]`)
	st := NewState(ad, job)
	check := func(want bool) {
		t.Helper()
		st.Reset(ad, job)
		if got := st.EvalMatchAttr("Req"); got.String() != fmt.Sprint(want) {
			t.Errorf("Req = %s, want %v", got, want)
		}
	}
	check(true)
	ad.Set("Memory", mustExpr(t, "2048"))
	check(false)
	ad.Delete("Memory") // MY.Memory is now undefined
	st.Reset(ad, job)
	if got := st.EvalMatchAttr("Req"); got.String() != "undefined" {
		t.Errorf("after Delete: Req = %s, want undefined", got)
	}
	ad.Set("Memory", mustExpr(t, "8192"))
	check(true)
	if err := ad.UnmarshalJSON([]byte(`{"Req": "ok"}`)); err != nil {
		t.Fatal(err)
	}
	st.Reset(ad, job)
	if got := st.EvalMatchAttr("Req"); got.String() != `"ok"` {
		t.Errorf("after UnmarshalJSON: Req = %s", got)
	}
}

// TestSpecializeLimits checks that evaluations failing on a limit fail as
// they would unspecialised.
func TestSpecializeLimits(t *testing.T) {
	// A chain of 450 attributes nests deeper than MaxDepth.
	var b strings.Builder
	b.WriteString("[ A0 = TARGET.X")
	for i := 1; i <= 450; i++ {
		fmt.Fprintf(&b, "; A%d = A%d + 1", i, i-1)
	}
	b.WriteString("; Req = A450 ]")
	ad := parseAd(t, b.String())
	job := parseAd(t, `[ X = 1 ]`)
	st := NewState(ad, job)
	v := st.EvalMatchAttr("Req")
	plain := NewState(ad, job)
	w := plain.EvalAttr("Req")
	if v.String() != w.String() || st.Failure() != plain.Failure() || st.Failure() == "" {
		t.Errorf("specialised %s (%q), plain %s (%q)", v, st.Failure(), w, plain.Failure())
	}
}

func mustExpr(t *testing.T, src string) ast.Expr {
	t.Helper()
	e, err := parser.ParseExpr(src)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestSpecializedTargetReferences checks references left to the other ad
// (TARGET.X, and unscoped names the ad does not define) against targets
// that lack them, define them, refer back, or are missing.
func TestSpecializedTargetReferences(t *testing.T) {
	ad := parseAd(t, `[ K = 3; Req = TARGET.X > MY.K && Foo; Rank = Back ]`)
	for _, target := range []string{"", `[ ]`, `[ X = 5 ]`, `[ X = 5; Foo = true ]`,
		`[ X = K + 1; Foo = X > 3 ]`, `[ X = TARGET.K * 2; Foo = 1; Back = K ]`, `[ Back = Back ]`} {
		var tgt *Ad
		if target != "" {
			tgt = parseAd(t, target)
		}
		for _, name := range []string{"Req", "Rank"} {
			plain, fast := NewState(ad, tgt), NewState(ad, tgt)
			want, got := plain.EvalAttr(name), fast.EvalMatch(NewAttrName(name))
			if got.String() != want.String() || fast.Failure() != plain.Failure() {
				t.Errorf("%s against %q: got %s (%q), want %s (%q)", name, target, got, fast.Failure(), want, plain.Failure())
			}
		}
	}
}
