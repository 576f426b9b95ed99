package wire

import (
	"bytes"
	"strconv"
	"strings"
)

// A startd sends a JobUpdate at the end of every job, and the schedd
// reads it: through encoding/json's reflection, in four times the time
// and three times the allocations of reading it by hand. The form encoding/json writes it
// in (its fields in order, empty ones left out) is read by hand, when its
// strings need no unescaping; any other form (another order, spaces,
// transfer counts, escapes) goes through encoding/json as before.

// canonicalDecoder is a request body that may read itself from the form
// encoding/json writes (Request.Decode); false leaves it unchanged, to
// encoding/json.
type canonicalDecoder interface {
	decodeCanonical(data []byte) bool
}

// updateField is one field of a JobUpdate: its JSON name, and where it is
// in a JobUpdate (a *string, *int, *int64, *bool or *float64). Always
// fields are there even when empty (no omitempty).
type updateField struct {
	name   string
	always bool
	at     func(u *JobUpdate) any
}

// updateFields are JobUpdate's fields but Transfers and Activation, in
// order.
var updateFields = [...]updateField{
	{"claim_id", true, func(u *JobUpdate) any { return &u.ClaimID }},
	{"job", true, func(u *JobUpdate) any { return &u.Job }},
	{"event", true, func(u *JobUpdate) any { return &u.Event }},
	{"time", true, func(u *JobUpdate) any { return &u.Time }},
	{"started_at", false, func(u *JobUpdate) any { return &u.StartedAt }},
	{"exit_code", false, func(u *JobUpdate) any { return &u.ExitCode }},
	{"exit_by_signal", false, func(u *JobUpdate) any { return &u.ExitBySignal }},
	{"exit_signal", false, func(u *JobUpdate) any { return &u.ExitSignal }},
	{"wall_seconds", false, func(u *JobUpdate) any { return &u.WallSeconds }},
	{"user_cpu", false, func(u *JobUpdate) any { return &u.UserCPU }},
	{"sys_cpu", false, func(u *JobUpdate) any { return &u.SysCPU }},
	{"peak_memory_mb", false, func(u *JobUpdate) any { return &u.PeakMemoryMB }},
	{"reason", false, func(u *JobUpdate) any { return &u.Reason }},
	{"hold_code", false, func(u *JobUpdate) any { return &u.HoldCode }},
	{"hold_subcode", false, func(u *JobUpdate) any { return &u.HoldSubCode }},
	{"takes_next", false, func(u *JobUpdate) any { return &u.TakesNext }},
	{"checkpoint", false, func(u *JobUpdate) any { return &u.Checkpoint }},
	{"checkpoint_files", false, func(u *JobUpdate) any { return &u.CheckpointFiles }},
}

// activationFields are ActivationTimes' fields, in order.
var activationFields = [...]struct {
	name string
	at   func(a *ActivationTimes) *float64
}{
	{"setup_seconds", func(a *ActivationTimes) *float64 { return &a.SetupSeconds }},
	{"execution_seconds", func(a *ActivationTimes) *float64 { return &a.ExecutionSeconds }},
	{"teardown_seconds", func(a *ActivationTimes) *float64 { return &a.TeardownSeconds }},
}

// decodeCanonical reads u from the form encoding/json writes, and reports
// whether it was in that form; if not, u is unchanged.
func (u *JobUpdate) decodeCanonical(data []byte) bool {
	r := canonicalReader{data: bytes.TrimSpace(data)}
	got, ok := r.update()
	if !ok || r.pos != len(r.data) {
		return false
	}
	*u = got
	return true
}

// update reads a JobUpdate, from its "{" to its "}".
func (r *canonicalReader) update() (JobUpdate, bool) {
	var got JobUpdate
	first := true
	for _, f := range updateFields {
		if !r.key(f.name, first) {
			if f.always {
				return got, false
			}
			continue
		}
		if !r.value(f.at(&got)) {
			return got, false
		}
		first = false
	}
	if r.key("activation", false) {
		got.Activation = &ActivationTimes{}
		for i, f := range activationFields {
			if !r.key(f.name, i == 0) || !r.value(f.at(got.Activation)) {
				return got, false
			}
		}
		if !r.byte('}') {
			return got, false
		}
	}
	return got, r.byte('}')
}

// canonicalReader reads that form: no spaces, known keys in order.
type canonicalReader struct {
	data []byte
	pos  int
}

// byte reads c.
func (r *canonicalReader) byte(c byte) bool {
	if r.pos < len(r.data) && r.data[r.pos] == c {
		r.pos++
		return true
	}
	return false
}

// key reads the key name and its colon, after "{" if first else after
// ","; false reads nothing.
func (r *canonicalReader) key(name string, first bool) bool {
	sep := byte(',')
	if first {
		sep = '{'
	}
	rest := r.data[r.pos:]
	n := 1 + 1 + len(name) + 2
	if len(rest) < n || rest[0] != sep || rest[1] != '"' || string(rest[2:2+len(name)]) != name ||
		rest[2+len(name)] != '"' || rest[3+len(name)] != ':' {
		return false
	}
	r.pos += n
	return true
}

// value reads a value into v (see updateField), as encoding/json would.
func (r *canonicalReader) value(v any) bool {
	if p, ok := v.(*string); ok {
		if !r.byte('"') {
			return false
		}
		end := bytes.IndexByte(r.data[r.pos:], '"')
		if end < 0 || !plainString(r.data[r.pos:r.pos+end]) {
			return false
		}
		*p = string(r.data[r.pos : r.pos+end])
		r.pos += end + 1
		return true
	}
	start := r.pos
	for r.pos < len(r.data) && strings.IndexByte("-+.0123456789eEtrufals", r.data[r.pos]) >= 0 {
		r.pos++
	}
	tok := string(r.data[start:r.pos])
	var err error
	switch p := v.(type) {
	case *bool:
		if tok != "true" && tok != "false" {
			return false
		}
		*p = tok == "true"
	case *int:
		var n int64
		if !jsonInt(tok) {
			return false
		}
		n, err = strconv.ParseInt(tok, 10, strconv.IntSize)
		*p = int(n)
	case *int64:
		if !jsonInt(tok) {
			return false
		}
		*p, err = strconv.ParseInt(tok, 10, 64)
	case *float64:
		if !jsonNumber(tok) {
			return false
		}
		*p, err = strconv.ParseFloat(tok, 64)
	default:
		return false
	}
	return err == nil
}

// jsonInt reports whether s is an integer as JSON writes one, which
// encoding/json reads into an integer field.
func jsonInt(s string) bool {
	return jsonNumber(s) && !strings.ContainsAny(s, ".eE")
}

// jsonNumber reports whether s is a number as JSON writes one:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(s string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
