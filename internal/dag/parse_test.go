package dag

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// update rewrites the golden files: go test ./internal/dag -update.
var update = flag.Bool("update", os.Getenv("UPDATE") != "", "rewrite golden files")

// The golden tests read testdata/parse/*.txtar (each a DAG and the DAG
// Dump prints) and testdata/errors/*.txtar (each a bad DAG and its
// errors). The first section is the DAG file; other sections are files
// it INCLUDEs or SPLICEs; the last is want (or error). Each case's
// comment cites the manual section its DAG comes from.
func TestGolden(t *testing.T) { runGolden(t, "testdata/parse/*.txtar", "want") }

func TestGoldenErrors(t *testing.T) { runGolden(t, "testdata/errors/*.txtar", "error") }

func runGolden(t *testing.T, glob, section string) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files %s: %v", glob, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := parseCase(ar)
			checkGolden(t, file, ar, section, got)
		})
	}
}

// parseCase parses the archive's first file, the others readable by
// INCLUDE and SPLICE, and prints the DAG or the error.
func parseCase(ar *txtar.Archive) string {
	files := map[string][]byte{}
	for _, f := range ar.Files[1:] {
		files[f.Name] = f.Data
	}
	read := func(name string) ([]byte, error) {
		if b, ok := files[name]; ok {
			return b, nil
		}
		return nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
	}
	d, err := Parse(ar.Files[0].Name, ar.Files[0].Data, Options{Dir: ".", ReadFile: read})
	if err != nil {
		return err.Error() + "\n"
	}
	var b bytes.Buffer
	if err := Dump(&b, d); err != nil {
		return err.Error()
	}
	return b.String()
}

func checkGolden(t *testing.T, file string, ar *txtar.Archive, section, got string) {
	t.Helper()
	i := len(ar.Files) - 1
	if i < 1 || ar.Files[i].Name != section {
		if !*update {
			t.Fatalf("%s: the last section must be %q", file, section)
		}
		ar.Files = append(ar.Files, txtar.File{Name: section})
		i = len(ar.Files) - 1
	}
	if *update {
		ar.Files[i].Data = []byte(got)
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := string(ar.Files[i].Data); got != want {
		t.Errorf("%s: got\n%s\nwant\n%s", file, got, want)
	}
}

// TestParseErrorsArePositioned checks that every error names its file,
// line and column, and that a list of errors is capped.
func TestParseErrorsArePositioned(t *testing.T) {
	var src strings.Builder
	for i := range 30 {
		fmt.Fprintf(&src, "BOGUS%d x\n", i)
	}
	_, err := Parse("many.dag", []byte(src.String()), Options{})
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v, want an ErrorList", err)
	}
	if len(list) != maxErrors {
		t.Errorf("got %d errors, want %d", len(list), maxErrors)
	}
	if got := list[3].Error(); got != `many.dag:4:1: unknown command "BOGUS3"` {
		t.Errorf("got %q", got)
	}
}

// FuzzParse: no input makes Parse panic, and whatever parses prints and
// parses again to the same DAG (the printer is canonical).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err == nil {
			f.Add(ar.Files[0].Data)
		}
	}
	f.Add([]byte("JOB A {\nexecutable = x\n}\nPARENT A CHILD A\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := Parse("fuzz.dag", src, Options{})
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not a non-empty ErrorList", err)
			}
			for _, e := range list {
				if e.Pos.File != "fuzz.dag" || (e.Pos.Line < 1 && e.Msg != "the DAG has no nodes") {
					t.Fatalf("error %q has no position", e)
				}
			}
			return
		}
		var b bytes.Buffer
		if err := Dump(&b, d); err != nil {
			t.Fatal(err)
		}
		r := NewRun(d)
		for range len(d.Nodes) + 1 {
			for _, i := range r.Startable() {
				for step := r.Start(i); step != StepNone; {
					switch step {
					case StepPre:
						step = r.PreDone(i, 1)
					case StepSubmit:
						step = r.JobDone(i, 0)
					case StepPost:
						step = r.PostDone(i, 0)
					}
				}
			}
		}
		if !r.Finished() {
			t.Fatalf("a run of every node did not finish:\n%s", b.String())
		}
	})
}
