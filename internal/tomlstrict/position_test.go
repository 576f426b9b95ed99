package tomlstrict

import "testing"

// Scan finds keys, table headers and array elements, and skips values
// that span lines.
func TestScan(t *testing.T) {
	tests := []struct {
		name, text string
		want       map[string]Position // Line and Col
		absent     []string
	}{
		{
			name: "tables, arrays and multi-line values",
			text: "a = 1\n[t]\n  b = [\n 1,\n 2 ]\nc = \"\"\"\nx = 1\n\"\"\"\n\"quoted.k\" = 2\n[[arr]]\nd.e = 3\n",
			want: map[string]Position{
				"a": {Line: 1, Col: 1}, "t.b": {Line: 3, Col: 3}, "t.b[1]": {Line: 5, Col: 2}, "t.c": {Line: 6, Col: 1},
				"t.quoted.k": {Line: 9, Col: 1}, "arr": {Line: 10, Col: 1}, "arr[0].d": {Line: 11, Col: 1}, "arr[0].d.e": {Line: 11, Col: 1},
			},
			absent: []string{"t.x"}, // a line inside a multi-line string
		},
		{
			name: "elements of arrays of tables and inline arrays",
			text: `name = "x" # a comment
[pool]
dispatch = "queue"
[[machines]]
name = "a"
[machines.failure]
per_minute = 0.1
[[machines]]
name = """
b"""
failure = { changes = [ { at = 1 },
  { at = 2, per_minute = 0 } ] }
'quoted key' = 1
[[workload]]
size.dist = "uniform"
`,
			want: map[string]Position{
				"name":                              {Line: 1, Col: 1},
				"pool.dispatch":                     {Line: 3, Col: 1},
				"machines[0]":                       {Line: 4, Col: 1},
				"machines[0].failure.per_minute":    {Line: 7, Col: 1},
				"machines[1].name":                  {Line: 9, Col: 1},
				"machines[1].failure.changes[0].at": {Line: 11, Col: 27},
				"machines[1].failure.changes[1]":    {Line: 12, Col: 3},
				"machines[1].failure.changes[1].at": {Line: 12, Col: 5},
				"machines[1].quoted key":            {Line: 13, Col: 1},
				"workload[0].size.dist":             {Line: 15, Col: 1},
			},
		},
		{
			name: "columns count characters",
			text: "[t]\n\"é\" = { a = 1 }\n",
			want: map[string]Position{"t.é": {Line: 2, Col: 1}, "t.é.a": {Line: 2, Col: 9}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pos := Scan("f.toml", tt.text)
			for path, want := range tt.want {
				want.File = "f.toml"
				if got, ok := pos.Key(path); !ok || got != want {
					t.Errorf("%s at %v (%v), want %v", path, got, ok, want)
				}
			}
			for _, path := range tt.absent {
				if p, ok := pos.Key(path); ok {
					t.Errorf("%s found at %v", path, p)
				}
			}
		})
	}
}

// At falls back to the nearest enclosing key, then to the file.
func TestAt(t *testing.T) {
	pos := Scan("f.toml", "[[m]]\n[[m]]\nx = { y = 1 }\n")
	for path, want := range map[string]string{
		"m[1].x.y":     "f.toml:3:7",
		"m[1].x.z":     "f.toml:3:1",
		"m[1].w[3]":    "f.toml:2:1",
		"m[7]":         "f.toml:1:1",
		"other.thing":  "f.toml",
		"m[1].x.y.z.w": "f.toml:3:7",
	} {
		if got := pos.At(path).String(); got != want {
			t.Errorf("At(%s) = %s, want %s", path, got, want)
		}
	}
	pos.Alias("m[1].v", "m[1].x.y")
	if got := pos.At("m[1].v").String(); got != "f.toml:3:7" {
		t.Errorf("alias at %s", got)
	}
}

// InString places a byte of a string's decoded value at its place in the
// source, whatever the quoting.
func TestInString(t *testing.T) {
	tests := []struct {
		name, text, path string
		off              int
		want             string // "" for not found
	}{
		{"basic", "[s]\nstart = \"KeyboardIdle > > 3\"\n", "s.start", 15, "f.toml:2:25"},
		{"escapes before", "[s]\n  rank = \"Owner == \\\"bob\\\" + * 2\"\n", "s.rank", 17, "f.toml:2:30"},
		{"unicode escape", "k = \"\\u00e9 x\"\n", "k", 3, "f.toml:1:13"},
		{"literal", "k = 'a\\b'\n", "k", 2, "f.toml:1:8"},
		{"end of input", "k = 'ab'\n", "k", 2, "f.toml:1:8"},
		{"multi-line", "k = '''\nKeyboardIdle < 60 &&\n  (LoadAvg > ))\n'''\n", "k", 33, "f.toml:3:13"},
		{"inline table", "t = { a = \"xy\" }\n", "t.a", 1, "f.toml:1:13"},
		{"past the end", "k = 'ab'\n", "k", 5, ""},
		{"not a string", "k = 12\n", "k", 1, ""},
		{"no such key", "k = 'ab'\n", "j", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := Scan("f.toml", tt.text).InString(tt.path, tt.off)
			got := ""
			if ok {
				got = p.String()
			}
			if got != tt.want {
				t.Errorf("InString(%s, %d) = %q, want %q", tt.path, tt.off, got, tt.want)
			}
		})
	}
}

func TestPath(t *testing.T) {
	for key, want := range map[string]string{
		`a.b`:                       "a.b",
		`startd.sita.hosts."a.b.c"`: "startd.sita.hosts.a.b.c",
		`x . 'y z'`:                 "x.y z",
		`"é\"q"`:                    `é"q`,
	} {
		if got := Path(key); got != want {
			t.Errorf("Path(%s) = %q, want %q", key, got, want)
		}
	}
}
