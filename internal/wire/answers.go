package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/kite-sched/kite/classad"
)

// The answer to a job's end report carries the claim's next job, whole.
// At hundreds of short jobs a second, encoding/json's reflection over it
// and its three passes over the job ad's text (validate, find the end,
// parse) were a tenth of the pool's work for each job. The answer is
// written in one canonical form without reflection (AppendJSON), and read
// back in that form by slicing the job ad out for the ClassAd scanner;
// any other form is read as encoding/json reads it.

// Appender is an answer that writes itself as JSON: AppendJSON appends
// one valid JSON value, which Handle sends as encoding/json would send
// the value.
type Appender interface {
	AppendJSON(buf []byte) []byte
}

// wholeDecoder is an answer that reads itself from the whole body of the
// response, rather than through a json.Decoder (see CallRaw).
type wholeDecoder interface {
	json.Unmarshaler
	wholeAnswer()
}

// AppendJSON appends r as JSON: {"next":{"claim_id":"…","job":{…}}}, or
// {} without a next job.
func (r JobUpdateResult) AppendJSON(buf []byte) []byte {
	if r.Next == nil {
		return append(buf, "{}"...)
	}
	buf = append(buf, `{"next":{"claim_id":`...)
	buf = appendJSONString(buf, r.Next.ClaimID)
	buf = append(buf, `,"job":`...)
	if r.Next.Job == nil {
		buf = append(buf, "null"...)
	} else {
		buf = classad.AppendJSON(buf, r.Next.Job, false)
	}
	return append(buf, "}}"...)
}

// UnmarshalJSON reads r in the form AppendJSON writes quickly, and in any
// other as encoding/json would.
func (r *JobUpdateResult) UnmarshalJSON(data []byte) error {
	if next, ok := canonicalResult(data); ok {
		r.Next = next
		return nil
	}
	type plain JobUpdateResult // without this method
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*r = JobUpdateResult(p)
	return nil
}

func (*JobUpdateResult) wholeAnswer() {}

// canonicalResult reads an answer in the form AppendJSON writes, and
// reports whether it was in that form.
func canonicalResult(data []byte) (*Activate, bool) {
	data = bytes.TrimSpace(data)
	if string(data) == "{}" {
		return nil, true
	}
	const head, tail = `{"next":{"claim_id":"`, `}}`
	if !bytes.HasPrefix(data, []byte(head)) || !bytes.HasSuffix(data, []byte(tail)) {
		return nil, false
	}
	rest := data[len(head) : len(data)-len(tail)]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || !plainString(rest[:end]) {
		return nil, false
	}
	act := &Activate{ClaimID: string(rest[:end])}
	job, ok := bytes.CutPrefix(rest[end+1:], []byte(`,"job":`))
	if !ok {
		return nil, false
	}
	if string(job) == "null" {
		return act, true
	}
	ad, err := classad.ParseJSON(job) // the whole rest, or it is not the form
	if err != nil {
		return nil, false
	}
	act.Job = ad
	return act, true
}

// plainString reports whether b is a JSON string's text that needs no
// unescaping: valid UTF-8 without quotes, backslashes or control bytes.
func plainString(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return utf8.Valid(b)
}

// appendJSONString appends s as a JSON string, as encoding/json writes it.
func appendJSONString(buf []byte, s string) []byte {
	plain := utf8.ValidString(s)
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	if !plain || strings.ContainsRune(s, '\u2028') || strings.ContainsRune(s, '\u2029') {
		q, _ := json.Marshal(s) // a string always encodes
		return append(buf, q...)
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}
