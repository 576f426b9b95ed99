package ast_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/classad/parser"
)

// record is a parsed ad as the walk sees it.
type record struct{ r *ast.Record }

func (a record) Lookup(name string) (ast.Expr, bool) {
	if i := a.r.Lookup(name); i >= 0 {
		return a.r.Attrs[i].Value, true
	}
	return nil, false
}

func parseAd(t *testing.T, src string) record {
	t.Helper()
	r, err := parser.ParseRecord(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return record{r}
}

// keys lists a set's lower-case names, sorted and joined by spaces.
func keys(m map[string]string) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), " ")
}

func TestRefsFollow(t *testing.T) {
	tests := []struct {
		name, ad    string
		roots       []string
		self, other string
		escape      bool
	}{
		{"own attribute followed", `[ Requirements = TARGET.Memory >= RequestMemory; RequestMemory = 2 * Base; Base = 512 ]`,
			[]string{"Requirements"}, "base requestmemory requirements", "memory", false},
		{"unscoped name not defined is the other ad's", `[ Requirements = Memory > 5 && Arch == "X86_64" ]`,
			[]string{"requirements"}, "requirements", "arch memory", false},
		{"MY and SELF read the ad", `[ Rank = MY.Color == "red" || SELF.Size > 1 || MY.Absent; Color = "red"; Size = 2 ]`,
			[]string{"Rank"}, "color rank size", "absent", false},
		{"TARGET and OTHER read the other ad, even names the ad defines", `[ Requirements = TARGET.Cpus > 1 && OTHER.Disk > 0; Cpus = 1 ]`,
			[]string{"Requirements"}, "requirements", "cpus disk", false},
		{"scopes are case-insensitive", `[ Requirements = target.Cpus > my.Need; Need = 1 ]`,
			[]string{"REQUIREMENTS"}, "need requirements", "cpus", false},
		{"a cycle between attributes ends", `[ A = B + 1; B = C; C = A + TARGET.X ]`,
			[]string{"A"}, "a b c", "x", false},
		{"a self-reference ends", `[ A = A + 1 ]`, []string{"A"}, "a", "", false},
		{"absent roots add nothing", `[ A = 1 ]`, []string{"Requirements", "Rank"}, "", "", false},
		{"several roots", `[ Requirements = X; Rank = Y; X = 1 ]`, []string{"Requirements", "Rank"}, "rank requirements x", "y", false},
		{"eval of a literal is not followed into", `[ Requirements = eval("TARGET.Memory > 1") ]`,
			[]string{"Requirements"}, "requirements", "", false},
		{"eval of a computed string escapes", `[ Requirements = eval(strcat("Tar", "get.Memory")) > 0 ]`,
			[]string{"Requirements"}, "requirements", "", true},
		{"eval of an attribute escapes", `[ Requirements = EVAL(Expr); Expr = "1" ]`,
			[]string{"Requirements"}, "expr requirements", "", true},
		{"eval reached through another attribute escapes", `[ Requirements = Helper; Helper = eval(Name) ]`,
			[]string{"Requirements"}, "helper requirements", "name", true},
		{"lists are walked", `[ Requirements = member(TARGET.Arch, Archs) && size({ A, TARGET.B }) > 0; Archs = { "X86_64" }; A = 1 ]`,
			[]string{"Requirements"}, "a archs requirements", "arch b", false},
		{"nested records are walked", `[ Requirements = [ x = Inner; y = TARGET.Outer ].x > 0; Inner = 1 ]`,
			[]string{"Requirements"}, "inner requirements", "outer", false},
		{"an attribute of a nested record is read through the record", `[ Requirements = Config.Min < TARGET.Memory; Config = [ Min = Floor ] ]`,
			[]string{"Requirements"}, "config requirements", "floor memory", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ast.NewRefs()
			r.Follow(parseAd(t, tt.ad), tt.roots...)
			if got := keys(r.Self); got != tt.self {
				t.Errorf("Self = %q, want %q", got, tt.self)
			}
			if got := keys(r.Other); got != tt.other {
				t.Errorf("Other = %q, want %q", got, tt.other)
			}
			if r.Escape != tt.escape {
				t.Errorf("Escape = %v, want %v", r.Escape, tt.escape)
			}
		})
	}
}

// The maps keep a name as the reference spells it.
func TestRefsSpelling(t *testing.T) {
	r := ast.NewRefs()
	r.Follow(parseAd(t, `[ Requirements = TARGET.Memory > MY.need; Need = 1 ]`), "Requirements")
	if r.Other["memory"] != "Memory" || r.Self["need"] != "need" || r.Self["requirements"] != "Requirements" {
		t.Errorf("Self %v, Other %v", r.Self, r.Other)
	}
}

// Without an ad every name an expression reads is the other ad's; Attr
// and Reset serve walks over many ads with one Refs.
func TestRefsExprAndReset(t *testing.T) {
	e, err := parser.ParseExpr(`MY.KiteSpeed * (TARGET.KiteWork > Size ? 2 : 1) + eval(strcat("A", "B"))`)
	if err != nil {
		t.Fatal(err)
	}
	r := ast.NewRefs()
	r.Expr(nil, e)
	if got := keys(r.Other); got != "kitespeed kitework size" || len(r.Self) != 0 || !r.Escape {
		t.Errorf("without an ad: Self %v, Other %q, Escape %v", r.Self, got, r.Escape)
	}
	r.Reset()
	ad := parseAd(t, `[ Size = TARGET.Disk; Start = true ]`)
	r.Attr(ad, "Size")
	r.Attr(ad, "Memory")
	if keys(r.Self) != "size" || keys(r.Other) != "disk memory" || r.Escape {
		t.Errorf("after Reset: Self %v, Other %v, Escape %v", r.Self, r.Other, r.Escape)
	}
}
