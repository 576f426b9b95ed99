package startd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/pooltest"
)

// loadConfig reads a host file holding text.
func loadConfig(t *testing.T, text string) *config.Config {
	t.Helper()
	file := filepath.Join(t.TempDir(), "kite.toml")
	os.WriteFile(file, []byte(text), 0o644)
	c, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// Slot types become slots, numbered by type name, with their shares and
// users; what a type leaves unset is shared by the others.
func TestSlotTypesLayout(t *testing.T) {
	c := loadConfig(t, `
[startd]
slot_user = "nobody"
[startd.slot_types.a_whole]
count = 1
cpus = 2
memory = "50%"
partitionable = true
[startd.slot_types.b_small]
count = 2
cpus = 1
memory = 512
user = "daemon"
`)
	cfg := ConfigFrom(c)
	cfg.ExecuteDir, cfg.Machine = reachableDir(t), &testMachine
	s, err := New(pooltest.New(t).Env("startd"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range s.slots {
		user := "(the startd's)"
		if st.user != nil {
			user = st.user.Name
		}
		got = append(got, strings.Join([]string{st.name, st.Kind.String(), st.Size.String(), user}, " | "))
	}
	want := []string{
		"slot1@test | Partitionable | 2 cpus, 2048 MiB memory, 3495253 KiB disk | nobody",
		"slot2@test | Static | 1 cpus, 512 MiB memory, 3495253 KiB disk | daemon",
		"slot3@test | Static | 1 cpus, 512 MiB memory, 3495253 KiB disk | daemon",
	}
	if os.Geteuid() != 0 {
		for i := range want {
			want[i] = want[i][:strings.LastIndex(want[i], "|")+2] + "(the startd's)"
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("slots:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// New refuses what it cannot run with: a machine the slots do not fit,
// a policy expression that does not parse, an unknown slot user.
func TestNewRefuses(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"bad policy", func(c *Config) { c.Policy = policy("Start", "KeyboardIdle >") }, "startd: test:1:15: expected an expression"},
		{"too many slots", func(c *Config) { c.Layout[0].Count = 5 }, "startd: slot1 (type default) would get 0 cpus"},
		{"no memory", func(c *Config) { m := testMachine; m.MemoryMiB = 0; c.Machine = &m }, "the machine's cpus and memory are unknown"},
		{"unknown user", func(c *Config) { c.SlotUser = "no-such-user-here" }, `slot user "no-such-user-here"`},
	}
	p := pooltest.New(t)
	for _, tt := range tests {
		if tt.name == "unknown user" && os.Geteuid() != 0 {
			continue // only root switches users
		}
		cfg := ConfigFrom(p.Config)
		cfg.ExecuteDir, cfg.Machine, cfg.Name = reachableDir(t), &testMachine, "host1"
		tt.edit(&cfg)
		if _, err := New(p.Env("startd"), cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
}

// startd.simulate puts the startd in simulated mode, where jobs run
// without processes (docs/scale.md); its default runs real jobs.
func TestSimulateKey(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"[startd]\n", false},
		{"[startd]\nsimulate = true\n", true},
	} {
		if got := ConfigFrom(loadConfig(t, tt.text)).Simulate; got != tt.want {
			t.Errorf("%q: Simulate = %v, want %v", tt.text, got, tt.want)
		}
	}
}
