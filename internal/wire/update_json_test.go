package wire

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

var testUpdates = []JobUpdate{
	{ClaimID: "c1", Job: "1.0", Event: EventStarted, Time: 1764130000},
	{ClaimID: "c-0123456789abcdef#2", Job: "12.345", Event: EventExited, Time: 1764130001, StartedAt: 1764130000,
		ExitCode: 3, WallSeconds: 0.0012, UserCPU: 1e-7, SysCPU: 12345678.25, PeakMemoryMB: 2, TakesNext: true,
		Activation: &ActivationTimes{SetupSeconds: 0.0021, ExecutionSeconds: 1e21, TeardownSeconds: 0}},
	{ClaimID: "c2", Job: "3.1", Event: EventExited, Time: -5, ExitBySignal: true, ExitSignal: 9, ExitCode: -1},
	{ClaimID: "c3", Job: "4.0", Event: EventHeld, Reason: `output "a<b>&c\d" é` + "\t\u2028", HoldCode: 12, HoldSubCode: 2},
	{ClaimID: "c4", Job: "5.0", Event: EventCheckpointed, Checkpoint: 7, CheckpointFiles: "a,b"},
	{ClaimID: "c5", Job: "6.0", Event: EventExited, Transfers: &RunTransfers{In: map[string]TransferCount{"Cedar": {Files: 1, Bytes: 2}}}},
}

// A JobUpdate as encoding/json writes it reads back by hand as the
// update itself, unless a string needs unescaping or it carries transfer
// counts, which are left to encoding/json.
func TestJobUpdateByHand(t *testing.T) {
	for _, u := range testUpdates {
		body, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var back JobUpdate
		byHand := back.decodeCanonical(body)
		want := !strings.Contains(string(body), `\`) && u.Transfers == nil
		if byHand != want || byHand && !reflect.DeepEqual(back, u) {
			t.Errorf("%s: read by hand (%v, want %v) as %+v", body, byHand, want, back)
		}
	}
}

// Other forms are left to encoding/json, the update unchanged; the schedd
// then refuses what it always refused.
func TestJobUpdateOtherForms(t *testing.T) {
	for _, tt := range []struct {
		body string
		bad  bool // refused by Request.Decode
	}{
		{`{"job":"1.0","claim_id":"c","event":"exited","time":1}`, false},
		{`{"claim_id": "c","job":"1.0","event":"exited","time":1}`, false},
		{`{"claim_id":"c\u0031","job":"1.0","event":"exited","time":1}`, false},
		{`{"claim_id":"c","job":"1.0","event":"exited","time":1,"exit_code":1.0}`, true},
		{`{"claim_id":"c","job":"1.0","event":"exited","time":01}`, true},
		{`{"claim_id":"c","job":"1.0","event":"exited","time":1,"wall_seconds":1.}`, true},
		{`{"claim_id":"c","job":"1.0","event":"exited","time":1,"surprise":1}`, true},
		{`{"claim_id":"c","job":"1.0","event":"exited","time":1}{}`, true},
		{`{"claim_id":"c","job":"1.0","event":"exited","time":99999999999999999999}`, true},
	} {
		u := JobUpdate{Reason: "unchanged"}
		if u.decodeCanonical([]byte(tt.body)) || u.Reason != "unchanged" {
			t.Errorf("%s: read by hand as %+v", tt.body, u)
		}
		var got JobUpdate
		err := (&Request{HTTP: httptest.NewRequest("POST", "/", strings.NewReader(tt.body))}).Decode(&got)
		if (err != nil) != tt.bad {
			t.Errorf("%s: %v", tt.body, err)
		}
		if err == nil && (got.ClaimID != "c" && got.ClaimID != "c1" || got.Job != "1.0" || got.Time != 1) {
			t.Errorf("%s: decoded as %+v", tt.body, got)
		}
	}
}

// A job's end report reads through Request.Decode as it was sent, by
// hand or not.
func TestJobUpdateAcrossTheWire(t *testing.T) {
	for _, u := range testUpdates {
		body, err := encode(u)
		if err != nil {
			t.Fatal(err)
		}
		var got JobUpdate
		if err := (&Request{HTTP: httptest.NewRequest("POST", "/", strings.NewReader(string(body)))}).Decode(&got); err != nil || !reflect.DeepEqual(got, u) {
			t.Errorf("%s: decoded as %+v, %v", body, got, err)
		}
	}
}

func TestJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "-0": true, "12": true, "1.5": true, "1e-07": true, "1E+21": true, "-0.5e3": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "1e": false, "+1": false, "1e+": false, "0x1": false, "Inf": false} {
		if jsonNumber(s) != want {
			t.Errorf("%q: %v", s, !want)
		}
	}
}

// The fields read by hand are JobUpdate's, in order: a field added to
// JobUpdate is added there too.
func TestUpdateFieldsAreJobUpdates(t *testing.T) {
	var want []string
	for f := range reflect.TypeFor[JobUpdate]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "transfers" && name != "activation" {
			want = append(want, name)
		}
	}
	var got []string
	for _, f := range updateFields {
		got = append(got, f.name)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read by hand: %v\nJobUpdate's: %v", got, want)
	}
}
