package submit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
)

// TestLocalEnv submits from a real directory: files, globs and a command
// run by the shell.
func TestLocalEnv(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("run.sh", "#!/bin/sh\n")
	write("in/a.dat", "a")
	write("in/b.dat", "b")
	write("list.txt", "x 1\ny 2\n")
	src := `executable = run.sh
initialdir = in
arguments = $(Item)
queue matching in/*.dat
arguments = $(name) $(n)
queue name, n from list.txt
arguments = $(Item)
queue from echo one; echo two |
`
	d, warns, err := Parse("job.sub", []byte(src))
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse: %v %v", err, warns)
	}
	env := LocalEnv(dir)
	env.Cluster, env.Owner = 3, "carol"
	c, _, err := d.Expand(env)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range c.Procs {
		job := c.Job(i)
		e, _ := job.Lookup("Args")
		got = append(got, strings.TrimSpace(printAd(oneAttr("Args", e))))
	}
	want := `Args = "in/a.dat"|Args = "in/b.dat"|Args = "x 1"|Args = "y 2"|Args = "one"|Args = "two"`
	if strings.Join(got, "|") != want {
		t.Errorf("args = %q, want %q", strings.Join(got, "|"), want)
	}
	if cmd, _ := c.Ad.Lookup("Cmd"); printAd(oneAttr("Cmd", cmd)) != `Cmd = "`+filepath.Join(dir, "run.sh")+`"`+"\n" {
		t.Errorf("Cmd = %v", cmd)
	}
}

// TestJob checks that Job merges the cluster ad and a proc's own ad, and
// that Expand sets ClusterId, ProcId and Owner.
func TestJob(t *testing.T) {
	d, _, err := Parse("j.sub", []byte("executable = /bin/x\noutput = o.$(Process)\nqueue 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.File() != "j.sub" {
		t.Errorf("File() = %q", d.File())
	}
	c, _, err := d.Expand(testEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Procs) != 3 {
		t.Fatalf("%d procs", len(c.Procs))
	}
	job := c.Job(2)
	for name, want := range map[string]string{"ClusterId": "42", "ProcId": "2", "Owner": `"alice"`, "Out": `"o.2"`, "Cmd": `"/bin/x"`} {
		e, ok := job.Lookup(name)
		if !ok || printAd(oneAttr(name, e)) != name+" = "+want+"\n" {
			t.Errorf("%s = %v, want %s", name, e, want)
		}
	}
	if _, ok := c.Procs[2].Lookup("Cmd"); ok {
		t.Errorf("Cmd is in the proc's own ad, not only in the cluster ad")
	}
	if job.Len() != c.Ad.Len()+2 {
		t.Errorf("job has %d attributes, cluster %d: want ProcId and Out more", job.Len(), c.Ad.Len())
	}
}

// TestNoProcs checks queue 0: a cluster ad and no procs.
func TestNoProcs(t *testing.T) {
	d, _, err := Parse("j.sub", []byte("executable = /bin/x\nqueue 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := d.Expand(testEnv(nil))
	if err != nil || len(c.Procs) != 0 {
		t.Fatalf("Expand: %v, %d procs", err, len(c.Procs))
	}
	if _, ok := c.Ad.Lookup("ClusterId"); !ok {
		t.Errorf("no ClusterId")
	}
}

// TestDisabledHooks checks the errors when the Env cannot read files, glob
// or run commands.
func TestDisabledHooks(t *testing.T) {
	for _, q := range []string{"queue x from f.txt", "queue x matching *", "queue x from cmd |"} {
		d, _, err := Parse("j.sub", []byte("executable = /bin/x\n"+q+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = d.Expand(Env{Dir: "/tmp"})
		if err == nil || !strings.HasPrefix(err.Error(), "j.sub:2: ") || !strings.Contains(err.Error(), "not enabled") {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// TestParseErrorList checks that Parse reports several errors, in order.
func TestParseErrorList(t *testing.T) {
	_, _, err := Parse("j.sub", []byte("a b\nexecutable = x\nc d\nqueue in [::0] (a)\n"))
	list, ok := err.(ErrorList)
	if !ok || len(list) != 3 {
		t.Fatalf("err = %v", err)
	}
	for i, line := range []int{1, 3, 4} {
		if list[i].Line != line {
			t.Errorf("error %d at line %d, want %d", i, list[i].Line, line)
		}
	}
}

// TestLocalHost checks that the host is described in HTCondor's terms.
func TestLocalHost(t *testing.T) {
	h := LocalHost()
	if h.Arch == "" || h.OpSys == "" || h.OpSysAndVer == "" {
		t.Errorf("LocalHost() = %+v", h)
	}
	if archName("amd64") != "X86_64" || opSysName("linux") != "LINUX" || opSysName("darwin") != "OSX" {
		t.Errorf("arch/opsys names")
	}
}

func TestClusterAppendJSON(t *testing.T) {
	d, _, err := Parse("t.sub", []byte("executable = /bin/true\narguments = $(Process)\nqueue 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := d.Expand(Env{Dir: "/tmp", Cluster: 7, Owner: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	ads, _, err := classad.ParseJSONArray(c.AppendJSON(nil))
	if err != nil || len(ads) != 4 {
		t.Fatalf("%d ads, %v", len(ads), err)
	}
	for i, p := range ads[1:] {
		if v, _ := classad.EvalAttr(p, "ProcId", nil); v.String() != fmt.Sprint(i) {
			t.Errorf("proc %d has ProcId %v", i, v)
		}
	}
}

// Submit files are UTF-8 text: a bad byte is refused with its file, line
// and column (issue 14 item 8), in the file and in a `queue from` file.
func TestInvalidUTF8(t *testing.T) {
	tests := []struct {
		name, src, items string
		want             string
	}{
		{"in a value", "executable = /bin/true\narguments = a \xff b\nqueue\n", "", "job.sub:2:15: byte 0xff is not valid UTF-8"},
		{"in a comment", "# caf\xe9\nexecutable = /bin/true\nqueue\n", "", "job.sub:1:6: byte 0xe9 is not valid UTF-8"},
		{"in a queue from file", "executable = /bin/true\narguments = $(x)\nqueue x from items.txt\n", "one\ntw\xc3o\n", "job.sub:3: queue from items.txt:2:3: byte 0xc3 is not valid UTF-8"},
		{"valid", "executable = /bin/true\narguments = café ✓\nqueue x from items.txt\n", "é\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _, err := Parse("job.sub", []byte(tt.src))
			if err == nil {
				env := Env{Cluster: 1, Owner: "alice", Dir: "/d", ReadFile: func(string) ([]byte, error) { return []byte(tt.items), nil }}
				_, _, err = d.Expand(env)
			}
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// Env.MaxJobs (the schedd's max_jobs_per_submission) refuses a queue
// statement before its jobs are made: queue 1000000 costs nothing.
func TestMaxJobs(t *testing.T) {
	tests := []struct {
		src  string
		want string // "" expanded
	}{
		{"executable = /bin/true\nqueue 1000000\n", "job.sub:2: too many jobs: more than 10 in one submit (the schedd's limit, schedd.max_jobs_per_submission)"},
		{"executable = /bin/true\nqueue 6\nqueue 6\n", "job.sub:3: too many jobs: more than 10"},
		{"executable = /bin/true\nqueue x in (a b c d e f g h i j k)\n", "job.sub:2: too many jobs"},
		{"executable = /bin/true\nqueue 10\n", ""},
	}
	for _, tt := range tests {
		d, _, err := Parse("job.sub", []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := d.Expand(Env{Cluster: 1, Owner: "alice", Dir: "/d", MaxJobs: 10})
		switch {
		case tt.want == "" && (err != nil || len(c.Procs) != 10):
			t.Errorf("%q: %v", tt.src, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: %v, want %q", tt.src, err, tt.want)
		}
	}
}

// TestLocalInclude includes a file and a command's output with the real
// file system and shell: the command runs in the submit directory with
// the submitter's environment.
func TestLocalInclude(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KITE_SUBMIT_TEST", "from-env")
	if err := os.WriteFile(filepath.Join(dir, "common.sub"), []byte("request_memory = 256\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "executable = /bin/true\ninclude : common.sub\n" +
		"include : echo \"+Where = \\\"`pwd`\\\"\"; echo \"+Env = \\\"$KITE_SUBMIT_TEST\\\"\" |\n"
	d, warns, err := Parse("job.sub", []byte(src))
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse: %v %v", err, warns)
	}
	c, _, err := d.Expand(LocalEnv(dir))
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	job := c.Job(0)
	for attr, want := range map[string]string{
		"RequestMemory": "RequestMemory = 256\n",
		"Where":         `Where = "` + resolved + `"` + "\n",
		"Env":           `Env = "from-env"` + "\n",
	} {
		e, _ := job.Lookup(attr)
		if got := printAd(oneAttr(attr, e)); got != want && !(attr == "Where" && got == `Where = "`+dir+`"`+"\n") {
			t.Errorf("%s: got %q, want %q", attr, got, want)
		}
	}
}

// TestDisabledIncludes checks the errors when the Env cannot read files
// or run commands for an include.
func TestDisabledIncludes(t *testing.T) {
	for _, inc := range []string{"include : f.sub", "include : cmd |"} {
		d, _, err := Parse("j.sub", []byte("executable = /bin/x\n"+inc+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = d.Expand(Env{Dir: "/tmp"})
		if err == nil || !strings.HasPrefix(err.Error(), "j.sub:2:11: ") || !strings.Contains(err.Error(), "not enabled") {
			t.Errorf("%s: %v", inc, err)
		}
	}
}
