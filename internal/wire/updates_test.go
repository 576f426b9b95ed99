package wire

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// Several job ends in one request are written as encoding/json writes
// them, and read back through Request.Decode as they were sent: by hand
// when every update is in the form JobUpdate reads by hand, through
// encoding/json when one is not (spaces, escapes, transfer counts).
func TestJobUpdatesAcrossTheWire(t *testing.T) {
	for _, us := range []JobUpdates{
		{},
		{Updates: []JobUpdate{}},
		{Updates: testUpdates[1:2]},
		{Updates: testUpdates},
	} {
		body, err := encode(us)
		if err != nil {
			t.Fatal(err)
		}
		std, err := json.Marshal(us)
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != string(std) {
			t.Errorf("written as\n%s\nencoding/json writes\n%s", body, std)
		}
		var got JobUpdates
		if err := (&Request{HTTP: httptest.NewRequest("POST", "/", strings.NewReader(string(body)))}).Decode(&got); err != nil ||
			len(got.Updates) != len(us.Updates) || len(us.Updates) > 0 && !reflect.DeepEqual(got, us) {
			t.Errorf("%s: decoded as %+v, %v", body, got, err)
		}
		var byHand JobUpdates
		plain := us.Updates != nil && !strings.Contains(string(body), `\`) && !strings.Contains(string(body), "transfers")
		if ok := byHand.decodeCanonical(body); ok != plain || ok && len(us.Updates) > 0 && !reflect.DeepEqual(byHand, us) {
			t.Errorf("%s: read by hand (%v, want %v) as %+v", body, ok, plain, byHand)
		}
	}
	for _, bad := range []string{
		`{"updates":[{"claim_id":"c","job":"1.0","event":"exited","time":1},]}`,
		`{"updates":[{"claim_id":"c","job":"1.0","event":"exited","time":1}]`,
		`{"updates":[{"claim_id":"c","job":"1.0","event":"exited","time":1}]}{}`,
		`{"updates":{"claim_id":"c","job":"1.0","event":"exited","time":1}}`,
		`{"updates":[{"claim_id":"c","job":"1.0","event":"exited","time":1,"surprise":1}]}`,
	} {
		var got JobUpdates
		if err := (&Request{HTTP: httptest.NewRequest("POST", "/", strings.NewReader(bad))}).Decode(&got); !IsCode(err, CodeBadRequest) {
			t.Errorf("%s: decoded as %+v, %v; want a bad request", bad, got, err)
		}
	}
}

// The answer to several job ends has each one's outcome in order: the
// next job, nothing, or the error the end alone would have got, with its
// status. It is read back the same whether written by its own encoder or
// by encoding/json, and encoding/json reads what it writes.
func TestJobUpdatesResultJSON(t *testing.T) {
	job := testJob(t)
	r := JobUpdatesResult{Results: []JobUpdateOutcome{
		Outcome(JobUpdateResult{Next: &Activate{ClaimID: "c1", Job: job}}, nil),
		Outcome(nil, nil),
		Outcome(nil, NotFound("job %s does not run under that claim here", "1.2")),
		Outcome(nil, Unavailable("the schedd is reconnecting")),
		Outcome(JobUpdateResult{Next: &Activate{ClaimID: `odd "claim" ü`, Job: job}}, nil),
	}}
	type plain JobUpdatesResult
	own := r.AppendJSON(nil)
	std, err := json.Marshal(plain(r))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range [][]byte{own, std, append(own, '\n')} {
		var back JobUpdatesResult
		if err := back.UnmarshalJSON(text); err != nil || len(back.Results) != len(r.Results) {
			t.Fatalf("%s: read back as %+v, %v", text, back, err)
		}
		for i, o := range back.Results {
			want := r.Results[i]
			if !same(JobUpdateResult{Next: o.Next}, JobUpdateResult{Next: want.Next}) || o.Status != want.Status ||
				(o.Err() == nil) != (want.Err() == nil) || o.Err() != nil && o.Err().Error() != want.Err().Error() {
				t.Errorf("%s: outcome %d read as %+v (%v), want %+v (%v)", text, i, o, o.Err(), want, want.Err())
			}
		}
	}
	var viaReflection plain
	if err := json.Unmarshal(own, &viaReflection); err != nil || len(viaReflection.Results) != len(r.Results) {
		t.Errorf("%s: encoding/json reads %+v, %v", own, viaReflection, err)
	}
	if err := r.Results[2].Err(); !IsCode(err, CodeNotFound) || err.(*Error).Status != http.StatusNotFound {
		t.Errorf("a refused end's error: %#v", err)
	}
	if err := r.Results[3].Err(); err.(*Error).Status != http.StatusServiceUnavailable {
		t.Errorf("an end the schedd could not take: %#v", err)
	}
	var bad JobUpdatesResult
	if err := bad.UnmarshalJSON([]byte(`{"results":[{"next":{"claim_id":"c","job":{"A":}}}]}`)); err == nil {
		t.Errorf("a broken answer read as %+v", bad)
	}
}

// FuzzJobUpdates: whatever a startd (or anyone with its token) sends, the
// hand reader of several job ends never panics and reads only what
// encoding/json reads the same; the answer's reader never panics either,
// and what it reads encoding/json reads with as many outcomes.
func FuzzJobUpdates(f *testing.F) {
	for _, us := range []JobUpdates{{Updates: testUpdates}, {Updates: testUpdates[:2]}} {
		body, _ := encode(us)
		f.Add(body)
	}
	f.Add([]byte(`{"results":[{},{"status":404,"error":{"code":"not_found","message":"m"}},{"next":{"claim_id":"c","job":{"A":1}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var byHand JobUpdates
		if byHand.decodeCanonical(data) {
			var std JobUpdates
			if err := json.Unmarshal(data, &std); err != nil || !reflect.DeepEqual(std.Updates, byHand.Updates) && len(std.Updates)+len(byHand.Updates) > 0 {
				t.Errorf("%q: read by hand as %+v; encoding/json: %+v, %v", data, byHand, std, err)
			}
		}
		var r JobUpdatesResult
		if r.UnmarshalJSON(data) == nil {
			type plain JobUpdatesResult
			var std plain
			if err := json.Unmarshal(data, &std); err == nil && len(std.Results) != len(r.Results) {
				t.Errorf("%q: %d outcomes; encoding/json reads %d", data, len(r.Results), len(std.Results))
			}
		}
	})
}
