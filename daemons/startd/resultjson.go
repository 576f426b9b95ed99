package startd

import "github.com/kite-sched/kite/internal/wire"

// The results log gets a line for every job that ends and another once
// its schedd has the result. encoding/json, which goes by reflection, cost
// a short job more than writing the line; appendResultLine writes the
// bytes json.Marshal would, field by field, the job's event with
// wire.JobUpdate.AppendJSON (resultjson_test.go compares the two for every
// field of wire.JobUpdate, so that a field added there without being
// added to its encoder fails the tests rather than go missing from the
// log).

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
	b = wire.AppendJSONString(b, r.Schedd)
	sep := true
	b = jsonField(b, &sep, "pool", r.Pool)
	b = append(b, `,"update":`...)
	b, err := r.Update.AppendJSON(b)
	if err != nil {
		return b, err
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
	return wire.AppendJSONString(b, v)
}
