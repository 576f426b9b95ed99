package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The pages a reader follows: every command they show in a ```sh block is
// run by TestDocPages, in order, as root and as an unprivileged user.
var docPageGlobs = []string{"README.md", "docs/*.md", "examples/*/README.md", "packaging/README.md"}

// docUser is the unprivileged account TestDocPages runs the pages as when
// the test runs as root (CI creates it: .ci/run).
const docUser = "kitedoc"

// docPageTimeout bounds one page's blocks.
const docPageTimeout = 4 * time.Minute

// A docBlock is a fenced block of commands of a page.
type docBlock struct {
	page   string // relative to the repository
	line   int    // of the opening fence
	text   string // the commands
	output string // the ```text block right after it: what the page says it prints
	skip   string // why the page says the docs test does not run it
}

// docSkipRE is the visible line a page writes right before a ```sh block
// the docs test does not run, with the reason: an emphasised sentence,
// "_Not run by the docs test: REASON._".
var docSkipRE = regexp.MustCompile(`^[_*]Not run by the docs test: (.+?)\.?[_*]$`)

// docCommandRE recognises a line a reader would type at a shell prompt;
// such lines must be in a ```sh block, where the docs test sees them.
var docCommandRE = regexp.MustCompile(`^(\$ |kite |\./|\.\./|go |export |cd |sudo |scripts/)`)

// docShellLangs are the info strings of blocks of commands.
var docShellLangs = []string{"sh", "shell", "bash"}

// parseDocPage returns a page's ```sh blocks with their stated outputs
// and skip reasons, and the problems that keep the docs test from seeing
// a page's commands: a fenced block without a language (or a console
// session, commands and output mixed), a command opening an indented
// block, a skip line before no ```sh block.
func parseDocPage(page, md string) ([]docBlock, []error) {
	var (
		blocks   []docBlock
		errs     []error
		lines    = strings.Split(md, "\n")
		prev     string // the last non-blank line outside blocks
		prevLine int
		afterSh  = -1 // index in blocks of the ```sh block that just closed, while only blank lines follow
	)
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if fence, ok := strings.CutPrefix(line, "```"); ok {
			lang := strings.TrimSpace(fence)
			start := i
			var body []string
			for i++; i < len(lines) && strings.TrimRight(lines[i], " ") != "```"; i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				errs = append(errs, fmt.Errorf("%s:%d: the code block is not closed", page, start+1))
				break
			}
			text := strings.Join(body, "\n") + "\n"
			reason := ""
			if m := docSkipRE.FindStringSubmatch(prev); m != nil {
				reason = m[1]
			}
			switch {
			case lang == "" || lang == "console":
				errs = append(errs, fmt.Errorf("%s:%d: a code block without a language, or a console session: ```sh for commands (the docs test runs them), ```text for output, or its format (toml, yaml, ...)", page, start+1))
			case slices.Contains(docShellLangs, lang):
				blocks = append(blocks, docBlock{page: page, line: start + 1, text: text, skip: reason})
			case lang == "text" && afterSh >= 0:
				blocks[afterSh].output = text
			}
			if reason != "" && !slices.Contains(docShellLangs, lang) {
				errs = append(errs, fmt.Errorf("%s:%d: %q is not before a ```sh block", page, prevLine, prev))
			}
			afterSh = -1
			if slices.Contains(docShellLangs, lang) {
				afterSh = len(blocks) - 1
			}
			prev, prevLine = "", 0
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		afterSh = -1
		if code, ok := strings.CutPrefix(line, "    "); ok && i > 0 && strings.TrimSpace(lines[i-1]) == "" && !strings.HasPrefix(strings.TrimSpace(prev), "-") {
			if docCommandRE.MatchString(code) {
				errs = append(errs, fmt.Errorf("%s:%d: a command in an indented block: put it in a ```sh block (the docs test runs it)", page, i+1))
			}
		}
		if docSkipRE.MatchString(prev) {
			errs = append(errs, fmt.Errorf("%s:%d: %q is not right before a ```sh block", page, prevLine, prev))
		}
		prev, prevLine = line, i+1
	}
	return blocks, errs
}

// docPages returns the pages of docPageGlobs, relative to the repository.
func docPages(t *testing.T, repo string) []string {
	var pages []string
	for _, g := range docPageGlobs {
		m, err := filepath.Glob(filepath.Join(repo, g))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			rel, _ := filepath.Rel(repo, p)
			pages = append(pages, rel)
		}
	}
	if len(pages) == 0 {
		t.Fatalf("no pages in %s", repo)
	}
	return pages
}

// squeeze trims a line and collapses its runs of blanks, as a reader
// comparing columns would.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// outputMatches reports whether the output a page states is in what the
// commands printed, loosely: every non-blank stated line, its blanks
// collapsed and "..." standing for any text, matches a printed line, in
// order. It returns the first stated line that matches none.
func outputMatches(stated, got string) (string, bool) {
	var gotLines []string
	for l := range strings.Lines(got) {
		gotLines = append(gotLines, squeeze(l))
	}
	next := 0
	for l := range strings.Lines(stated) {
		want := squeeze(l)
		if want == "" || want == "..." {
			continue
		}
		parts := strings.Split(want, "...")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re := regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
		found := false
		for next < len(gotLines) {
			next++
			if re.MatchString(gotLines[next-1]) {
				found = true
				break
			}
		}
		if !found {
			return want, false
		}
	}
	return "", true
}

// A docRunner runs pages' blocks as one reader: one home, one account.
type docRunner struct {
	repo, base string              // the repository; the reader's directory
	cred       *syscall.Credential // nil: as this process
	owner      *user.User          // whose files base holds; nil: this process's
	kite       string              // the kite binary placed in every page's directory
}

// TestDocPages runs every ```sh block of the pages of docPageGlobs in a
// fresh directory against a real pool, as root (when the test runs as
// root) and as an unprivileged user (kitedoc when the test runs as root,
// else the user running it), and checks the output the pages state.
func TestDocPages(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the pages' pools and simulations take minutes")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	blocks := map[string][]docBlock{}
	for _, p := range docPages(t, repo) {
		md, err := os.ReadFile(filepath.Join(repo, p))
		if err != nil {
			t.Fatal(err)
		}
		b, errs := parseDocPage(p, string(md))
		for _, err := range errs {
			t.Error(err)
		}
		pages, blocks[p] = append(pages, p), b
	}
	// README.md first: it starts the personal pool the other pages use.
	slices.SortStableFunc(pages, func(a, b string) int {
		return boolInt(b == "README.md") - boolInt(a == "README.md")
	})
	for _, p := range pages {
		for _, b := range blocks[p] {
			if b.skip != "" {
				t.Logf("%s:%d: not run: %s", b.page, b.line, b.skip)
			}
		}
	}
	t.Run("root", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("the pages as root need the test to run as root (CI does)")
		}
		newDocRunner(t, repo, nil).run(t, pages, blocks)
	})
	t.Run("user", func(t *testing.T) {
		if os.Geteuid() != 0 {
			newDocRunner(t, repo, nil).run(t, pages, blocks)
			return
		}
		u, err := user.Lookup(docUser)
		if err != nil {
			t.Skipf("the pages as an unprivileged user need the account %s (useradd -m %s; .ci/run creates it): %v", docUser, docUser, err)
		}
		newDocRunner(t, repo, u).run(t, pages, blocks)
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// newDocRunner makes a reader's directory: a home, and a copy of the
// kite binary this test was built with (it is the kite of this
// checkout). With u, the directory is u's and commands run as u.
func newDocRunner(t *testing.T, repo string, u *user.User) *docRunner {
	base, err := os.MkdirTemp("", "kite-docs-")
	if err != nil {
		t.Fatal(err)
	}
	r := &docRunner{repo: repo, base: base, owner: u, kite: filepath.Join(base, "bin", "kite")}
	t.Cleanup(func() {
		r.stopPools()
		os.RemoveAll(base)
	})
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := copyFile(self, r.kite, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(base, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	if u != nil {
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		r.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{uint32(gid)}}
		if err := chownTree(base, r.cred.Uid, r.cred.Gid); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// run runs the pages in order, each in a fresh copy of the checkout's
// pages and examples, in one shell session per page.
func (r *docRunner) run(t *testing.T, pages []string, blocks map[string][]docBlock) {
	for _, p := range pages {
		var run []docBlock
		for _, b := range blocks[p] {
			if b.skip == "" {
				run = append(run, b)
			}
		}
		if len(run) == 0 {
			continue
		}
		if !t.Run(strings.ReplaceAll(p, "/", "_"), func(t *testing.T) { r.runPage(t, p, run) }) && p == "README.md" {
			t.Fatalf("README.md failed: the pages after it need its pool")
		}
	}
}

// docMark separates the blocks' output in a page's session.
const docMark = "@@kite-docs-block"

// runPage runs a page's blocks in a new copy of the checkout (without its
// Go sources: the kite binary built from them is at its root, as
// README.md builds it, and on PATH): in the checkout's root, as a reader
// of README.md and docs/ would, or in an example's own directory.
func (r *docRunner) runPage(t *testing.T, page string, run []docBlock) {
	work := filepath.Join(r.base, "pages", strings.TrimSuffix(strings.ReplaceAll(page, "/", "_"), ".md"))
	if err := copyCheckout(r.repo, work); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(r.kite, filepath.Join(work, "kite")); err != nil {
		t.Fatal(err)
	}
	if r.owner != nil {
		if err := chownTree(work, r.cred.Uid, r.cred.Gid); err != nil {
			t.Fatal(err)
		}
	}
	var script strings.Builder
	for i, b := range run {
		fmt.Fprintf(&script, "echo '%s %d'\n%s", docMark, i, b.text)
		fmt.Fprintf(&script, "status=$?; [ $status = 0 ] || { echo '%s failed' $status; exit $status; }\n", docMark)
	}
	ctx, cancel := context.WithTimeout(context.Background(), docPageTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-e", "-c", script.String())
	cmd.Dir = work
	if strings.HasPrefix(page, "examples/") {
		cmd.Dir = filepath.Join(work, filepath.Dir(page)) // an example's page speaks of its files
	}
	cmd.Env = r.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: r.cred}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &out, nil
	err := cmd.Run()
	outs := splitBlocks(out.String(), len(run))
	for i, b := range run {
		if outs[i] == nil {
			break
		}
		if b.output != "" {
			if line, ok := outputMatches(b.output, *outs[i]); !ok {
				t.Errorf("%s:%d: the page says it prints\n  %s\nbut it printed:\n%s", b.page, b.line, line, indent(*outs[i]))
			}
		}
	}
	if err != nil {
		last := 0
		for i := range run {
			if outs[i] != nil {
				last = i
			}
		}
		b := run[last]
		why := err.Error()
		if ctx.Err() != nil {
			why = fmt.Sprintf("not done after %v", docPageTimeout)
		}
		t.Errorf("%s:%d: the block failed (%s):\n%s\nit printed:\n%s", b.page, b.line, why, indent(b.text), indent(deref(outs[last])))
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// splitBlocks cuts a session's output at the marks before each block:
// the nth is nil when block n did not start.
func splitBlocks(out string, n int) []*string {
	outs := make([]*string, n)
	cur := -1
	var b strings.Builder
	flush := func() {
		if cur >= 0 && cur < n {
			s := b.String()
			outs[cur] = &s
		}
		b.Reset()
	}
	for l := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(strings.TrimRight(l, "\n"), docMark+" "); ok {
			if i, err := strconv.Atoi(rest); err == nil {
				flush()
				cur = i
				continue
			}
			continue // "failed STATUS"
		}
		b.WriteString(l)
	}
	flush()
	return outs
}

func indent(s string) string {
	var b strings.Builder
	for l := range strings.Lines(s) {
		b.WriteString("    " + l)
	}
	return b.String()
}

// env is the environment of a reader's shell: a new login's, with kite
// and the go command on PATH.
func (r *docRunner) env() []string {
	path := filepath.Dir(r.kite)
	if goBin, err := exec.LookPath("go"); err == nil {
		path += ":" + filepath.Dir(goBin)
	}
	path += ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	name := "root"
	if r.owner != nil {
		name = r.owner.Username
	} else if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return []string{"HOME=" + filepath.Join(r.base, "home"), "PATH=" + path, "USER=" + name, "LOGNAME=" + name,
		"LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1"}
}

// stopPools stops every personal pool the pages left running (a pool
// is a kite.toml under the reader's directory, running while its master
// pid file names a master) and removes the execute directory kite up
// gives it outside when root runs it.
func (r *docRunner) stopPools() {
	filepath.WalkDir(r.base, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "kite.toml" {
			stopLeftPool(filepath.Dir(p))
			if r.cred == nil && os.Geteuid() == 0 {
				os.RemoveAll(personalExecutePath(filepath.Dir(p)))
			}
		}
		return nil
	})
}

// copyCheckout copies what a reader of the pages has besides the kite
// binary: the checkout without its Go sources, tests and version control.
func copyCheckout(repo, dst string) error {
	return filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".test") || rel == "kite" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return copyFile(p, filepath.Join(dst, rel), info.Mode().Perm())
	})
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func chownTree(dir string, uid, gid uint32) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(uid), int(gid))
	})
}

// The page parser finds the blocks a reader types, their stated output
// and skip reasons, and refuses what would hide commands from the test.
func TestParseDocPage(t *testing.T) {
	tests := []struct {
		name, md string
		want     []docBlock
		errs     []string
	}{
		{"a block and its output",
			"Run:\n\n```sh\nkite q\n```\n\n```text\nTotal 0\n```\n",
			[]docBlock{{page: "p.md", line: 3, text: "kite q\n", output: "Total 0\n"}}, nil},
		{"output after prose is an illustration",
			"```sh\nkite q\n```\n\nprints\n\n```text\nTotal 0\n```\n",
			[]docBlock{{page: "p.md", line: 1, text: "kite q\n"}}, nil},
		{"a skipped block",
			"_Not run by the docs test: needs systemd._\n\n```sh\nsystemctl start kite\n```\n",
			[]docBlock{{page: "p.md", line: 3, text: "systemctl start kite\n", skip: "needs systemd"}}, nil},
		{"a skip line before prose",
			"*Not run by the docs test: needs systemd.*\n\nthen\n\n```sh\nkite q\n```\n",
			[]docBlock{{page: "p.md", line: 5, text: "kite q\n"}}, []string{`p.md:1: "*Not run by the docs test: needs systemd.*" is not right before a ` + "```sh block"}},
		{"a block without a language",
			"```\nkite q\n```\n", nil, []string{"p.md:1: a code block without a language"}},
		{"a console session",
			"```console\n$ kite q\n```\n", nil, []string{"p.md:1: a code block without a language, or a console session"}},
		{"a command in an indented block",
			"Run\n\n    kite q\n", nil, []string{"p.md:3: a command in an indented block"}},
		{"an indented formula is fine",
			"The boundaries\n\n    x_i = k (p/k)^(i/n)\n", nil, nil},
		{"toml is not run",
			"```toml\n[pool]\n```\n", nil, nil},
		{"an unclosed block",
			"```sh\nkite q\n", nil, []string{"p.md:1: the code block is not closed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := parseDocPage("p.md", tt.md)
			if !slices.Equal(got, tt.want) {
				t.Errorf("blocks %+v, want %+v", got, tt.want)
			}
			if len(errs) != len(tt.errs) {
				t.Fatalf("errors %v, want %q", errs, tt.errs)
			}
			for i, err := range errs {
				if !strings.HasPrefix(err.Error(), tt.errs[i]) {
					t.Errorf("error %q, want it to begin %q", err, tt.errs[i])
				}
			}
		})
	}
}

// Stated output matches loosely: blanks collapsed, "..." for any text,
// lines in order; a changed message does not match.
func TestOutputMatches(t *testing.T) {
	got := "Personal pool ready in /tmp/x/.kite: 1 slot(s), collector at 127.0.0.1:9618.\n       1  320 9.000e+06 ████\nTotal   3\n"
	tests := []struct {
		stated string
		ok     bool
	}{
		{"Personal pool ready in .../.kite: 1 slot(s), collector at 127.0.0.1:9618.\n", true},
		{"1 320 9.000e+06 ...\n\nTotal 3\n", true},
		{"...\nTotal 3\n", true},
		{"Total 3\n1 320 9.000e+06 ...\n", false}, // out of order
		{"Personal pool started in .../.kite\n", false},
		{"Total 3 jobs\n", false},
	}
	for _, tt := range tests {
		if _, ok := outputMatches(tt.stated, got); ok != tt.ok {
			t.Errorf("outputMatches(%q) = %v, want %v", tt.stated, ok, tt.ok)
		}
	}
}
