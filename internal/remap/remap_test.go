package remap

import (
	"reflect"
	"strings"
	"testing"
)

// The forms of HTCondor's manual (condor_submit, transfer_output_remaps:
// "name = newname ; name2 = newname2", '\=' and '\;' escapes) and of its
// unit tests (FTEST_remaps: empty entries between ';').
func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want List
	}{
		{"", nil},
		{"  ;  ; ", nil},
		{"out.dat = results/out.dat", List{{"out.dat", "results/out.dat"}}},
		{"a=b;c = /abs/d ;", List{{"a", "b"}, {"c", "/abs/d"}}},
		{"src_file1=dst_file1;;out=_condor_stdout;err=_condor_stderr",
			List{{"src_file1", "dst_file1"}, {"out", "_condor_stdout"}, {"err", "_condor_stderr"}}},
		{`a\=b = c\;d; e = f=g`, List{{"a=b", "c;d"}, {"e", "f=g"}}},
		{"my file = my other file", List{{"my file", "my other file"}}},
		{"sub/o3 = ../up/o3", List{{"sub/o3", "../up/o3"}}},
		// A URL target goes through a plugin (manual: "File Transfer Using
		// a URL").
		{"a = s3://bucket/a; b = https://h/up/b", List{{"a", "s3://bucket/a"}, {"b", "https://h/up/b"}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// Each mistake is refused at the byte where it starts.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		msg    string
	}{
		{"a = b; oops", 7, `"oops" has no '='`},
		{" = b", 1, "no name"},
		{"a = ", 3, "no target"},
		{"a = b; a = c", 7, "remapped twice"},
		{"dir/ = x", 0, "only files"},
		{"a = results/", 4, "is a directory"},
		{"a = ..", 4, "is a directory"},
		{"../a = x", 0, `".."`},
		{"file://x = y", 0, "is a URL"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		se, ok := err.(*SyntaxError)
		if !ok || se.Offset != tt.offset || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("Parse(%q) = %v; want %q at %d", tt.in, err, tt.msg, tt.offset)
		}
	}
}

// Targets remapped in turn are followed, as HTCondor's filename_remap_find
// does; a cycle is an error, not a loop.
func TestFind(t *testing.T) {
	l, err := Parse("a = b; b = /abs/c; x = y; y = x")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, want string
		ok         bool
		err        string
	}{
		{"a", "/abs/c", true, ""},
		{"b", "/abs/c", true, ""},
		{"other", "other", false, ""},
		{"x", "", false, "cycle"},
	}
	for _, tt := range tests {
		got, ok, err := l.Find(tt.name)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Find(%q) = %q, %v; want error %q", tt.name, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want || ok != tt.ok {
			t.Errorf("Find(%q) = %q, %v, %v; want %q, %v", tt.name, got, ok, err, tt.want, tt.ok)
		}
	}
}

// A file is remapped by the first of its names that has a rule.
func TestFindFirst(t *testing.T) {
	l, err := Parse("o3 = x; d1/o4 = y")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		names []string
		want  string
		ok    bool
	}{
		{[]string{"o3", "d1/o3"}, "x", true},
		{[]string{"o4", "d1/o4"}, "y", true},
		{[]string{"o5", "d1/o5"}, "o5", false},
	} {
		got, ok, err := l.FindFirst(tt.names...)
		if err != nil || got != tt.want || ok != tt.ok {
			t.Errorf("FindFirst(%q) = %q, %v, %v; want %q, %v", tt.names, got, ok, err, tt.want, tt.ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`a\=b = c\;d; e = f=g`)
	f.Add("a=b;;c=d;")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			if se, ok := err.(*SyntaxError); !ok || se.Offset < 0 || se.Offset > len(s) {
				t.Fatalf("Parse(%q): %v", s, err)
			}
			return
		}
		for _, r := range l {
			if r.Name == "" || r.Target == "" {
				t.Fatalf("Parse(%q) gave an empty side: %q", s, l)
			}
			if _, _, err := l.Find(r.Name); err != nil && !strings.Contains(err.Error(), "cycle") {
				t.Fatal(err)
			}
		}
	})
}
