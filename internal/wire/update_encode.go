package wire

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// AppendJSON appends u as encoding/json writes it (the form the schedd
// reads by hand, update_json.go): its fields in order, those marked
// omitempty left out when zero, from the same field list the reader
// uses. A startd writes one at the end of every job, to its schedd and to
// its results log; reflection cost more than the rest of the line. A
// number JSON cannot hold (NaN, ±Inf) is refused as encoding/json
// refuses it.
func (u *JobUpdate) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	var err error
	for i := range updateFields {
		f := &updateFields[i]
		if b, err = appendField(b, i > 0, f.name, f.always, f.at(u)); err != nil {
			return b, err
		}
	}
	if u.Transfers != nil { // maps: rare, and encoding/json sorts their keys
		t, err := json.Marshal(u.Transfers)
		if err != nil {
			return b, err
		}
		b = append(append(b, `,"transfers":`...), t...)
	}
	if a := u.Activation; a != nil {
		b = append(b, `,"activation":{`...)
		for i, f := range activationFields {
			if b, err = appendField(b, i > 0, f.name, true, f.at(a)); err != nil {
				return b, err
			}
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendRequest lets Client.Call send a JobUpdate without reflection.
func (u JobUpdate) appendRequest(b []byte) ([]byte, error) { return u.AppendJSON(b) }

// appendField appends one field, after a comma if comma; a field not
// always written is left out when zero. at is a *string, *int, *int64,
// *bool or *float64.
func appendField(b []byte, comma bool, name string, always bool, at any) ([]byte, error) {
	var zero bool
	switch v := at.(type) {
	case *string:
		zero = *v == ""
	case *int:
		zero = *v == 0
	case *int64:
		zero = *v == 0
	case *bool:
		zero = !*v
	case *float64:
		zero = *v == 0
	default:
		return b, fmt.Errorf("wire: a JobUpdate field of type %T", at)
	}
	if zero && !always {
		return b, nil
	}
	if comma {
		b = append(b, ',')
	}
	b = append(append(append(b, '"'), name...), `":`...)
	switch v := at.(type) {
	case *string:
		return appendJSONString(b, *v), nil
	case *int:
		return strconv.AppendInt(b, int64(*v), 10), nil
	case *int64:
		return strconv.AppendInt(b, *v, 10), nil
	case *bool:
		return strconv.AppendBool(b, *v), nil
	default:
		return AppendJSONFloat(b, *at.(*float64))
	}
}

// AppendJSONFloat appends f as encoding/json writes a float64: as
// ECMAScript formats numbers, with exponents for the very small and large;
// NaN and ±Inf are refused as encoding/json refuses them.
func AppendJSONFloat(b []byte, f float64) ([]byte, error) {
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

// AppendJSONString appends s as a JSON string, as encoding/json writes it.
func AppendJSONString(b []byte, s string) []byte { return appendJSONString(b, s) }
