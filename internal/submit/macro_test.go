package submit

import (
	"strings"
	"testing"
)

// TestExpand checks macro expansion against a fixed table of definitions.
func TestExpand(t *testing.T) {
	defs := newMacros()
	for _, d := range [][2]string{
		{"a", "A"}, {"b", "$(a)$(a)"}, {"list", "x"}, {"list", "$(list) y"},
		{"self", "$(self:base)+"}, {"loop1", "$(loop2)"}, {"loop2", "$(LOOP1)"},
		{"Step", "custom"},
	} {
		defs.define(d[0], d[1], span{})
	}
	env := &Env{Cluster: 9, Environ: []string{"HOME=/home/u", "EMPTY="},
		Host: HostInfo{Arch: "X86_64", OpSys: "LINUX"}}
	sc := newScope(defs, env, "f.sub")
	sc.proc, sc.row = 4, 2
	sc.loopVars = map[string]string{"item": "it-$(a)"}
	tests := []struct {
		in, want string
		live     bool
	}{
		{"plain text", "plain text", false},
		{"$(a)", "A", false},
		{"$(A)-$(b)", "A-AA", false},
		{"$(list)", "x y", false},
		{"$(self)", "base+", false},
		{"$(missing)", "", false},
		{"$(missing:dflt)", "dflt", false},
		{"$(missing:$(a)x)", "Ax", false},
		{"$(a:ignored)", "A", false},
		{"$$(OpSys)", "$$(OpSys)", false},
		{"$$([TARGET.Memory * 0.9])", "$$([TARGET.Memory * 0.9])", false},
		{"$ENV(HOME)", "/home/u", false},
		{"$ENV(EMPTY:d)", "", false},
		{"$ENV(NONE:d)", "d", false},
		{"$ENV(NONE)", "UNDEFINED", false},
		{"$ENV(NONE:)", "", false},
		{"$env(HOME)", "$env(HOME)", false},
		{"$(DOLLAR)(a)", "$(a)", false},
		{"$(DOLLARDOLLAR)", "$$", false},
		{"cost $5 and $", "cost $5 and $", false},
		{"$(not a name)", "$(not a name)", false},
		{"$(unclosed", "$(unclosed", false},
		{"$UNKNOWNFN(x)", "$UNKNOWNFN(x)", false},
		{"$(Cluster).$(ClusterId)", "9.9", false},
		{"$(Process)/$(ProcId)", "4/4", true},
		{"$(JobId)", "9.4", true},
		{"$(Row)$(ItemIndex)", "22", true},
		{"$(Step)", "custom", false},
		{"$(Item)", "it-A", true},
		{"$(ARCH)/$(OpSys)/$(IsLinux)", "X86_64/LINUX/1", false},
		{"$(SUBMIT_FILE)", "/f.sub", false},
	}
	for _, tt := range tests {
		x := expansion{sc: sc}
		got := x.expand(tt.in)
		if got != tt.want || x.live != tt.live || x.err != nil {
			t.Errorf("expand(%q) = %q live=%v err=%v; want %q live=%v", tt.in, got, x.live, x.err, tt.want, tt.live)
		}
	}
	x := expansion{sc: sc}
	x.expand("$(loop1)")
	if x.err == nil {
		t.Errorf("expand($(loop1)): no error for a cycle")
	}
}

// TestReplaceSelf checks the expansion of self-references at definition.
func TestReplaceSelf(t *testing.T) {
	tests := []struct{ value, key, prev, want string }{
		{"$(foo) bar", "foo", "x", "x bar"},
		{"bar $(FOO)", "foo", "x", "bar x"},
		{"$(foo:d) bar", "foo", "", "d bar"},
		{"$(foo) bar", "foo", "", " bar"},
		{"$(other) $(foo)", "foo", "$(y)", "$(other) $(y)"},
		{"$$(foo)", "foo", "x", "$$(foo)"},
	}
	for _, tt := range tests {
		if got := replaceSelf(tt.value, tt.key, tt.prev); got != tt.want {
			t.Errorf("replaceSelf(%q, %q, %q) = %q, want %q", tt.value, tt.key, tt.prev, got, tt.want)
		}
	}
}

// TestReferences checks the names a value refers to.
func TestReferences(t *testing.T) {
	var got []string
	references("$(a) $(b:$(c)) $$(d) $ENV($(e)) $(f g)", func(n string) { got = append(got, n) })
	want := []string{"a", "b", "c", "e"}
	if len(got) != len(want) {
		t.Fatalf("references = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("references = %v, want %v", got, want)
		}
	}
}

// TestExpansionLimit checks that definitions that double at each level
// fail instead of filling memory.
func TestExpansionLimit(t *testing.T) {
	src := "m0 = xxxx\n"
	for i := 1; i <= 12; i++ {
		p := "$(m" + itoa(i-1) + ")"
		src += "m" + itoa(i) + " = " + p + p + p + p + "\n"
	}
	src += "executable = /bin/x\narguments = $(m12)\nqueue\n"
	d, _, err := Parse("f.sub", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Expand(testEnv(nil)); err == nil || !strings.Contains(err.Error(), "f.sub:15: macro expansion too long") {
		t.Errorf("Expand: %v, want a too-long error at line 15", err)
	}
}
