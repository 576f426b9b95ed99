package classad_test

import (
	"testing"

	"github.com/kite-sched/kite/classad"
)

// FuzzEval: evaluating any expression that parses, in an ad against a
// target, finishes within the limits and never panics.
func FuzzEval(f *testing.F) {
	for _, s := range []string{
		`TARGET.Memory >= MY.RequestMemory && regexp("^slot", TARGET.Name)`,
		`strcat(A, L[1], Nested.y) ?: sum({A, B})`, `splitTime(absTime("2004-01-01T00:00:00Z"))`,
		`formatTime(0, "%c %j %U")`, `replaceAll("a*", "baaac", "x")`, `eval(strcat("A", "+1"))`,
		`stringListAvg("1,2,3") + quantize(7, {2, 5.5})`, `unparse(Nested) + unresolved(R)`,
		`versioncmp("1.10", "1.9") << 3 >>> 70`, `member(1, L) || anyCompare("<", L, 5)`,
		`mergeEnvironment("A=1 B=2", envV1ToV2("C=3;D=4"))`, `argsToList(listToArgs({"a b", "c"}))`,
		`countMatches(x > 1, { [x = 2], [x = 0], 3 })`, `evalInEachContext(x, { [x = 2] })`,
	} {
		f.Add(s)
	}
	my, err := classad.ParseNew(`[ A = 3; B = 2.5; S = "a,b,c"; L = { 1, "x", 2.5 }; R = A + Missing;
		Nested = [ x = 1; y = "s" ]; Cyc = Cyc + 1; Name = "slot1@host" ]`)
	if err != nil {
		f.Fatal(err)
	}
	target, _ := classad.ParseNew(`[ Memory = 4096; Name = "slot1@host"; RequestMemory = 10 ]`)
	f.Fuzz(func(t *testing.T, src string) {
		p, err := classad.Compile(src)
		if err != nil {
			return
		}
		classad.Eval(p, my, target)
		classad.Eval(p, target, my)
	})
}
