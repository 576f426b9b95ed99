package startd

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/internal/wire"
)

// The results log gets a line for every job that ends and another once
// its schedd has the result. encoding/json, which goes by reflection, cost
// a short job more than writing the line; appendResultLine writes the
// bytes json.Marshal would, field by field (results_test.go compares the
// two for every field of wire.JobUpdate, so that a field added there
// without being added here fails the tests rather than go missing from
// the log).

// appendResultLine appends rl as json.Marshal encodes it.
func appendResultLine(b []byte, rl resultLine) ([]byte, error) {
	b = append(b, '{')
	var err error
	sep := false
	if rl.Keep != nil {
		b = append(b, `"keep":`...)
		if b, err = appendResult(b, rl.Keep); err != nil {
			return b, err
		}
		sep = true
	}
	b = jsonField(b, &sep, "forget_claim", rl.Claim)
	b = jsonField(b, &sep, "forget_job", rl.Job)
	return append(b, '}'), nil
}

// appendResult appends a kept result.
func appendResult(b []byte, r *result) ([]byte, error) {
	b = append(b, `{"schedd":`...)
	b = appendJSONString(b, r.Schedd)
	sep := true
	b = jsonField(b, &sep, "pool", r.Pool)
	b = append(b, `,"update":`...)
	b, err := appendJobUpdate(b, &r.Update)
	if err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

// appendJobUpdate appends a job's event, its fields in wire.JobUpdate's
// order, those marked omitempty left out when zero.
func appendJobUpdate(b []byte, u *wire.JobUpdate) ([]byte, error) {
	b = append(b, `{"claim_id":`...)
	b = appendJSONString(b, u.ClaimID)
	b = append(b, `,"job":`...)
	b = appendJSONString(b, u.Job)
	b = append(b, `,"event":`...)
	b = appendJSONString(b, u.Event)
	b = append(b, `,"time":`...)
	b = strconv.AppendInt(b, u.Time, 10)
	b = jsonInt(b, "started_at", u.StartedAt)
	b = jsonInt(b, "exit_code", int64(u.ExitCode))
	b = jsonBool(b, "exit_by_signal", u.ExitBySignal)
	b = jsonInt(b, "exit_signal", int64(u.ExitSignal))
	var err error
	for _, f := range [...]struct {
		name string
		v    float64
	}{{"wall_seconds", u.WallSeconds}, {"user_cpu", u.UserCPU}, {"sys_cpu", u.SysCPU}} {
		if f.v != 0 {
			b = append(append(append(b, ",\""...), f.name...), "\":"...)
			if b, err = appendJSONFloat(b, f.v); err != nil {
				return b, err
			}
		}
	}
	b = jsonInt(b, "peak_memory_mb", u.PeakMemoryMB)
	sep := true
	b = jsonField(b, &sep, "reason", u.Reason)
	b = jsonInt(b, "hold_code", int64(u.HoldCode))
	b = jsonInt(b, "hold_subcode", int64(u.HoldSubCode))
	b = jsonBool(b, "takes_next", u.TakesNext)
	b = jsonInt(b, "checkpoint", int64(u.Checkpoint))
	b = jsonField(b, &sep, "checkpoint_files", u.CheckpointFiles)
	if u.Transfers != nil { // maps: rare, and json.Marshal sorts their keys
		t, err := json.Marshal(u.Transfers)
		if err != nil {
			return b, err
		}
		b = append(append(b, `,"transfers":`...), t...)
	}
	if a := u.Activation; a != nil {
		b = append(b, `,"activation":{"setup_seconds":`...)
		b, err = appendJSONFloat(b, a.SetupSeconds)
		if err == nil {
			b = append(b, `,"execution_seconds":`...)
			b, err = appendJSONFloat(b, a.ExecutionSeconds)
		}
		if err == nil {
			b = append(b, `,"teardown_seconds":`...)
			b, err = appendJSONFloat(b, a.TeardownSeconds)
		}
		if err != nil {
			return b, err
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// jsonField appends a string field marked omitempty, after a comma if
// *sep; it sets *sep once a field is written.
func jsonField(b []byte, sep *bool, name, v string) []byte {
	if v == "" {
		return b
	}
	if *sep {
		b = append(b, ',')
	}
	*sep = true
	b = append(append(append(b, '"'), name...), `":`...)
	return appendJSONString(b, v)
}

// jsonInt appends an integer field marked omitempty, after a comma.
func jsonInt(b []byte, name string, v int64) []byte {
	if v == 0 {
		return b
	}
	b = append(append(append(b, ",\""...), name...), `":`...)
	return strconv.AppendInt(b, v, 10)
}

// jsonBool appends a boolean field marked omitempty, after a comma.
func jsonBool(b []byte, name string, v bool) []byte {
	if !v {
		return b
	}
	return append(append(append(b, ",\""...), name...), `":true`...)
}

// appendJSONString appends s quoted as json.Marshal quotes it: printable
// ASCII but for the characters it escapes goes as it is; anything else is
// left to json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(strings.Clone(s)) // a string always encodes; the copy keeps s on the stack
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// appendJSONFloat appends f as json.Marshal encodes a float64: as
// ECMAScript formats numbers, exponents for the very small and large.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-07 as e-7
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
