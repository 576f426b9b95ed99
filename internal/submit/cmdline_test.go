package submit

import (
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
)

// condor_submit's command-line additions, as condor_submit(1) (HTCondor
// 25, Options) describes them: <submit-variable>=<value> "as if it was
// placed at the beginning of the submit description file"; -append
// commands "immediately precede the queue command ... and come after all
// other previous commands", an -append that is a queue statement being
// taken as -queue; -queue "only permitted if the submit description file
// does not have a queue command".
func TestCommandLine(t *testing.T) {
	tests := []struct {
		name string
		src  string
		cl   CommandLine
		show []string // attributes printed for every proc
		want string   // one line per proc, attributes joined by "; "
		err  string
	}{{
		name: "vars are defaults the file overrides",
		src:  "executable = /bin/echo\narguments = $(greeting) $(who)\nwho = file\nqueue\n",
		cl:   CommandLine{Vars: []string{"greeting=hello", "who=cmdline"}},
		show: []string{"Args"},
		want: `Args = "hello file"`,
	}, {
		name: "a var may be a command, and +Attr is MY.Attr",
		src:  "executable = /bin/echo\nqueue\n",
		cl:   CommandLine{Vars: []string{"request_memory=2GB", "+Project=\"chem\""}},
		show: []string{"RequestMemory", "Project"},
		want: `RequestMemory = 2048; Project = "chem"`,
	}, {
		name: "the man page's -a example: after the file's commands, before each queue",
		src:  "executable = /bin/echo\nlog = file.log\nqueue\narguments = second\nqueue\n",
		cl:   CommandLine{Append: []string{"log = out.log", "error = error.log"}},
		show: []string{"UserLog", "Err"},
		want: `UserLog = "` + testDir + `/out.log"; Err = "error.log"` + "\n" + `UserLog = "` + testDir + `/out.log"; Err = "error.log"`,
	}, {
		name: "-append also precedes the queue statement a file without one implies",
		src:  "executable = /bin/echo\narguments = a\n",
		cl:   CommandLine{Append: []string{"arguments = b"}},
		show: []string{"Args"},
		want: `Args = "b"`,
	}, {
		name: "-queue for a file without a queue statement",
		src:  "executable = /bin/echo\narguments = $(Item)\n",
		cl:   CommandLine{Queue: "1 in A, B, C"},
		show: []string{"Args"},
		want: "Args = \"A\"\nArgs = \"B\"\nArgs = \"C\"",
	}, {
		name: "an -append that is a queue statement is -queue",
		src:  "executable = /bin/echo\narguments = $(Item)\n",
		cl:   CommandLine{Append: []string{"queue input in A, B, C"}},
		show: []string{"In"},
		want: "In = \"A\"\nIn = \"B\"\nIn = \"C\"",
	}, {
		name: "-queue with name=value needs no file",
		src:  "",
		cl:   CommandLine{Vars: []string{"executable=/bin/echo", "arguments=$(Process)"}, Queue: "2"},
		show: []string{"Args"},
		want: "Args = \"0\"\nArgs = \"1\"",
	}, {
		name: "-queue conflicts with the file's queue statement",
		src:  "executable = /bin/echo\n\nqueue 2\n",
		cl:   CommandLine{Queue: "3"},
		err:  "job.sub:3: -queue argument conflicts with this queue statement",
	}, {
		name: "two queue statements on the command line",
		src:  "executable = /bin/echo\n",
		cl:   CommandLine{Append: []string{"queue 2"}, Queue: "3"},
		err:  "-append argument 1: only one queue statement",
	}, {
		name: "a name=value argument with a bad name",
		src:  "executable = /bin/echo\nqueue\n",
		cl:   CommandLine{Vars: []string{"ok=1", "bad name=2"}},
		err:  `name=value argument 2:1: invalid name "bad name"`,
	}, {
		name: "an -append that is no command",
		src:  "executable = /bin/echo\nqueue\n",
		cl:   CommandLine{Append: []string{"include : other.sub"}},
		err:  `-append argument 1: "include : other.sub" is not a submit command`,
	}, {
		name: "a bad -queue argument",
		src:  "executable = /bin/echo\n",
		cl:   CommandLine{Queue: "x in ("},
		err:  "-queue argument:1: ",
	}, {
		name: "errors in an -append name it",
		src:  "executable = /bin/echo\nqueue\n",
		cl:   CommandLine{Append: []string{"requirements = (Memory >"}},
		err:  "-append argument 1:1:",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := expandWith(tt.src, tt.cl, tt.show)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// expandWith parses and expands src with a command line and prints the
// attributes show of every proc.
func expandWith(src string, cl CommandLine, show []string) (string, error) {
	d, _, err := ParseWith("job.sub", []byte(src), cl)
	if err != nil {
		return "", err
	}
	c, _, err := d.Expand(testEnv(nil))
	if err != nil {
		return "", err
	}
	var lines []string
	for i := range c.Procs {
		job := c.Job(i)
		var parts []string
		for _, name := range show {
			e, _ := job.Lookup(name)
			parts = append(parts, string(ast.AppendOldAttr(nil, name, e)))
		}
		lines = append(lines, strings.Join(parts, "; "))
	}
	return strings.Join(lines, "\n"), nil
}

// Unknown names in -append commands and name=value arguments are warned
// about as in the file; names the file uses as macros are not unknown.
func TestCommandLineWarnings(t *testing.T) {
	_, warns, err := ParseWith("job.sub", []byte("executable = /bin/echo\narguments = $(n)\nqueue\n"),
		CommandLine{Vars: []string{"n=1"}, Append: []string{"requst_memory = 2"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || warns[0].File != "-append argument 1" || !strings.Contains(warns[0].Msg, "requst_memory") {
		t.Errorf("warnings %v, want one about requst_memory in -append argument 1", warns)
	}
}
