package submit

import (
	"errors"
	"strings"
	"testing"
)

// TestParseQuantity checks sizes with units, in MiB and KiB.
func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in   string
		base float64
		want int64
		ok   bool
	}{
		{"128", 1 << 20, 128, true},
		{"2 GB", 1 << 20, 2048, true},
		{"2g", 1 << 20, 2048, true},
		{"1.5G", 1 << 20, 1536, true},
		{"512K", 1 << 20, 1, true},
		{"512KB", 1 << 10, 512, true},
		{"1T", 1 << 20, 1 << 20, true},
		{"1TB", 1 << 10, 1 << 30, true},
		{"3M", 1 << 10, 3072, true},
		{"100B", 1 << 10, 1, true},
		{"0", 1 << 10, 0, true},
		{"2 GiB", 1 << 20, 0, false},
		{"MemoryUsage * 2", 1 << 20, 0, false},
		{"", 1 << 20, 0, false},
		{"1X", 1 << 20, 0, false},
	}
	for _, tt := range tests {
		got, ok := parseQuantity(tt.in, tt.base)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseQuantity(%q, %v) = %d, %v; want %d, %v", tt.in, tt.base, got, ok, tt.want, tt.ok)
		}
	}
}

// TestPaths checks how condor_submit makes paths absolute.
func TestPaths(t *testing.T) {
	tests := []struct{ name, dir, want string }{
		{"out", "/home/u", "/home/u/out"},
		{"a//b", "/home/u/", "/home/u/a/b"},
		{"/abs//x", "/home/u", "/abs/x"},
		{"../up", "/home/u", "/home/u/../up"},
	}
	for _, tt := range tests {
		if got := fullPath(tt.name, tt.dir); got != tt.want {
			t.Errorf("fullPath(%q, %q) = %q, want %q", tt.name, tt.dir, got, tt.want)
		}
	}
	if got := resolveIwd("", "/sub//dir"); got != "/sub/dir" {
		t.Errorf("resolveIwd = %q", got)
	}
}

// TestEnvFilter checks getenv match lists.
func TestEnvFilter(t *testing.T) {
	tests := []struct {
		list string
		in   string // names the filter accepts, of PATH HOME CUDA_HOME PYTHONPATH
	}{
		{"!PATH, !INCLUDE", "HOME CUDA_HOME PYTHONPATH"},
		{"*cuda*", "CUDA_HOME"},
		{"!path, P*, Q*", "PYTHONPATH"},
		{"home;path", "PATH HOME"},
		{"*", "PATH HOME CUDA_HOME PYTHONPATH"},
		{"*h*me", "HOME CUDA_HOME"},
	}
	for _, tt := range tests {
		f := newEnvFilter(tt.list)
		var got []string
		for _, n := range []string{"PATH", "HOME", "CUDA_HOME", "PYTHONPATH"} {
			if f(n) {
				got = append(got, n)
			}
		}
		if strings.Join(got, " ") != tt.in {
			t.Errorf("getenv = %s accepts %v, want %s", tt.list, got, tt.in)
		}
	}
}

// TestURL checks what counts as a URL in transfer lists.
func TestURL(t *testing.T) {
	for s, want := range map[string]bool{
		"http://x/y": true, "s3://b/k": true, "osdf+x://a": true, "file.txt": false,
		"://x": false, "a b://c": false, "dir/x://": false,
	} {
		if isURL(s) != want {
			t.Errorf("isURL(%q) = %v", s, !want)
		}
	}
}

// TestReaderSpans checks logical lines and the positions of their pieces.
func TestReaderSpans(t *testing.T) {
	src := "# comment\n\n  a = 1 \\\n# skipped\n\t  2\r\nb=3\\\n\nc = 4"
	r := reader{src: src}
	var got []string
	for {
		l, ok := r.next()
		if !ok {
			break
		}
		p := l.sp.at(len(l.text) - 1)
		got = append(got, l.text+"@"+itoa(p.Line)+":"+itoa(p.Col))
	}
	want := "a = 1 2@5:4|b=3@6:3|c = 4@8:5"
	if strings.Join(got, "|") != want {
		t.Errorf("lines = %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestErrorFormat checks how errors and warnings print.
func TestErrorFormat(t *testing.T) {
	e := &Error{File: "f.sub", Line: 3, Col: 7, Msg: "bad"}
	if e.Error() != "f.sub:3:7: bad" {
		t.Errorf("Error() = %q", e.Error())
	}
	list := ErrorList{e, {File: "f.sub", Line: 4, Msg: "worse"}}
	if list.Error() != "f.sub:3:7: bad\nf.sub:4: worse" {
		t.Errorf("ErrorList.Error() = %q", list.Error())
	}
	var target *Error
	if !errors.As(error(list), &target) || target != e {
		t.Errorf("errors.As does not find the first error")
	}
	if w := (Warning{File: "f.sub", Line: 2, Msg: "hm"}); w.String() != "f.sub:2: hm" {
		t.Errorf("Warning.String() = %q", w.String())
	}
}
