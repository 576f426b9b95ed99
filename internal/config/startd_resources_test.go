package config

import (
	"reflect"
	"strings"
	"testing"
)

// Bad GPU and custom resource declarations are named with their place in
// the file, and nothing else of the host is wrong for them.
func TestResourcesValidate(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"gpus word", "[startd]\ngpus = \"yes\"\n", `:2:1: startd.gpus: "yes" is not auto, off, a count or a list of ids`},
		{"gpus negative", "[startd]\ngpus = -1\n", ":2:1: startd.gpus: a count must not be negative"},
		{"gpus twice", "[startd]\ngpus = [\"GPU-a\", \"GPU-a\"]\n", `:2:1: startd.gpus: device id "GPU-a" is listed twice`},
		{"gpus bool", "[startd]\ngpus = true\n", ":2:1: startd.gpus: a bool is not auto"},
		{"auto without a tool", "[startd]\ngpu_discovery = \"\"\n", ":2:1: startd.gpu_discovery: gpus = \"auto\" needs the nvidia-smi to run"},
		{"resource name", "[startd.resources]\n_x = 1\n", `:2:1: startd.resources._x: "_x" is not a resource name`},
		{"gpus as a resource", "[startd.resources]\ngpus = 2\n", ":2:1: startd.resources.gpus: GPUs are declared with startd.gpus"},
		{"built-in", "[startd.resources]\nMemory = 2\n", ":2:1: startd.resources.Memory: Memory is a built-in resource"},
		{"twice", "[startd.resources]\nFPGAs = 1\nfpgas = 2\n", "startd.resources.fpgas: fpgas is declared twice"},
		{"negative", "[startd.resources]\nlicenses = -3\n", ":2:1: startd.resources.licenses: a count must not be negative"},
		{"id with a comma", "[startd.resources]\nFPGAs = [\"a,b\"]\n", `:2:1: startd.resources.FPGAs: device id "a,b" is empty or holds a comma`},
		{"empty command", "[startd.resources]\nFPGAs = \"  \"\n", ":2:1: startd.resources.FPGAs: an inventory command must not be empty"},
		{"a boolean", "[startd.resources]\nFPGAs = true\n", ":2:1: startd.resources.FPGAs: a bool is not a count"},
		{"slot type names an unknown resource", "[startd.resources]\nFPGAs = 2\n[startd.slot_types.a]\nresources = { TPUs = 1 }\n",
			"startd.slot_types.a.resources.TPUs: TPUs is not a resource of this host"},
		{"slot type shares too much", "[startd.slot_types.a]\ncount = 3\nresources = { GPUs = \"50%\" }\n",
			"startd.slot_types: the slot types' GPUs shares add up to 150% of the machine"},
		{"attribute hides a resource", "[startd.resources]\nFPGAs = 2\n[startd.attributes]\nAssignedFPGAs = '\"x\"'\n",
			":4:1: startd.attributes.AssignedFPGAs: AssignedFPGAs is set by the startd itself for the resource FPGAs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, file := loadStartd(t, tt.text)
			err := c.Validate()
			want := tt.want
			if strings.HasPrefix(want, ":") {
				want = file + want
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("got %v\nwant %s", err, want)
			}
		})
	}
}

// What the startd is told to find, from each way of declaring a resource
// (HTCondor's MACHINE_RESOURCE_<name> by count or by ids, and
// MACHINE_RESOURCE_INVENTORY_<name>).
func TestResourceDecls(t *testing.T) {
	tests := []struct {
		name, text string
		want       []ResourceDecl
	}{
		{"default: nvidia-smi", "", []ResourceDecl{{Name: "GPUs", NvidiaSMI: "nvidia-smi"}}},
		{"off", "[startd]\ngpus = \"off\"\n", nil},
		{"none", "[startd]\ngpus = 0\n", nil},
		{"a count is by index", "[startd]\ngpus = 2\n", []ResourceDecl{{Name: "GPUs", IDs: []string{"CUDA0", "CUDA1"}}}},
		{"ids and a tool path", "[startd]\ngpus = \"AUTO\"\ngpu_discovery = \"bin/fake-smi\"\n[startd.resources]\nlicenses = 4\nFPGAs = [\"f0\", \"f1\"]\nTPUs = \"bin/tpu-inventory -all\"\n",
			[]ResourceDecl{{Name: "GPUs", NvidiaSMI: "DIR/bin/fake-smi"}, {Name: "FPGAs", IDs: []string{"f0", "f1"}},
				{Name: "TPUs", Inventory: []string{"DIR/bin/tpu-inventory", "-all"}}, {Name: "licenses", Count: 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := loadStartd(t, tt.text)
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			got := c.ResourceDecls()
			for i := range got {
				got[i].NvidiaSMI = strings.Replace(got[i].NvidiaSMI, c.Dir, "DIR", 1)
				for j := range got[i].Inventory {
					got[i].Inventory[j] = strings.Replace(got[i].Inventory[j], c.Dir, "DIR", 1)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// startd.gpus from the environment or --set: a number is a count, a
// comma makes a list of ids, anything else is the word.
func TestGPUsFromText(t *testing.T) {
	for text, want := range map[string]any{"3": int64(3), "GPU-a,GPU-b": []any{"GPU-a", "GPU-b"}, "off": "off"} {
		c, _ := loadStartd(t, "")
		if err := c.applyEnv(func(name string) (string, bool) { return text, name == "KITE_STARTD_GPUS" }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c.Startd.GPUs, want) {
			t.Errorf("%q: %#v, want %#v", text, c.Startd.GPUs, want)
		}
	}
}

// kite config show writes a slot type's resource shares back as TOML.
func TestShowResourceShares(t *testing.T) {
	c, _ := loadStartd(t, "[startd]\ngpus = 4\n[startd.slot_types.a]\ncount = 1\nresources = { GPUs = 2, FPGAs = \"1/2\" }\n[startd.resources]\nFPGAs = [\"f0\", \"f1\"]\n")
	var b strings.Builder
	if err := c.Show(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`resources = { FPGAs = "1/2", GPUs = "2" }`, `FPGAs = ["f0", "f1"]`, "gpus = 4"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, b.String())
		}
	}
}
