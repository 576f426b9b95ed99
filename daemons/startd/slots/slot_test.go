package slots

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Unix(1_700_000_000, 0)

func fraction(f float64) Share { return func(total int64) int64 { return int64(f * float64(total)) } }
func amount(n int64) Share     { return func(int64) int64 { return n } }

func TestLayout(t *testing.T) {
	machine := Resources{Cpus: 8, Memory: 16000, Disk: 1000000}
	tests := []struct {
		name  string
		types []Type
		want  []string // "name kind cpus memory disk user"
		err   string
	}{
		{"one partitionable slot", Equal(1, true, "nobody"),
			[]string{"slot1 Partitionable 8 16000 1000000 nobody"}, ""},
		{"four static slots", Equal(4, false, "nobody"), []string{
			"slot1 Static 2 4000 250000 nobody", "slot2 Static 2 4000 250000 nobody",
			"slot3 Static 2 4000 250000 nobody", "slot4 Static 2 4000 250000 nobody"}, ""},
		{"explicit shares and the rest split", []Type{
			{Name: "big", Count: 1, Cpus: amount(4), Memory: fraction(0.5), Partitionable: true, User: "big"},
			{Name: "small", Count: 2, Cpus: amount(1), User: "small"},
			{Name: "rest", Count: 1},
		}, []string{
			"slot1 Partitionable 4 8000 250000 big",
			"slot2 Static 1 2666 250000 small", "slot3 Static 1 2666 250000 small",
			"slot4 Static 2 2666 250000"}, ""},
		{"too many cpus", []Type{{Name: "a", Count: 3, Cpus: amount(3)}}, nil,
			"slot types ask for 9 cpus; the machine has 8"},
		{"more slots than cpus", Equal(9, false, ""), nil,
			"slot1 (type default) would get 0 cpus, 1777 MiB memory, 111111 KiB disk: each slot needs a cpu and some memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Layout(machine, nil, tt.types, t0)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, s := range got {
				lines = append(lines, strings.TrimSpace(fmt.Sprintf("%s %s %d %d %d %s",
					s.Name(), s.Kind, s.Size.Cpus, s.Size.Memory, s.Size.Disk, s.User)))
				if s.Status() != (Status{Owner, Idle}) || !s.EnteredState().Equal(t0) {
					t.Errorf("%s starts %s at %v", s.Name(), s.Status(), s.EnteredState())
				}
			}
			if strings.Join(lines, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A partitionable slot is carved into dynamic slots numbered in order,
// each request rounded up to whole quanta (disk 1000 KiB makes 1024); what
// they use is gone from the partitionable slot until they end.
func TestCarveAndRelease(t *testing.T) {
	p := New(1, Partitionable, Resources{Cpus: 4, Memory: 8192, Disk: 100000}, "nobody", t0)
	d1, err := p.Carve(Resources{Cpus: 1, Memory: 1024, Disk: 1000}, t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	d2, err := p.Carve(Resources{Cpus: 2, Memory: 4096, Disk: 1000}, t0.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if d1.Name() != "slot1_1" || d2.Name() != "slot1_2" || d2.Kind != Dynamic || d2.Parent != p || d2.User != "nobody" {
		t.Errorf("dynamic slots: %s %s %s", d1.Name(), d2.Name(), d2.Kind)
	}
	if d1.Status() != (Status{Claimed, Idle}) || !d1.EnteredState().Equal(t0.Add(time.Second)) {
		t.Errorf("a new dynamic slot is %s since %v", d1.Status(), d1.EnteredState())
	}
	if d1.Size != (Resources{Cpus: 1, Memory: 1024, Disk: 1024}) {
		t.Errorf("the first dynamic slot has %s", d1.Size)
	}
	if p.Free != (Resources{Cpus: 1, Memory: 3072, Disk: 97952}) {
		t.Errorf("left: %s", p.Free)
	}
	if _, err := p.Carve(Resources{Cpus: 2, Memory: 1024, Disk: 0}, t0); err == nil || !strings.Contains(err.Error(), "slot1 has 1 cpus, 3072 MiB memory, 97952 KiB disk left; the job asks for 2 cpus") {
		t.Errorf("over-asking: %v", err)
	}
	if _, err := d1.Carve(Resources{Cpus: 1, Memory: 1, Disk: 0}, t0); err == nil {
		t.Error("a dynamic slot was carved")
	}
	if _, err := p.Carve(Resources{Cpus: 0, Memory: 1, Disk: 0}, t0); err == nil {
		t.Error("a dynamic slot without a cpu was carved")
	}
	d1.Release()
	d1.Release() // twice is harmless
	if p.Free != (Resources{Cpus: 2, Memory: 4096, Disk: 98976}) {
		t.Errorf("after release: %s", p.Free)
	}
	d3, _ := p.Carve(Resources{Cpus: 1, Memory: 1, Disk: 0}, t0)
	if d3.Name() != "slot1_3" {
		t.Errorf("numbers are not reused: %s", d3.Name())
	}
}
