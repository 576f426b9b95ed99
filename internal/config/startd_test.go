package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/ast"
)

// loadStartd writes text as a host file and loads it, so that errors can
// be placed by the file's own text.
func loadStartd(t *testing.T, text string) (*Config, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "kite.toml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return c, file
}

// A bad expression is placed at the line and column of the mistake inside
// the value, whatever the quoting.
func TestStartdExpressionErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"basic string", "[startd]\nstart = \"KeyboardIdle > > 3\"\n",
			`:2:25: startd.start: bad expression: expected an expression, found ">"`},
		{"escapes before the mistake", "[startd]\n  rank = \"Owner == \\\"bob\\\" + * 2\"\n",
			`:2:30: startd.rank: bad expression: expected an expression, found "*"`},
		{"literal string", "[startd]\nsuspend = 'LoadAvg >'\n",
			`:2:21: startd.suspend: bad expression: expected an expression, found end of input`},
		{"multi-line string", "[startd]\npreempt = '''\nKeyboardIdle < 60 &&\n  (LoadAvg > ))\n'''\n",
			`:4:14: startd.preempt: bad expression: expected an expression, found ")"`},
		{"attribute", "[startd.attributes]\nHasGPU = true\nLab = \"physics dept\"\n",
			`:3:16: startd.attributes.Lab: bad expression: unexpected`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, file := loadStartd(t, tt.text)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), file+tt.want) {
				t.Errorf("got %v\nwant %s%s", err, file, tt.want)
			}
		})
	}
}

// Every other problem of the section is named with its place.
func TestStartdValidate(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"negative cpus", "[startd]\ncpus = -2\n", ":2:1: startd.cpus: must not be negative"},
		{"no slots", "[startd]\nslots = 0\n", ":2:1: startd.slots: must be at least 1"},
		{"slots and types", "[startd]\nslots = 2\n[startd.slot_types.a]\ncount = 1\n", ":2:1: startd.slots: set either slots or [startd.slot_types]"},
		{"zero count", "[startd.slot_types.small]\ncount = 0\ncpus = 1\n", ":2:1: startd.slot_types.small.count: slot type small needs a count of at least 1"},
		{"too much", "[startd.slot_types.a]\ncount = 3\nmemory = \"50%\"\n", "startd.slot_types: the slot types' memory shares add up to 150% of the machine"},
		{"cgroup", "[startd]\ncgroup = \"v1\"\n", `:2:1: startd.cgroup: "v1" is not auto or off`},
		{"container runtime", "[startd]\ncontainer_runtime = \"lxc\"\n", `:2:1: startd.container_runtime: "lxc" is not one of auto, podman, docker, apptainer, none`},
		{"container path without a runtime", "[startd]\ncontainer_runtime_path = \"/opt/podman\"\n", `:2:1: startd.container_runtime_path: names a program for container_runtime = "auto"`},
		{"interval", "[startd]\npolicy_interval = \"0s\"\n", ":2:1: startd.policy_interval: must be a positive duration"},
		{"owned attribute", "[startd.attributes]\nState = '\"Busy\"'\n", ":2:1: startd.attributes.State: State is set by the startd itself"},
		{"bad name", "[startd.attributes]\n\"two words\" = 1\n", `startd.attributes.two words: "two words" is not a ClassAd attribute name`},
		{"table value", "[startd.attributes.Nested]\na = 1\n", ":2:1: startd.attributes.Nested.a: unknown key"},
		{"inline table", "[startd.attributes]\nNested = { a = 1 }\n", "startd.attributes.Nested.a: unknown key"},
		{"no user", "[startd]\nslot_user = \"\"\n", ":2:1: startd.slot_user: a user name is required"},
		{"simulate not a boolean", "[startd]\nsimulate = \"yes\"\n", ":2:1: startd.simulate: incompatible types: TOML value has type string; destination has type boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "kite.toml")
			os.WriteFile(file, []byte(tt.text), 0o644)
			c, err := Load(file)
			if err == nil {
				err = c.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestStartdSlotTypesAndAttributes(t *testing.T) {
	c, _ := loadStartd(t, `
[startd.slot_types.a_big]
count = 1
cpus = 4
memory = "50%"
disk = "1/4"
partitionable = true

[startd.slot_types.b_small]
count = 2
cpus = 1
memory = 2048
user = "kite-slot"

[startd.attributes]
Lab = '"physics"'
HasGPU = false
Weight = 2.5
Tags = ['"a"', 1]
Big = "Memory > 1024 * 1024"
`)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	big, small := c.Startd.SlotTypes["a_big"], c.Startd.SlotTypes["b_small"]
	if big.Cpus.Of(8) != 4 || big.Memory.Of(1000) != 500 || big.Disk.Of(100) != 25 || !big.Partitionable {
		t.Errorf("a_big: %+v", big)
	}
	if small.Count != 2 || small.Memory.Of(1<<20) != 2048 || small.Disk.IsSet() || small.User != "kite-slot" {
		t.Errorf("b_small: %+v", small)
	}
	want := map[string]string{"Lab": `"physics"`, "HasGPU": "false", "Weight": "2.500000000000000E+00", "Tags": `{ "a",1 }`, "Big": "Memory > 1024 * 1024"}
	for _, name := range c.Startd.AttributeNames() {
		e, err := AttributeExpr(c.Startd.Attributes[name], "")
		if err != nil || ast.String(e) != want[name] {
			t.Errorf("%s: %s %v, want %s", name, ast.String(e), err, want[name])
		}
	}
}

func TestParseShare(t *testing.T) {
	for _, tt := range []struct {
		in   string
		of   int64
		want int64
	}{{"25%", 1000, 250}, {"1/3", 9, 3}, {"512", 1 << 20, 512}, {" 100% ", 7, 7}} {
		s, err := ParseShare(tt.in)
		if err != nil || s.Of(tt.of) != tt.want {
			t.Errorf("%q of %d: %d %v, want %d", tt.in, tt.of, s.Of(tt.of), err, tt.want)
		}
	}
	for _, bad := range []string{"", "x", "150%", "0%", "3/2", "1/0", "-4"} {
		if _, err := ParseShare(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}
