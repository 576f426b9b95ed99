package submit

import "testing"

// TestFileFunc checks $F() and its letters on the cases of the HTCondor
// manual ("Function Macros", submitting-a-job.rst) and the separators.
func TestFileFunc(t *testing.T) {
	tests := []struct{ fn, arg, want string }{
		{"Fn", "/tmp/simulate.exe", "simulate"},
		{"Fx", "/tmp/simulate.exe", ".exe"},
		{"Fxb", "/tmp/simulate.exe", "exe"},
		{"Fnx", "/tmp/simulate.exe", "simulate.exe"},
		{"Fp", "/tmp/simulate.exe", "/tmp/"},
		{"Fpb", "/tmp/simulate.exe", "/tmp"},
		{"Fpn", "/a/b.c", "/a/b"},
		{"Fd", "/a/b/c/f.txt", "c/"},
		{"Fdd", "/a/b/c/f.txt", "b/c/"},
		{"Fddddd", "/a/b/c/f.txt", "/a/b/c/"},
		{"Fdb", "/a/b/c/f.txt", "c"},
		{"Fdn", "/a/b/c/f.txt", "c/f"},
		{"Fdnx", "/a/b/c/f.txt", "c/f.txt"},
		{"Fd", "f.txt", ""},
		{"Fp", "f.txt", ""},
		{"Fn", "f.txt", "f"},
		{"Fx", ".bashrc", ""},
		{"Fn", ".bashrc", ".bashrc"},
		{"Fx", "a.b/c", ""},
		{"F", `"/q/x.y"`, "/q/x.y"},
		{"Fq", "/q/x.y", `"/q/x.y"`},
		{"Fqa", "/q/x.y", `'/q/x.y'`},
		{"Fqn", "/q/x.y", `"x"`},
		{"Ff", "in/x.dat", "/sub/in/x.dat"},
		{"Ffp", "in/x.dat", "/sub/in/"},
		{"Fw", "/a/b/c.d", `\a\b\c.d`},
		{"Fwp", "/a/b/c.d", `\a\b\`},
		{"Fu", `C:\a\b.d`, "C:/a/b.d"},
		{"Fun", `C:\a\b.d`, "b"},
		{"DIRNAME", "/a/b/c.d", "/a/b/"},
		{"BASENAME", "/a/b/c.tar.gz", "c.tar.gz"},
		{"BASENAME", "/a/b/c.tar.gz, .tar.gz", "c"},
		{"BASENAME", "/a/b/c.tar.gz, .zip", "c.tar.gz"},
	}
	sc := newScope(newMacros(), &Env{Dir: "/sub"}, "f.sub")
	for _, tt := range tests {
		x := expansion{sc: sc}
		got, err := fnFile(&x, tt.fn, tt.arg)
		if err != nil || got != tt.want {
			t.Errorf("$%s(%s) = %q, %v; want %q", tt.fn, tt.arg, got, err, tt.want)
		}
	}
}

// TestCFormat checks the translation of C formats to Go's.
func TestCFormat(t *testing.T) {
	tests := []struct{ in, convs, want string }{
		{"%d", "di", "%d"},
		{"%04d", "di", "%04d"},
		{"Area=%d", "di", "Area=%d"},
		{"%lld", "di", "%d"},
		{"%i", "di", "%d"},
		{"%5.2f", "fg", "%5.2f"},
		{"%g", "fg", "%.6g"},
		{"100%% %d", "d", "100%% %d"},
		{"%s", "d", ""},
		{"%d %d", "d", ""},
		{"none", "d", ""},
		{"%", "d", ""},
	}
	for _, tt := range tests {
		got, err := cFormat(tt.in, tt.convs)
		if (err != nil) != (tt.want == "") || got != tt.want {
			t.Errorf("cFormat(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
