package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The three-host test (testdata/script/ops_three_hosts.txtar) uses the
// install guide's configuration files word for word, and makes the tokens
// the guide makes: the guide is what is tested.
func TestInstallGuideIsTheThreeHostTest(t *testing.T) {
	guide, script := guideScript(t, "ops_three_hosts.txtar", map[string]string{"cm.example.org": "guide/cm.toml", "submit.example.org": "guide/submit.toml", "exec1.example.org": "guide/exec.toml"})
	tokens := regexp.MustCompile(`kite token create --identity (\S+) --levels (\S+)`)
	for _, m := range tokens.FindAllStringSubmatch(guide, -1) {
		if m[1] == "prometheus" {
			continue // docs/metrics.md's
		}
		if !strings.Contains(string(script.Comment), "token create --identity "+m[1]+" --levels "+m[2]+"\n") {
			t.Errorf("the test does not make the guide's token: %s", m[0])
		}
	}
	if !strings.Contains(guide, "kite init --dir /etc/kite --name lab --collector 192.0.2.10:9618 --admin root") ||
		!strings.Contains(string(script.Comment), "kite init --dir cm --name lab --collector 127.0.0.1:$PORT --admin root") {
		t.Errorf("the guide and the test create the pool differently")
	}
}

// guideScript reads docs/install.md and the testscript testdata/script/NAME,
// and checks that each of the script's files in files (by the guide's host)
// is the guide's configuration of that host word for word. It returns the
// guide and the script for the caller's further checks.
func guideScript(t *testing.T, name string, files map[string]string) (string, *txtar.Archive) {
	t.Helper()
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "install.md"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := txtar.ParseFile(filepath.Join("testdata", "script", name))
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]string{}
	for _, f := range script.Files {
		data[f.Name] = string(f.Data)
	}
	blocks := tomlBlocks(string(guide))
	for host, file := range files {
		block, ok := blocks[host]
		if !ok {
			t.Errorf("docs/install.md has no configuration for %s", host)
			continue
		}
		got, ok := data[file]
		if !ok {
			t.Errorf("the test has no %s", file)
			continue
		}
		if got != block {
			t.Errorf("%s in the test differs from the guide's configuration of %s:\n--- test\n%s--- guide\n%s", file, host, got, block)
		}
	}
	return string(guide), script
}

// tomlBlocks returns the guide's fenced TOML blocks that begin with
// "# HOST: /etc/kite/kite.toml", by host, each ending with a newline.
func tomlBlocks(md string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(md))
	var host string
	var b strings.Builder
	in := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && line == "```toml":
			in, host = true, ""
			b.Reset()
		case in && line == "```":
			in = false
			if host != "" {
				out[host] = b.String()
			}
		case in:
			if b.Len() == 0 {
				if h, ok := strings.CutSuffix(strings.TrimPrefix(line, "# "), ": /etc/kite/kite.toml"); ok {
					host = h
				}
			}
			b.WriteString(line + "\n")
		}
	}
	return out
}

// Each systemd unit runs a kite command line that kite accepts.
func TestSystemdUnitsRunKite(t *testing.T) {
	units, err := filepath.Glob(filepath.Join("..", "..", "packaging", "systemd", "*.service"))
	if err != nil || len(units) < 5 {
		t.Fatalf("units: %v %v", units, err)
	}
	for _, u := range units {
		data, err := os.ReadFile(u)
		if err != nil {
			t.Fatal(err)
		}
		kind := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(u), "kite-"), ".service")
		var exec []string
		for line := range strings.Lines(string(data)) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "ExecStart="); ok {
				exec = strings.Fields(v)
			}
		}
		if len(exec) < 2 || exec[0] != "/usr/local/bin/kite" || exec[1] != kind {
			t.Errorf("%s: ExecStart %q does not run kite %s", u, exec, kind)
			continue
		}
		root := New()
		cmd, rest, err := root.Find(exec[1:])
		if err != nil || cmd.Name() != kind {
			t.Errorf("%s: kite does not know %q: %v", u, exec[1:], err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil || len(cmd.Flags().Args()) != 0 {
			t.Errorf("%s: %q: %v (arguments %q)", u, exec, err, cmd.Flags().Args())
		}
		for _, want := range []string{"[Unit]", "[Service]", "[Install]", "WantedBy=multi-user.target", "Documentation=man:kite-" + kind + "(1)"} {
			if !strings.Contains(string(data), want) {
				t.Errorf("%s lacks %s", u, want)
			}
		}
		if kind == "master" || kind == "startd" {
			if !slices.Contains(strings.Split(string(data), "\n"), "Delegate=yes") {
				t.Errorf("%s: the startd needs Delegate=yes for job cgroups", u)
			}
		}
	}
}
