package starter

import (
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// A slot's machine ad, written for one job after another, reads the same
// as if written anew each time (HTCondor manual, "Machine ClassAd
// Attributes": the job's .machine.ad is the slot's ad), whatever changed
// between jobs: an expression, attributes added, removed or moved; the
// claim id is never written.
func TestAdTextSameAsNew(t *testing.T) {
	base, err := classad.Parse(`[ClaimId = "secret"; Name = "slot1@host"; Memory = 4096; Start = Memory > 1024 && KeyboardIdle > 900; Activity = "Busy"; JobId = "1.0"]`)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		change func(ad *classad.Ad)
	}{
		{"the first job", func(*classad.Ad) {}},
		{"nothing changed", func(*classad.Ad) {}},
		{"one attribute's value", func(ad *classad.Ad) { ad.Set("JobId", ast.Str("1.1")) }},
		{"the first attribute's", func(ad *classad.Ad) { ad.Set("ClaimId", ast.Str("other")); ad.Set("Name", ast.Str("slot2@host")) }},
		{"an attribute added", func(ad *classad.Ad) { ad.Set("RemoteUser", ast.Str("alice@example.org")) }},
		{"an attribute removed", func(ad *classad.Ad) { ad.Delete("Memory") }},
		{"the same value, a new expression", func(ad *classad.Ad) { ad.Set("Activity", ast.Str("Busy")) }},
		{"the same names in another order", func(ad *classad.Ad) {
			e, _ := ad.Lookup("Name")
			ad.Delete("Name")
			ad.Set("Name", e)
		}},
		{"a longer text", func(ad *classad.Ad) { ad.Set("Activity", ast.Str("Retiring, for a long while")) }},
		{"an empty ad", func(ad *classad.Ad) {
			for _, n := range []string{"ClaimId", "Name", "Start", "Activity", "JobId", "RemoteUser"} {
				ad.Delete(n)
			}
		}},
		{"an ad again", func(ad *classad.Ad) { ad.Set("Name", ast.Str("slot1@host")) }},
	}
	var text AdText
	ad := base.Clone()
	for _, step := range steps {
		step.change(ad)
		machine := ad.Clone() // as the startd hands each starter its own
		want := string(appendMachineAd([]byte("job ad\n"), machine, nil))
		got := string(appendMachineAd([]byte("job ad\n"), machine, &text))
		if got != want {
			t.Errorf("%s: written as\n%s\nwant\n%s", step.name, got, want)
		}
	}
	if got := string(appendMachineAd(nil, nil, &text)); got != "" {
		t.Errorf("no machine ad: %q", got)
	}
}
