package submit

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// FuzzParse checks that no input makes Parse or Expand panic, that every
// error names the file and a line, and that the fast path of Expand gives
// the same ads as building every proc from scratch.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txtar")
	errFiles, _ := filepath.Glob("testdata/errors/*.txtar")
	for _, file := range append(files, errFiles...) {
		if ar, err := txtar.ParseFile(file); err == nil && len(ar.Files) > 0 {
			f.Add(ar.Files[0].Data)
		}
	}
	f.Add([]byte("executable=x\nqueue a,b from (\n1 2\n)\n"))
	f.Add([]byte("+A @=e\n1\n@e\nexecutable=$(A)\nqueue 2 in [1:] a b c"))
	f.Add([]byte("include : /bin/sh\nif defined A\nelif $(B)\nelse\nendif\nx=$INT(y,%d)$Fpnx(z)$CHOICE(1,a,b)\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4096 {
			return
		}
		d, _, err := Parse("fuzz.sub", src)
		if err != nil {
			checkPositioned(t, err)
			return
		}
		env := testEnv(&txtar.Archive{Files: []txtar.File{{Name: "fuzz.sub"}}})
		fast, err := expandLimited(d, env, false)
		if err != nil {
			checkPositioned(t, err)
			return
		}
		slow, err := expandLimited(d, env, true)
		if err != nil {
			t.Fatalf("slow path fails where the fast path does not: %v", err)
		}
		for i := range fast.Procs {
			if f, s := printAd(fast.Job(i)), printAd(slow.Job(i)); f != s {
				t.Fatalf("proc %d: fast path\n%s\nslow path\n%s", i, f, s)
			}
		}
	})
}

// expandLimited is Expand with at most 200 procs.
func expandLimited(d *Description, env Env, slow bool) (*Cluster, error) {
	x := newExpander(d, &env)
	x.slow, x.maxProcs = slow, 200
	if err := x.statements(); err != nil {
		return nil, err
	}
	return x.cluster(), nil
}

// checkPositioned checks that err is made of *Errors naming a line of the
// file (or of a file it includes).
func checkPositioned(t *testing.T, err error) {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) {
		list = ErrorList{}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) is not an *Error", err, err)
		}
		list = append(list, e)
	}
	for _, e := range list {
		if e.File == "" || e.Line < 1 {
			t.Fatalf("error without a position: %q", e.Error())
		}
	}
}
