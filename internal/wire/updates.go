package wire

import (
	"bytes"
	"encoding/json"

	"github.com/kite-sched/kite/classad/parser"
)

// MaxJobUpdates bounds the events of one JobUpdates.
const MaxJobUpdates = 256

// JobUpdates carries several jobs' last events in one request
// (PathJobUpdates). A startd gathers the job ends bound for a schedd while
// its exchange with that schedd is in flight and sends them together: one
// exchange, and one commit at the schedd, for all of them rather than one
// each.
type JobUpdates struct {
	Updates []JobUpdate `json:"updates"`
}

// appendRequest writes us as encoding/json would, each update by
// JobUpdate.AppendJSON.
func (us JobUpdates) appendRequest(b []byte) ([]byte, error) {
	if us.Updates == nil {
		return append(b, `{"updates":null}`...), nil
	}
	b = append(b, `{"updates":[`...)
	for i := range us.Updates {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = us.Updates[i].AppendJSON(b); err != nil {
			return b, err
		}
	}
	return append(b, "]}"...), nil
}

// decodeCanonical reads us from the form appendRequest writes, each
// update as JobUpdate reads itself; any other form is left to
// encoding/json.
func (us *JobUpdates) decodeCanonical(data []byte) bool {
	r := canonicalReader{data: bytes.TrimSpace(data)}
	const head = `{"updates":[`
	if !bytes.HasPrefix(r.data, []byte(head)) {
		return false
	}
	r.pos = len(head)
	var got []JobUpdate
	for !r.byte(']') {
		if len(got) > 0 && !r.byte(',') {
			return false
		}
		u, ok := r.update()
		if !ok {
			return false
		}
		got = append(got, u)
	}
	if !r.byte('}') || r.pos != len(r.data) {
		return false
	}
	us.Updates = got
	return true
}

// JobUpdatesResult answers a JobUpdates: one outcome for each update, in
// the same order.
type JobUpdatesResult struct {
	Results []JobUpdateOutcome `json:"results"`
}

// JobUpdateOutcome is what became of one update of a JobUpdates: what
// PathJobUpdate would have answered to it alone.
type JobUpdateOutcome struct {
	// Next is the claim's next job, as in JobUpdateResult.
	Next *Activate `json:"next,omitempty"`
	// Status and Error say why the update was refused (Status is the
	// HTTP status PathJobUpdate would have answered); both are empty when
	// it was taken.
	Status int    `json:"status,omitempty"`
	Error  *Error `json:"error,omitempty"`
}

// Err returns the outcome's error, as Client.Call would have returned it
// for the update alone, or nil.
func (o *JobUpdateOutcome) Err() error {
	if o.Error == nil {
		return nil
	}
	e := *o.Error
	e.Status = o.Status
	return &e
}

// Outcome is what became of an update whose handler answered ans (nil,
// or a JobUpdateResult), or failed with err.
func Outcome(ans any, err error) JobUpdateOutcome {
	if err == nil {
		res, _ := ans.(JobUpdateResult)
		return JobUpdateOutcome{Next: res.Next}
	}
	e := asError(err)
	return JobUpdateOutcome{Status: e.Status, Error: e}
}

// AppendJSON appends r as encoding/json would write it, each taken
// update's outcome as JobUpdateResult writes itself.
func (r JobUpdatesResult) AppendJSON(buf []byte) []byte {
	buf = append(buf, `{"results":[`...)
	for i := range r.Results {
		if i > 0 {
			buf = append(buf, ',')
		}
		o := &r.Results[i]
		if o.Error == nil {
			buf = JobUpdateResult{Next: o.Next}.AppendJSON(buf)
			continue
		}
		b, err := json.Marshal(o) // rare: a refused update
		if err != nil {
			b, _ = json.Marshal(JobUpdateOutcome{Status: o.Status, Error: asError(err)})
		}
		buf = append(buf, b...)
	}
	return append(buf, "]}"...)
}

// UnmarshalJSON reads r; each outcome in the form JobUpdateResult's
// AppendJSON writes is read as JobUpdateResult reads it, without
// reflection, any other as encoding/json would.
func (r *JobUpdatesResult) UnmarshalJSON(data []byte) error {
	if results, ok := canonicalResults(data); ok {
		r.Results = results
		return nil
	}
	type plain JobUpdatesResult // without this method
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*r = JobUpdatesResult(p)
	return nil
}

func (*JobUpdatesResult) wholeAnswer() {}

// canonicalResults reads the form AppendJSON writes, and reports whether
// data was in it.
func canonicalResults(data []byte) ([]JobUpdateOutcome, bool) {
	data = bytes.TrimSpace(data)
	const head, tail = `{"results":[`, "]}"
	if !bytes.HasPrefix(data, []byte(head)) || !bytes.HasSuffix(data, []byte(tail)) {
		return nil, false
	}
	var out []JobUpdateOutcome
	pos, end := len(head), len(data)-len(tail)
	for pos < end {
		if len(out) > 0 {
			if data[pos] != ',' {
				return nil, false
			}
			pos++
		}
		if pos >= end || data[pos] != '{' {
			return nil, false
		}
		next := parser.ObjectEnd(data[:end], pos)
		if next < 0 {
			return nil, false
		}
		var o JobUpdateOutcome
		if act, ok := canonicalResult(data[pos:next]); ok {
			o.Next = act
		} else if err := json.Unmarshal(data[pos:next], &o); err != nil {
			return nil, false
		}
		out = append(out, o)
		pos = next
	}
	return out, true
}
