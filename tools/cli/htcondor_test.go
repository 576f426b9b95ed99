package cli

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// HTCondor's command lines become kite's: single-dash long options as
// condor_q(1), condor_status(1), condor_history(1) and condor_rm(1) of
// HTCondor 25 spell them, -autoformat for -af, unique prefixes (-const),
// -pool as --set pool.collector; values of flags are left alone; options
// Kite cannot honour are refused by name.
func TestHTCondorArgs(t *testing.T) {
	for _, tc := range []struct {
		prog string
		args []string
		want []string
		err  string // in the error, if any
	}{
		{"condor_q", []string{"-af", "ClusterId"}, []string{"q", "--af", "ClusterId"}, ""},
		{"condor_q", []string{"-af:jh", "ClusterId"}, []string{"q", "--af=jh", "ClusterId"}, ""},
		{"condor_q", []string{"-autoformat:h", "Owner"}, []string{"q", "--af=h", "Owner"}, ""},
		{"condor_q", []string{"-constraint", "-x > 1", "-long"}, []string{"q", "--constraint", "-x > 1", "--long"}, ""},
		{"condor_q", []string{"-const", "true", "-nob", "-tot"}, []string{"q", "--constraint", "true", "--nobatch", "--totals"}, ""},
		{"condor_q", []string{"-l", "12.0"}, []string{"q", "-l", "12.0"}, ""},
		{"condor_q", []string{"-pool", "cm.example.org", "-json"}, []string{"q", "--set", "pool.collector=cm.example.org:9618", "--json"}, ""},
		{"condor_q", []string{"-pool", "cm:9700"}, []string{"q", "--set", "pool.collector=cm:9700"}, ""},
		{"condor_q", []string{"-name", "-odd-"}, []string{"q", "--name", "-odd-"}, ""},
		{"condor_q", []string{"-version"}, []string{"version"}, ""},
		{"condor_q", []string{"-help"}, []string{"q", "--help"}, ""},
		{"condor_q", []string{"-dag"}, []string{"q", "--dag"}, ""},
		{"condor_q", []string{"-grid"}, nil, "option -grid is not supported: Kite has no grid universe"},
		{"condor_submit_dag", []string{"-maxjobs", "3", "-DoRescueFrom", "2", "x.dag"}, []string{"submit_dag", "--maxjobs", "3", "--dorescuefrom", "2", "x.dag"}, ""},
		{"condor_submit_dag", []string{"-update_submit", "x.dag"}, nil, "option -update_submit is not supported"},
		{"condor_submit_dag", []string{"-MaxJobs", "3", "-MaxHold", "2", "-config", "d.conf", "x.dag"}, []string{"submit_dag", "--maxjobs", "3", "--maxhold", "2", "--dagman_config", "d.conf", "x.dag"}, ""},
		{"condor_q", []string{"-io"}, nil, "option -io is not supported"},
		{"condor_q", []string{"-bogus"}, nil, "unknown option -bogus"},
		{"condor_status", []string{"-af", "Name", "-schedd"}, []string{"status", "--af", "Name", "--schedd"}, ""},
		{"condor_status", []string{"-compact"}, nil, "option -compact is not supported"},
		{"condor_status", []string{"-s"}, []string{"status", "-s"}, ""}, // too short to rewrite: pflag reports it
		{"condor_rm", []string{"-all"}, []string{"rm", "--all"}, ""},
		{"condor_rm", []string{"-forcex", "12"}, []string{"rm", "--forcex", "12"}, ""},
		{"condor_history", []string{"13.0", "-af", "ClusterId", "ProcId"}, []string{"history", "13.0", "--af", "ClusterId", "ProcId"}, ""},
		{"condor_history", []string{"-file", "h"}, nil, "option -file is not supported"},
		{"condor_wait", []string{"-wait", "-1", "job.log"}, []string{"wait", "--wait", "-1", "job.log"}, ""},
		// condor_submit(1): -a/-append, -batch-name, -terse, name=value;
		// -queue takes the words up to the next option, -dry-run a file.
		{"condor_submit", []string{"job.sub", "-a", "log = out.log", "-append", "error = e.log"}, []string{"submit", "job.sub", "-a", "log = out.log", "--append", "error = e.log"}, ""},
		{"condor_submit", []string{"-batch-name", "nightly", "-terse", "n=3", "job.sub"}, []string{"submit", "--batch-name", "nightly", "--terse", "n=3", "job.sub"}, ""},
		{"condor_submit", []string{"job.sub", "-queue", "input", "in", "A,", "B,", "C"}, []string{"submit", "job.sub", "--queue=input in A, B, C"}, ""},
		{"condor_submit", []string{"-queue", "3", "-terse", "job.sub"}, []string{"submit", "--queue=3", "--terse", "job.sub"}, ""},
		{"condor_submit", []string{"-queue", "in", "-", "job.sub"}, []string{"submit", "--queue=in -", "job.sub"}, ""},
		{"condor_submit", []string{"-queue", "-terse"}, nil, "option -queue needs arguments"},
		{"condor_submit", []string{"-dry-run", "-", "job.sub"}, []string{"submit", "--dry-run=-", "job.sub"}, ""},
		{"condor_submit", []string{"-dry-run", "ads.out", "job.sub"}, []string{"submit", "--dry-run=ads.out", "job.sub"}, ""},
		{"condor_submit", []string{"-dry-run", "-terse", "job.sub"}, []string{"submit", "--dry-run", "--terse", "job.sub"}, ""},
		{"kite", []string{"submit", "--dry-run", "job.sub"}, []string{"submit", "--dry-run", "job.sub"}, ""},
		{"condor_submit", []string{"-spool", "job.sub"}, []string{"submit", "--spool", "job.sub"}, ""},
		{"condor_submit", []string{"-remote", "sched", "job.sub"}, []string{"submit", "--remote", "sched", "job.sub"}, ""},
		{"condor_store_cred", nil, nil, "condor_store_cred is not supported"},
		// condor_tail(1), condor_vacate_job(1).
		{"condor_tail", []string{"-follow", "-maxbytes", "10", "-no-stdout", "1.0", "out.dat"}, []string{"tail", "--follow", "--maxbytes", "10", "--no-stdout", "1.0", "out.dat"}, ""},
		{"condor_tail", []string{"-f", "-stderr", "1.0"}, []string{"tail", "-f", "--stderr", "1.0"}, ""},
		{"condor_vacate_job", []string{"-fast", "-constraint", "Owner == \"alice\""}, []string{"vacate_job", "--fast", "--constraint", "Owner == \"alice\""}, ""},
		{"condor_vacate_job", []string{"-addr", "<1.2.3.4:9618>", "1.0"}, nil, "option -addr is not supported"},
		{"kite", []string{"q", "-af", "Owner"}, []string{"q", "--af", "Owner"}, ""},
		{"kite", []string{"--config", "-c.toml", "q", "-run"}, []string{"--config", "-c.toml", "q", "--run"}, ""},
		{"kite", []string{"status", "-co"}, nil, "option -co is ambiguous: -collector, -config, -constraint"},
		// condor_ssh_to_job(1): single-dash options, the job id, then the
		// command (-- before one whose words look like options); -ssh and
		// -keygen-options, which drive an ssh program, are refused.
		// condor_transfer_data(1) and condor_submit -interactive likewise.
		{"condor_ssh_to_job", []string{"-auto-retry", "-shells", "/bin/bash,/bin/sh", "1.0"}, []string{"ssh_to_job", "--auto-retry", "--shells", "/bin/bash,/bin/sh", "1.0"}, ""},
		{"condor_ssh_to_job", []string{"-remove-on-interrupt", "-name", "s@h", "2", "ls"}, []string{"ssh_to_job", "--remove-on-interrupt", "--name", "s@h", "2", "ls"}, ""},
		{"condor_ssh_to_job", []string{"1.0", "--", "ls", "-la"}, []string{"ssh_to_job", "1.0", "--", "ls", "-la"}, ""},
		{"condor_ssh_to_job", []string{"-auto-retry", "1", "ls", "-la", "-name", "x"}, []string{"ssh_to_job", "--auto-retry", "1", "ls", "-la", "-name", "x"}, ""},
		{"kite", []string{"--config", "k.toml", "ssh_to_job", "1", "ls", "-la"}, []string{"--config", "k.toml", "ssh_to_job", "1", "ls", "-la"}, ""},
		{"condor_ssh_to_job", []string{"-ssh", "sftp", "1.0"}, nil, "option -ssh is not supported"},
		{"condor_ssh_to_job", []string{"-keygen-options", "-t rsa", "1.0"}, nil, "option -keygen-options is not supported"},
		{"condor_transfer_data", []string{"-constraint", "true", "-addr", "<1.2.3.4:9618>"}, []string{"transfer_data", "--constraint", "true", "--addr", "<1.2.3.4:9618>"}, ""},
		{"condor_submit", []string{"-interactive", "job.sub"}, []string{"submit", "--interactive", "job.sub"}, ""},
	} {
		t.Run(tc.prog+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			got, err := programArgs(tc.prog, tc.args)
			if err == nil {
				got, err = htcondorArgs(New(), got)
			}
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one with %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case !slices.Equal(got, tc.want):
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// Every HTCondor name runs a kite command that exists.
func TestCondorToolsAreCommands(t *testing.T) {
	root := New()
	for name, cmd := range condorTools {
		if c, _, err := root.Find([]string{cmd}); err != nil || c == root {
			t.Errorf("%s runs kite %s, which is no command", name, cmd)
		}
	}
}

// An unsupported option exits with a usage error's status, naming it.
func TestUnsupportedOptionStatus(t *testing.T) {
	var stderr strings.Builder
	if got := RunAs("condor_q", []string{"-grid"}, strings.NewReader(""), io.Discard, &stderr); got != 2 {
		t.Errorf("status %d, want 2", got)
	}
	if want := "condor_q: option -grid is not supported"; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr %q, want %q...", stderr.String(), want)
	}
}

// kite install-aliases links every name, again without change, replaces
// a link elsewhere and leaves a file that is not a link.
func TestInstallAliases(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	if err := installAliases(&out, dir, "/opt/kite"); err != nil {
		t.Fatal(err)
	}
	for name := range condorTools {
		if got, err := os.Readlink(filepath.Join(dir, name)); err != nil || got != "/opt/kite" {
			t.Errorf("%s links to %q (%v)", name, got, err)
		}
	}
	out.Reset()
	if err := installAliases(&out, dir, "/opt/kite"); err != nil || !strings.HasPrefix(out.String(), "0 HTCondor tool name(s)") {
		t.Errorf("again: %q, %v", out.String(), err)
	}
	os.Remove(filepath.Join(dir, "condor_q"))
	os.WriteFile(filepath.Join(dir, "condor_q"), []byte("#!/bin/sh\n"), 0o755)
	os.Remove(filepath.Join(dir, "condor_rm"))
	os.Symlink("/usr/bin/condor_rm", filepath.Join(dir, "condor_rm"))
	err := installAliases(&out, dir, "/opt/kite")
	if err == nil || !strings.Contains(err.Error(), "condor_q exists and is not a link") {
		t.Errorf("over a file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "condor_q")); string(b) != "#!/bin/sh\n" {
		t.Errorf("the file was changed: %q", b)
	}
	if got, _ := os.Readlink(filepath.Join(dir, "condor_rm")); got != "/opt/kite" {
		t.Errorf("condor_rm links to %q", got)
	}
}

// kite up says truthfully whether the tools find the pool by default, and
// gives the line to paste when they do not.
func TestHowToolsFind(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	def := filepath.Join(home, ".kite")
	other := filepath.Join(t.TempDir(), "pool d")
	for _, d := range []string{def, other} {
		os.MkdirAll(d, 0o700)
		os.WriteFile(filepath.Join(d, "kite.toml"), nil, 0o644)
	}
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	paste := "export KITE_HOME='" + other + "'"
	for _, tc := range []struct {
		name, dir string
		env       func(string) (string, bool)
		want      []string
	}{
		{"home pool", def, env(), []string{"Tools find it by default"}},
		{"--dir elsewhere", other, env(), []string{"do not find it by default (they use " + filepath.Join(def, "kite.toml") + ")", "\n  " + paste + "\n"}},
		{"KITE_HOME set", other, env("KITE_HOME", other), []string{"as for this command", "\n  " + paste + "\n"}},
		{"KITE_HOME elsewhere", def, env("KITE_HOME", other), []string{"do not find it by default (they use " + filepath.Join(other, "kite.toml") + ")", "export KITE_HOME=" + def}},
		{"KITE_CONFIG elsewhere", other, env("KITE_CONFIG", "/etc/x.toml"), []string{"they use /etc/x.toml", "unset KITE_CONFIG; " + paste}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := howToolsFind(tc.dir, tc.env)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
		})
	}
}

// The refusals name only options the kite command lacks: an option it
// has is never refused.
func TestUnsupportedAreNotFlags(t *testing.T) {
	root := New()
	for cmd, opts := range condorUnsupported {
		c, _, err := root.Find([]string{cmd})
		if err != nil || c == root {
			t.Errorf("refusals for kite %s, which is no command", cmd)
			continue
		}
		flags := commandFlags(c)
		for opt := range opts {
			if flags[opt] != nil {
				t.Errorf("kite %s refuses -%s, which it has", cmd, opt)
			}
		}
	}
}
