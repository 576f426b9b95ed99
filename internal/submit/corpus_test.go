package submit

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestCorpus runs every submit file of the outside corpora in
// testdata/corpus (see its README.md: HTCondor's own test-suite and
// example files and the manual's examples; submit files written by
// workflow systems) through Parse and Expand as `kite submit --dry-run`
// does, and compares each outcome with testdata/corpus/NAME/golden.txt:
//
//	path: ok N jobs            it expands to N jobs
//	  warning text             each warning, indented
//	path: CATEGORY: error      it is refused, with this error
//	path: invalid (why): error condor_submit refuses it too, and why
//	# counts: ...               how many files had each outcome
//
// Every refusal must match one of corpusRefusals, each a feature Kite
// does not provide, named in its error, or an input condor_submit refuses
// too: an error that is none of these (a valid HTCondor file Kite cannot
// read) fails the test. go test -run TestCorpus -update rewrites the
// golden files; the counts per category are in docs/submit-corpus.md.
func TestCorpus(t *testing.T) {
	for _, name := range []string{"htcondor", "workflows"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "corpus", name)
			w := newCorpusWorld(t, dir)
			var b strings.Builder
			counts := map[string]int{}
			for _, rel := range w.submitFiles {
				outcome, cat := runCorpusFile(t, w, rel)
				counts[cat]++
				b.WriteString(outcome)
			}
			b.WriteString(countLine(len(w.submitFiles), counts))
			checkCorpusGolden(t, filepath.Join(dir, "golden.txt"), b.String())
			checkCorpusDoc(t, name, len(w.submitFiles), counts)
		})
	}
}

// countLine is the golden file's last line: the files and how many had
// each outcome.
func countLine(files int, counts map[string]int) string {
	cats := make([]string, 0, len(counts))
	for c := range counts {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	line := fmt.Sprintf("# counts: %d files", files)
	for _, c := range cats {
		line += fmt.Sprintf(", %s %d", c, counts[c])
	}
	return line + "\n"
}

// corpusDoc documents the corpora, with a table of the counts.
const corpusDoc = "../../docs/submit-corpus.md"

// checkCorpusDoc checks the corpus's row of the documentation's table.
func checkCorpusDoc(t *testing.T, name string, files int, counts map[string]int) {
	t.Helper()
	doc, err := os.ReadFile(corpusDoc)
	if err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf("| %s | %d | %d | %d | %d | %d | %d |", name, files, counts["ok"],
		counts["universe"], counts["container"], counts["unsupported"], counts["invalid"])
	if !strings.Contains(string(doc), row+"\n") {
		t.Errorf("%s: its counts table needs the row\n%s", corpusDoc, row)
	}
}

// refusedReasons is an alternation of the reasons of refusedCommands.
func refusedReasons() string {
	var rs []string
	for _, g := range refusedCommands {
		rs = append(rs, regexp.QuoteMeta(g.reason))
	}
	return strings.Join(rs, "|")
}

// corpusRefusal is a kind of error a corpus file may get: a feature Kite
// deliberately does not provide, named in the error.
type corpusRefusal struct {
	category string
	msg      *regexp.Regexp
}

// corpusRefusals are the refusals the corpora are allowed, matched
// against the error text after "file:line[:col]: ".
var corpusRefusals = []corpusRefusal{
	// Universes Kite does not run (HTCondor manual, "Choosing an
	// HTCondor Universe"): standard (gone from HTCondor since 9.0), vm,
	// grid, parallel.
	{"universe", regexp.MustCompile(`^universe \S+ is not supported: `)},
	// Container features Kite does not provide (manual, "Docker and
	// Container Universe Jobs"): images sent with the job or fetched by
	// http, published ports, docker credentials.
	{"container", regexp.MustCompile(`^container image .*: Kite |^(container_service_names|docker_send_credentials) is not supported: `)},
	// Commands that change when, whether or with what a job runs and that
	// Kite does not provide (credentials, deferral, cron, noop_job,
	// output_directory, retry_request_*): refused rather than run
	// otherwise (unsupported.go, refusedCommands).
	{"unsupported", regexp.MustCompile(`^\S+ is not supported: (` + refusedReasons() + `)$`)},
}

// corpusInvalid are the files condor_submit refuses too, each with why.
// Besides these, a manual example whose failing line holds a
// <placeholder> or "..." is invalid: it shows a syntax, not a file.
var corpusInvalid = map[string]string{
	"docs/admin-manual/configuration/schedd.L1358.sub":   "configuration language (use template : Slurm(...)), not a submit file",
	"docs/faq/admins/slot-attrs.L19.sub":                 `the expression ends in "...", elided`,
	"docs/faq/users/convert-multi-q-statements.L140.sub": `type = "soft" makes arguments = "$(capacity) $(type)" the unbalanced "100 "soft"", which condor_submit's argument parser refuses too`,
	"docs/man-pages/condor_run.L53.sub":                  "a shell template ($CONDOR_REQUIREMENTS), not a submit file",
	"docs/man-pages/condor_submit.L306.sub":              "an expression continued on the next line without a backslash",
	"docs/users-manual/submitting-a-job.L890.sub":        "an expression continued on the next line without a backslash",
	"docs/users-manual/submitting-a-job.L897.sub":        "an expression continued on the next line without a backslash",
	"docs/users-manual/submitting-a-job.L939.sub":        "an expression continued on the next line without a backslash",
	"docs/man-pages/htcondor-jdl.L1505.sub":              "$(MINUTE) is a configuration macro, undefined in a submit file: the expression ends (60 * )",
	"docs/users-manual/file-transfer.L92.sub":            "the manual's example of a combination condor_submit prohibits",
	"src/condor_tests/job_dagman_jobstate_log-nodeE.cmd": "written to make condor_submit fail: it has no executable",
	"src/condor_tests/job_filexfer_base-input4_van.cmd":  "condor_submit refuses transfer_input_files with should_transfer_files = NO",
	"src/condor_tests/job_core_killsignal_java.cmd":      "condor_submit refuses a java universe job with no class name in arguments",
}

// corpusFragments are files that are not whole submit files: the
// manual's examples, which show only the commands they are about, and a
// file DAGMan inserts into other submit files (-insert_sub_file). Each is
// run as condor_submit -dry-run - FILE executable=/bin/true would run it.
func corpusFragment(rel string) bool {
	return strings.HasPrefix(rel, "docs/") || rel == "src/condor_tests/job_dagman_set_attr.sub"
}

// corpusCommands are what the manual says its examples' commands print.
var corpusCommands = map[string]string{
	"seq 7 9":           "7\n8\n9\n",                                                            // submitting-a-job.rst, queue from seq 7 9 |
	"./list-infiles.sh": "transfer_input_files = infiles/A.dat, infiles/B.dat, infiles/C.dat\n", // submitting-a-job.rst, include : ./list-infiles.sh |
}

var placeholder = regexp.MustCompile(`<[A-Za-z][^<>]*>|\.\.\.`)

// invalidReason returns why condor_submit refuses a file too, "" if it
// would not.
func invalidReason(rel string, src []byte, err error) string {
	if why, ok := corpusInvalid[rel]; ok {
		return why
	}
	if !strings.HasPrefix(rel, "docs/") {
		return ""
	}
	var line int
	if _, rest, ok := strings.Cut(err.Error(), rel+":"); ok {
		fmt.Sscanf(rest, "%d", &line)
	}
	lines := strings.Split(string(src), "\n")
	if line >= 1 && line <= len(lines) && placeholder.MatchString(lines[line-1]) {
		return "a syntax with placeholders, not a file"
	}
	return ""
}

// runCorpusFile parses and expands one corpus file and returns its
// golden lines and category ("ok" or a refusal's).
func runCorpusFile(t *testing.T, w *corpusWorld, rel string) (string, string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	cl := CommandLine{}
	if corpusFragment(rel) {
		cl.Vars = []string{"executable = /bin/true"}
	}
	d, warns, err := ParseWith(rel, src, cl)
	var c *Cluster
	if err == nil {
		var xw []Warning
		c, xw, err = d.Expand(w.env(rel))
		warns = append(warns, xw...)
	}
	var line string
	cat := "ok"
	switch {
	case err != nil:
		line, cat = corpusError(t, rel, src, err)
	case corpusInvalid[rel] != "":
		t.Errorf("%s: listed in corpusInvalid (%s), but it expands", rel, corpusInvalid[rel])
		fallthrough
	default:
		line = fmt.Sprintf("%s: ok %d jobs\n", rel, len(c.Procs))
	}
	var b strings.Builder
	b.WriteString(line)
	for _, w := range warns {
		fmt.Fprintf(&b, "  %s\n", w.Msg)
	}
	return b.String(), cat
}

// corpusError returns the golden line of a file's error and its
// category; an error that is neither a refusal nor invalid input fails
// the test.
func corpusError(t *testing.T, rel string, src []byte, err error) (string, string) {
	t.Helper()
	msg := strings.ReplaceAll(err.Error(), "\n", "\n    ") // further errors, indented
	if cat := refusalCategory(msg); cat != "" {
		return fmt.Sprintf("%s: %s: %s\n", rel, cat, msg), cat
	}
	if why := invalidReason(rel, src, err); why != "" {
		return fmt.Sprintf("%s: invalid (%s): %s\n", rel, why, msg), "invalid"
	}
	t.Errorf("%s: not a documented refusal: %v", rel, err)
	return fmt.Sprintf("%s: unexpected: %s\n", rel, msg), "unexpected"
}

// refusalCategory returns the category of an error, "" if it is none.
func refusalCategory(msg string) string {
	_, text, _ := strings.Cut(msg, ": ")
	for _, r := range corpusRefusals {
		if r.msg.MatchString(text) {
			return r.category
		}
	}
	return ""
}

// checkCorpusGolden compares got with the golden file, or rewrites it.
func checkCorpusGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) == got {
		return
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			t.Fatalf("%s line %d:\ngot  %s\nwant %s\n(go test -run TestCorpus -update rewrites it)", file, i+1, g, w)
		}
	}
}

// corpusRoot is where the corpus's files seem to be: a file's submit
// directory is its directory under corpusRoot.
const corpusRoot = "/corpus"

// corpusWorld is the file system a corpus's files are submitted from:
// the corpus's own files, the source tree around them (tree.txt: the
// scripts and data files they name, for globs), and, because the
// harnesses that submitted them created what they needed first, any
// other file they name: a name with an extension is a 20 KiB file,
// one without a directory (initialdir).
type corpusWorld struct {
	root        string
	submitFiles []string
	entries     map[string]bool // path under corpusRoot: is a directory
}

var corpusExt = regexp.MustCompile(`\.(sub|submit|cmd|jdl)$`)

func newCorpusWorld(t *testing.T, root string) *corpusWorld {
	t.Helper()
	w := &corpusWorld{root: root, entries: map[string]bool{}}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if p == root {
			return nil
		}
		w.add(rel, e.IsDir())
		if !e.IsDir() && corpusExt.MatchString(rel) {
			w.submitFiles = append(w.submitFiles, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(w.submitFiles)
	if tree, err := os.ReadFile(filepath.Join(root, "tree.txt")); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(tree))
		for sc.Scan() {
			line := sc.Text()
			w.add(strings.TrimSuffix(line, "/"), strings.HasSuffix(line, "/"))
		}
	}
	return w
}

func (w *corpusWorld) add(rel string, dir bool) {
	name := path.Join(corpusRoot, rel)
	w.entries[name] = dir
	for p := path.Dir(name); p != "/" && !w.entries[p]; p = path.Dir(p) {
		w.entries[p] = true
	}
}

// env is the Env of one file: cluster 1 as --dry-run uses, its
// directory as the submit directory, a fixed environment and host.
func (w *corpusWorld) env(rel string) Env {
	return Env{
		Cluster: 1, Owner: "alice", Dir: path.Join(corpusRoot, path.Dir(rel)),
		// The submitter's environment; CTRL_BPS_HTCONDOR_DIR is set where
		// the Rubin back-end submits its files.
		Environ: []string{"HOME=/home/alice", "USER=alice", "PATH=/usr/bin:/bin", "LOGNAME=alice",
			"CTRL_BPS_HTCONDOR_DIR=/opt/lsst/ctrl_bps_htcondor"},
		Host: HostInfo{Arch: "X86_64", OpSys: "LINUX", OpSysAndVer: "AlmaLinux9",
			OpSysMajorVer: "9", OpSysVer: "905", FileSystemDomain: "example.org"},
		ReadFile: w.readFile, Glob: w.glob, Stat: w.stat,
		RunCommand: func(cmd string) ([]byte, error) {
			if out, ok := corpusCommands[cmd]; ok {
				return []byte(out), nil
			}
			return nil, fmt.Errorf("command %q: the corpus test runs no commands", cmd)
		},
		Random: func(n int) int { return n - 1 },
		Now:    func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
}

func (w *corpusWorld) readFile(name string) ([]byte, error) {
	name = path.Clean(name)
	if rel, ok := strings.CutPrefix(name, corpusRoot+"/"); ok {
		if data, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(rel))); err == nil {
			return data, nil
		}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (w *corpusWorld) stat(name string) (fs.FileInfo, error) {
	name = path.Clean(name)
	dir, ok := w.entries[name]
	if !ok {
		dir = path.Ext(name) == ""
	}
	size := 20 << 10
	if dir {
		size = 0
	}
	return fakeInfo{&fakeFile{name: path.Base(name), data: make([]byte, size), dir: dir}}, nil
}

func (w *corpusWorld) glob(pattern string) ([]string, error) { return globNames(w.entries, pattern) }
