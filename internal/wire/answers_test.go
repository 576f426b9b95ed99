package wire

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/auth"
)

// reflected is JobUpdateResult as encoding/json sees it, without the
// methods: what its own encoding must agree with.
type reflected JobUpdateResult

func testJob(t *testing.T) *classad.Ad {
	t.Helper()
	ad, err := classad.Parse(`[ ClusterId = 12; ProcId = 3; Cmd = "/bin/true"; Args = "a \"b\" <c> & d\u2028";
		Requirements = TARGET.Memory >= 64 && OpSys == "LINUX"; Env = undefined; Big = 1.5e300; L = {1, "x"} ]`)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

// same reports whether two answers carry the same next job.
func same(a, b JobUpdateResult) bool {
	switch {
	case a.Next == nil || b.Next == nil:
		return a.Next == nil && b.Next == nil
	case a.Next.Job == nil || b.Next.Job == nil:
		return a.Next.ClaimID == b.Next.ClaimID && a.Next.Job == nil && b.Next.Job == nil
	}
	return a.Next.ClaimID == b.Next.ClaimID && classad.Unparse(a.Next.Job) == classad.Unparse(b.Next.Job)
}

// TestJobUpdateResultJSON: the answer's own encoding is the JSON
// encoding/json reads to the same value, and its own decoding reads what
// encoding/json writes, both ways round, whatever the claim id holds.
func TestJobUpdateResultJSON(t *testing.T) {
	job := testJob(t)
	for _, r := range []JobUpdateResult{
		{},
		{Next: &Activate{ClaimID: "c-0123abcd#1", Job: job}},
		{Next: &Activate{ClaimID: `odd "claim" \ <id> & ü` + "\t\u2028", Job: job}},
		{Next: &Activate{ClaimID: "no job"}},
	} {
		own := r.AppendJSON(nil)
		var viaReflection reflected
		if err := json.Unmarshal(own, &viaReflection); err != nil || !same(JobUpdateResult(viaReflection), r) {
			t.Errorf("%s: encoding/json reads %+v, %v", own, viaReflection.Next, err)
		}
		std, err := json.Marshal(reflected(r))
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range [][]byte{own, std, append(own, '\n')} {
			var back JobUpdateResult
			if err := back.UnmarshalJSON(text); err != nil || !same(back, r) {
				t.Errorf("%s: read back as %+v, %v", text, back.Next, err)
			}
		}
	}
}

// TestJobUpdateResultOtherForms: forms the answer's own encoding does not
// write read as encoding/json reads them; broken ones are refused.
func TestJobUpdateResultOtherForms(t *testing.T) {
	tests := []struct {
		text    string
		claim   string // "" no next job
		jobAttr string // an attribute the job must have
		bad     bool
	}{
		{text: ` { } `},
		{text: `{"next":null}`},
		{text: `{"next":{"job":{"ClusterId":1},"claim_id":"c1"}}`, claim: "c1", jobAttr: "ClusterId"},
		{text: `{ "next" : { "claim_id" : "c2" , "job" : { "ProcId" : 0 } } }`, claim: "c2", jobAttr: "ProcId"},
		{text: `{"next":{"claim_id":"c\u00333","job":{"A":1}}}`, claim: "c33", jobAttr: "A"},
		{text: `{"next":{"claim_id":"c4","job":{"A":1}},"later":"a newer schedd's"}`, claim: "c4", jobAttr: "A"},
		{text: `{"next":{"claim_id":"c5","job":{"A":1}}`, bad: true},
		{text: `{"next":{"claim_id":"c6","job":{"A":}}}`, bad: true},
		{text: `{"next":{"claim_id":"c7","job":{"A":1}}}}`, bad: true},
	}
	for _, tt := range tests {
		var r JobUpdateResult
		err := r.UnmarshalJSON([]byte(tt.text))
		var std reflected
		stdErr := json.Unmarshal([]byte(tt.text), &std)
		switch {
		case tt.bad:
			if err == nil || stdErr == nil {
				t.Errorf("%s: read (%v), encoding/json: %v", tt.text, r.Next, stdErr)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", tt.text, err)
			continue
		}
		if !same(r, JobUpdateResult(std)) {
			t.Errorf("%s: read %+v, encoding/json %+v", tt.text, r.Next, std.Next)
		}
		if tt.claim == "" {
			if r.Next != nil {
				t.Errorf("%s: next job %+v", tt.text, r.Next)
			}
			continue
		}
		if r.Next == nil || r.Next.ClaimID != tt.claim || r.Next.Job == nil {
			t.Errorf("%s: next %+v", tt.text, r.Next)
			continue
		}
		if _, ok := r.Next.Job.Lookup(tt.jobAttr); !ok {
			t.Errorf("%s: the job has no %s", tt.text, tt.jobAttr)
		}
	}
}

// TestAppenderAnswers: a handler's Appender answer crosses the wire
// written by itself and read back whole by the client.
func TestAppenderAnswers(t *testing.T) {
	job := testJob(t)
	m := NewMux(ids, nil)
	m.Handle("POST /v1/update", auth.Write, func(ctx context.Context, r *Request) (any, error) {
		return JobUpdateResult{Next: &Activate{ClaimID: "c<1>", Job: job}}, nil
	})
	cl := serveMux(t, NewMemNetwork(), m)("writer")
	var res JobUpdateResult
	if err := cl.Call(context.Background(), "POST", "/v1/update", JobUpdate{Job: "12.3"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Next == nil || res.Next.ClaimID != "c<1>" || res.Next.Job == nil || classad.Unparse(res.Next.Job) != classad.Unparse(job) {
		t.Fatalf("got %+v", res.Next)
	}
	var raw json.RawMessage
	if err := cl.Call(context.Background(), "POST", "/v1/update", JobUpdate{Job: "12.3"}, &raw); err != nil || !strings.HasPrefix(string(raw), `{"next":{"claim_id":"c\u003c1\u003e","job":{`) {
		t.Errorf("the answer as sent: %s %v", raw, err)
	}
}

// TestAppendJSONString: strings are written as encoding/json writes them.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote`, `back\slash`, "tab\t", "nul\x00", "<html>&", "ünï", "bad\xffutf8", "sep\u2028\u2029"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("%q: got %s, want %s", s, got[1:], want)
		}
	}
}

// TestJobUpdateResultsKeepTheirJobs: the answers' bytes are read into a
// buffer that serves the next answer (client.go readWhole), and a job
// decoded from one answer stays as it was after the next one, in both
// the answer's own form and encoding/json's.
func TestJobUpdateResultsKeepTheirJobs(t *testing.T) {
	other, err := classad.Parse(`[ ClusterId = 99; ProcId = 7; Cmd = "/bin/false"; Args = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz" ]`)
	if err != nil {
		t.Fatal(err)
	}
	jobs := []*classad.Ad{testJob(t), other}
	m := NewMux(ids, nil)
	m.Handle("POST /v1/next/{i}", auth.Daemon, func(ctx context.Context, r *Request) (any, error) {
		i := int(r.PathValue("i")[0] - '0')
		res := JobUpdateResult{Next: &Activate{ClaimID: "c#1", Job: jobs[i%2]}}
		if i >= 2 { // encoding/json's form, not the answer's own
			return reflected(res), nil
		}
		return res, nil
	})
	c := serveMux(t, NewMemNetwork(), m)("daemon")
	var got []JobUpdateResult
	for i := range 4 {
		var r JobUpdateResult
		if err := c.Call(context.Background(), "POST", "/v1/next/"+string(rune('0'+i)), nil, &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	for i, r := range got {
		want := JobUpdateResult{Next: &Activate{ClaimID: "c#1", Job: jobs[i%2]}}
		if !same(r, want) {
			t.Errorf("answer %d after the others: %s, want %s", i, classad.Unparse(r.Next.Job), classad.Unparse(jobs[i%2]))
		}
	}
}
