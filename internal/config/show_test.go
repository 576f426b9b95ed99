package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Show prints every key, tables of names included, and what it prints
// reads back as the same configuration.
func TestShowRoundTrip(t *testing.T) {
	text := `[negotiator]
default_prio_factor = 500.0
[negotiator.limits]
licenses = 4
"db.conn" = 2.5
[startd]
slot_user = "kite"
[startd.attributes]
Lab = '"physics"'
HasGPU = true
Speed = 2
Tags = ["a", "b"]
[startd.slot_types.big]
count = 1
cpus = "50%"
partitionable = true
[startd.slot_types.small]
count = 2
memory = 512
user = "nobody"
[startd.sita]
intervals = 2
source = "config"
k = 1.0
p = 100.0
a = 1.0
[startd.sita.hosts]
"slot1@h1" = 1
h2 = 2
`
	c, err := Parse("h.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := c.Show(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"[negotiator.limits]\n\"db.conn\" = 2.5  # h.toml:5:1\nlicenses = 4.0  # h.toml:4:1\n",
		"default_prio_factor = 500.0  # h.toml:2:1\n",
		"[startd.attributes]\nHasGPU = true  # h.toml:10:1\nLab = \"\\\"physics\\\"\"  # h.toml:9:1\nSpeed = 2  # h.toml:11:1\nTags = [\"a\", \"b\"]  # h.toml:12:1\n",
		"[startd.slot_types.big]  # h.toml:13:1\ncount = 1\ncpus = \"50%\"\npartitionable = true\n",
		"[startd.slot_types.small]  # h.toml:17:1\ncount = 2\nmemory = \"512\"\nuser = \"nobody\"\n",
		"[startd.sita.hosts]\nh2 = 2  # h.toml:29:1\n\"slot1@h1\" = 1  # h.toml:28:1\n",
		"[startd.sita]\nattribute = \"ImageSize\"  # default\n",
		"interval = \"1m0s\"  # default\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q", want)
		}
	}
	back, err := Parse("shown.toml", out)
	if err != nil {
		t.Fatalf("show's output does not read back: %v\n%s", err, out)
	}
	for _, sec := range []string{"Pool", "TLS", "Log", "Membership", "Master", "Collector", "Negotiator", "Schedd", "Startd"} {
		got, want := reflect.ValueOf(back).Elem().FieldByName(sec).Interface(), reflect.ValueOf(c).Elem().FieldByName(sec).Interface()
		// %+v prints maps sorted, and an empty table as a nil one.
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Errorf("[%s] read back as\n%+v\nwant\n%+v", strings.ToLower(sec), got, want)
		}
	}
	// An empty table is shown as such.
	d := Default()
	b.Reset()
	d.Show(&b)
	if !strings.Contains(b.String(), "[negotiator.limits]  # empty\n") {
		t.Errorf("no empty limits table:\n%s", b.String())
	}
}
