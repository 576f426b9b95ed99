package tomlstrict

import (
	"strings"
	"testing"
)

// read reads text's top table with f and returns the errors, one a line.
func read(t *testing.T, text string, f func(top *Table)) string {
	t.Helper()
	doc, r, err := Read("f.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	top := r.Table("", doc)
	f(top)
	top.Done()
	if err := r.Err(); err != nil {
		return err.Error()
	}
	return ""
}

// Each reader checks the kind of its value; every problem is reported,
// once, at the value's place.
func TestReaderErrors(t *testing.T) {
	tests := []struct {
		name, text string
		read       func(top *Table)
		want       []string
	}{
		{"types", "s = 1\nb = 'yes'\nn = 'x'\ni = 1.5\n",
			func(top *Table) { top.Str("s", ""); top.Bool("b", false); top.Number("n", 0); top.Int("i", 0, 0, 9) },
			[]string{
				"f.toml:1:1: s: want a string, got the number 1",
				`f.toml:2:1: b: want true or false, got the string "yes"`,
				`f.toml:3:1: n: want a number, got the string "x"`,
				"f.toml:4:1: i: want an integer, got the number 1.5",
			}},
		{"ranges", "o = 'z'\nf = 2\np = -1\ni = 10\n",
			func(top *Table) {
				top.OneOf("o", "a", "a", "b")
				top.NumberIn("f", 0, 0, 1)
				top.Positive("p", 1)
				top.Int("i", 0, 0, 9)
			},
			[]string{
				`f.toml:1:1: o: "z": must be one of a, b`,
				"f.toml:2:1: f: 2: must be between 0 and 1",
				"f.toml:3:1: p: -1: must be a positive number",
				"f.toml:4:1: i: 10: must be between 0 and 9",
			}},
		{"unknown keys, sorted", "[t]\nz = 1\na = 2\nk = 3\n",
			func(top *Table) { top.Sub("t").Done() },
			[]string{"f.toml:3:1: t.a: unknown key\nf.toml:4:1: t.k: unknown key\nf.toml:2:1: t.z: unknown key"}},
		{"elements", "[[g]]\nx = 1\n[[g]]\ny = [1, 'b']\nz = ['a', 2]\n",
			func(top *Table) {
				for _, g := range top.Tables("g") {
					g.Numbers("y")
					g.Strings("z")
					g.Done()
				}
			},
			[]string{
				"f.toml:2:1: g[0].x: unknown key",
				`f.toml:4:9: g[1].y[1]: want a number, got the string "b"`,
				"f.toml:5:11: g[1].z[1]: want a string, got the number 2",
			}},
		{"shapes", "t = 1\nts = [1]\na = {}\n",
			func(top *Table) { top.Sub("t"); top.Tables("ts"); top.Array("a") },
			[]string{
				"f.toml:1:1: t: want a table, got the number 1",
				"f.toml:2:7: ts[0]: want a table, got the number 1",
				"f.toml:3:1: a: want an array, got a table",
			}},
		{"table errors, once", "[t]\nx = 1\n",
			func(top *Table) {
				tt := top.Sub("t")
				tt.Errorf("", "bad table")
				tt.Errorf("", "bad table")
				tt.Errorf("x", "bad x")
				tt.MarkRead("x")
			},
			[]string{"f.toml:1:1: t: bad table", "f.toml:2:1: t.x: bad x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := read(t, tt.text, tt.read)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("errors\n%s\nlack %q", got, w)
				}
			}
			if want := strings.Join(tt.want, "\n"); strings.Count(got, "\n") != strings.Count(want, "\n") {
				t.Errorf("errors\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// Absent keys give the default; a nil table reads as empty.
func TestReaderDefaults(t *testing.T) {
	got := read(t, "s = 'x'\n", func(top *Table) {
		if top.Str("s", "d") != "x" || top.Str("none", "d") != "d" || top.Int("none", 7, 0, 9) != 7 {
			t.Error("defaults")
		}
		var missing *Table = top.Sub("none")
		if missing != nil || missing.Has("k") || missing.Str("k", "d") != "d" || missing.Keys() != nil {
			t.Error("a nil table is not empty")
		}
		missing.Done()
	})
	if got != "" {
		t.Error(got)
	}
}
