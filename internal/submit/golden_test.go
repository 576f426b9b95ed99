package submit

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/rogpeppe/go-internal/txtar"
)

// update rewrites the golden files: go test ./internal/submit -update, or
// UPDATE=1 go test ./internal/submit.
var update = flag.Bool("update", os.Getenv("UPDATE") != "", "rewrite golden files")

// The golden tests read testdata/*.txtar (each a submit file and the ads
// it gives) and testdata/errors/*.txtar (each a bad submit file and its
// error). Sections:
//
//	-- job.sub --          the submit file (its name is the first section's)
//	-- environ --          the submitter's environment, NAME=value lines
//	-- file:rel/path --    a file in the submit directory
//	-- dir:rel/path --     an empty directory in the submit directory
//	-- cmd:command --      what `queue from command |` prints
//	-- want --             warnings, the cluster ad and each proc's own ad
//	-- error --            the error Parse or Expand returns
//
// The ads are printed in the old syntax with attributes sorted by name.
func TestGolden(t *testing.T) {
	runGolden(t, "testdata/*.txtar", "want")
}

func TestGoldenErrors(t *testing.T) {
	runGolden(t, "testdata/errors/*.txtar", "error")
}

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
			got := runCase(t, ar)
			checkGolden(t, file, ar, section, got)
		})
	}
}

// runCase parses and expands the case's submit file and prints the result.
func runCase(t *testing.T, ar *txtar.Archive) string {
	t.Helper()
	sub := ar.Files[0]
	d, warns, err := Parse(sub.Name, sub.Data)
	if err != nil {
		return err.Error() + "\n"
	}
	env := testEnv(ar)
	c, xwarns, err := d.Expand(env)
	if err != nil {
		return err.Error() + "\n"
	}
	checkSlowPath(t, d, env, c)
	return printResult(append(warns, xwarns...), c)
}

// checkSlowPath checks that the fast path (static attributes computed
// once per queue statement) gives the same ads as building every proc
// from scratch.
func checkSlowPath(t *testing.T, d *Description, env Env, fast *Cluster) {
	t.Helper()
	slow, _, err := d.expand(env, true)
	if err != nil {
		t.Fatalf("slow path: %v", err)
	}
	if len(slow.Procs) != len(fast.Procs) {
		t.Fatalf("slow path: %d procs, fast path %d", len(slow.Procs), len(fast.Procs))
	}
	for i := range fast.Procs {
		if f, s := printAd(fast.Job(i)), printAd(slow.Job(i)); f != s {
			t.Errorf("proc %d: fast path\n%s\nslow path\n%s", i, f, s)
		}
	}
}

// printResult prints warnings, the cluster ad and the procs' own ads.
func printResult(warns []Warning, c *Cluster) string {
	var b strings.Builder
	if len(warns) > 0 {
		b.WriteString("# warnings\n")
		for _, w := range warns {
			b.WriteString(w.String() + "\n")
		}
	}
	b.WriteString("# cluster\n" + printAd(c.Ad))
	for i, p := range c.Procs {
		b.WriteString("# proc " + itoa(i) + "\n" + printAd(p))
	}
	return b.String()
}

func itoa(i int) string { return strings.TrimSpace(string(ast.AppendLiteral(nil, ast.Int(int64(i))))) }

// printAd prints an ad in the old syntax, attributes sorted by name.
func printAd(ad *classad.Ad) string {
	type kv struct {
		name string
		e    ast.Expr
	}
	var attrs []kv
	for n, e := range ad.All() {
		attrs = append(attrs, kv{n, e})
	}
	sort.Slice(attrs, func(i, j int) bool { return strings.ToLower(attrs[i].name) < strings.ToLower(attrs[j].name) })
	var buf []byte
	for _, a := range attrs {
		buf = ast.AppendOldAttr(buf, a.name, a.e)
		buf = append(buf, '\n')
	}
	return string(buf)
}

// checkGolden compares got with the archive's section, or rewrites it.
func checkGolden(t *testing.T, file string, ar *txtar.Archive, section, got string) {
	t.Helper()
	i := sectionIndex(ar, section)
	if *update {
		if i < 0 {
			ar.Files = append(ar.Files, txtar.File{Name: section})
			i = len(ar.Files) - 1
		}
		ar.Files[i].Data = []byte(got)
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if i < 0 {
		t.Fatalf("no -- %s -- section; run with UPDATE=1. Got:\n%s", section, got)
	}
	if want := string(ar.Files[i].Data); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func sectionIndex(ar *txtar.Archive, name string) int {
	for i, f := range ar.Files {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// testDir is the submit directory of the golden tests.
const testDir = "/home/alice/sub"

// testEnv builds the Env of a golden case: cluster 42, owner alice, a
// fake file system holding the case's files (and any file under /bin or
// /usr/bin, 20 KiB each), the case's environment and commands.
func testEnv(ar *txtar.Archive) Env {
	if ar == nil {
		ar = &txtar.Archive{Files: []txtar.File{{}}}
	}
	fsys := newFakeFS()
	env := Env{
		Cluster: 42, Owner: "alice", Dir: testDir,
		Host: HostInfo{Arch: "X86_64", OpSys: "LINUX", OpSysAndVer: "AlmaLinux9",
			OpSysMajorVer: "9", OpSysVer: "905", FileSystemDomain: "example.org"},
		ReadFile: fsys.readFile, Glob: fsys.glob, Stat: fsys.stat,
		// The last choice, always: random functions give the same ads
		// on the fast and the slow path.
		Random: func(n int) int { return n - 1 },
		Now:    func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
	cmds := map[string][]byte{}
	for _, f := range ar.Files[1:] {
		switch kind, name, _ := strings.Cut(f.Name, ":"); kind {
		case "environ":
			env.Environ = strings.Fields(string(f.Data))
		case "file":
			fsys.add(fullPath(name, testDir), f.Data, false)
		case "dir":
			fsys.add(fullPath(name, testDir), nil, true)
		case "cmd":
			cmds[name] = f.Data
		}
	}
	env.RunCommand = func(cmd string) ([]byte, error) {
		if out, ok := cmds[cmd]; ok {
			return out, nil
		}
		return nil, errors.New("command not found")
	}
	return env
}

// fakeFS is an in-memory file system for the golden tests.
type fakeFS struct{ entries map[string]*fakeFile }

type fakeFile struct {
	name string
	data []byte
	dir  bool
}

func newFakeFS() *fakeFS {
	f := &fakeFS{entries: map[string]*fakeFile{}}
	f.add(testDir, nil, true)
	return f
}

// add adds a file or directory and its parent directories.
func (f *fakeFS) add(name string, data []byte, dir bool) {
	f.entries[name] = &fakeFile{name: path.Base(name), data: data, dir: dir}
	for p := path.Dir(name); p != "/" && f.entries[p] == nil; p = path.Dir(p) {
		f.entries[p] = &fakeFile{name: path.Base(p), dir: true}
	}
}

func (f *fakeFS) lookup(name string) (*fakeFile, bool) {
	name = path.Clean(name)
	if e, ok := f.entries[name]; ok {
		return e, true
	}
	if name == "/" || strings.HasPrefix(name, "/bin/") || strings.HasPrefix(name, "/usr/bin/") {
		return &fakeFile{name: path.Base(name), data: make([]byte, 20<<10), dir: name == "/"}, true
	}
	return nil, false
}

func (f *fakeFS) readFile(name string) ([]byte, error) {
	e, ok := f.lookup(name)
	if !ok || e.dir {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return e.data, nil
}

func (f *fakeFS) stat(name string) (fs.FileInfo, error) {
	e, ok := f.lookup(name)
	if !ok {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return fakeInfo{e}, nil
}

func (f *fakeFS) glob(pattern string) ([]string, error) { return globNames(f.entries, pattern) }

// globNames returns the names in entries that match pattern (path.Match),
// sorted, as filepath.Glob returns the files that match.
func globNames[V any](entries map[string]V, pattern string) ([]string, error) {
	var out []string
	for name := range entries {
		ok, err := path.Match(pattern, name)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

type fakeInfo struct{ f *fakeFile }

func (i fakeInfo) Name() string { return i.f.name }
func (i fakeInfo) Size() int64  { return int64(len(i.f.data)) }
func (i fakeInfo) Mode() fs.FileMode {
	return map[bool]fs.FileMode{true: fs.ModeDir | 0o755, false: 0o644}[i.f.dir]
}
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return i.f.dir }
func (i fakeInfo) Sys() any           { return nil }

// oneAttr returns an ad with a single attribute, for printing.
func oneAttr(name string, e ast.Expr) *classad.Ad {
	ad := classad.NewAd()
	ad.Set(name, e)
	return ad
}
