package classad_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestEncodingGolden")

// encodingAds are the ads whose printed forms are held in
// testdata/encoding: the benchmark job and machine ads, and one with
// every kind of value and every character JSON and the old syntax escape.
func encodingAds(t *testing.T) map[string]*classad.Ad {
	t.Helper()
	read := func(name string) string {
		src, err := os.ReadFile("testdata/bench/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(src)
	}
	job, err := classad.ParseOld(read("startd-job.ad"))
	if err != nil {
		t.Fatal(err)
	}
	machine, err := classad.ParseNew(read("machine.ad"))
	if err != nil {
		t.Fatal(err)
	}
	values, err := classad.ParseNew(`[
		Quotes = "say \"hi\" \\ back\\slash";
		Controls = "tab\tnl\ncr\rbs\bff\fnul-free \001\037 del \177";
		Unicode = "héllo ✓ 😀";
		Expr = Owner == "alice" && Env != "A=\"1\"" && 'odd name' > 2;
		Neg = -7; NegReal = -2.5; NegExpr = -a; Minus = 0 - 1;
		Reals = { 0.1, 100.0, 1e300, 1.5e-7, 0.0, -0.0, 0.30000000000000004, real("NaN"), real("INF"), real("-INF") };
		Lits = { true, false, undefined, error, 9223372036854775807, -9223372036854775808 };
		Nested = [ a = { 1, [ b = "x" ] }; c = [] ; d = {} ];
		Ops = a is b && c isnt d || x =?= y && z =!= w ? f(1, g()) : h[2].i ?: j;
		'quoted name' = 1
	]`)
	if err != nil {
		t.Fatal(err)
	}
	// A string no parse gives: not UTF-8.
	values.Set("Invalid", &ast.Literal{At: ast.NoPos, Kind: ast.StringLit, Str: "a\xffb\xc3"})
	return map[string]*classad.Ad{"job": job, "machine": machine, "values": values}
}

// The JSON (one line and indented) and old-syntax forms of ads are
// exactly the golden files, and the same whether written from an ad or
// from its record. (HTCondor manual, "ClassAd JSON" and condor_q -long:
// the forms scripts read.)
func TestEncodingGolden(t *testing.T) {
	for name, ad := range encodingAds(t) {
		forms := map[string][]byte{
			name + ".json":        classad.AppendJSON(nil, ad, false),
			name + ".indent.json": classad.AppendJSON(nil, ad, true),
			name + ".old":         classad.AppendOld(nil, ad),
		}
		fromRecord := map[string][]byte{
			name + ".json":        ast.AppendJSON(nil, ad.Record(), false),
			name + ".indent.json": ast.AppendJSON(nil, ad.Record(), true),
		}
		for file, got := range forms {
			path := filepath.Join("testdata", "encoding", file)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s:\n got %s\nwant %s", file, got, want)
			}
			if r, ok := fromRecord[file]; ok && string(r) != string(want) {
				t.Errorf("%s from the record:\n got %s\nwant %s", file, r, want)
			}
		}
		// JSON reads back as the same ad.
		back, err := classad.ParseJSON(classad.AppendJSON(nil, ad, false))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name != "values" && classad.Unparse(back) != classad.Unparse(ad) {
			t.Errorf("%s: JSON round trip:\n got %s\nwant %s", name, classad.Unparse(back), classad.Unparse(ad))
		}
	}
}
