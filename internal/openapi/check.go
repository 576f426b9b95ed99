package openapi

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/kite-sched/kite/internal/wire"
)

// Check returns an error naming each route without an operation in
// Operations, or whose level differs from the operation's.
func Check(routes []wire.Route) error {
	byPattern := map[string]Operation{}
	for _, op := range Operations {
		byPattern[op.Pattern] = op
	}
	var errs []error
	for _, r := range routes {
		op, ok := byPattern[r.Pattern]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("route `%s` has no entry in internal/openapi's Operations", r.Pattern))
		case op.Level != r.Level:
			errs = append(errs, fmt.Errorf("route `%s` needs %s; internal/openapi says %s", r.Pattern, levelName(r.Level), levelName(op.Level)))
		}
	}
	return errors.Join(errs...)
}

// Of returns the operations a daemon of the given kind serves.
func Of(kind string) []Operation {
	var out []Operation
	for _, op := range Operations {
		if slices.Contains(op.Daemons, kind) {
			out = append(out, op)
		}
	}
	return out
}

// Serve adds GET PathDocument to the mux: the document, to anyone.
func Serve(m *wire.Mux) {
	m.HandleRaw("GET "+PathDocument, wire.Public, func(w http.ResponseWriter, r *wire.Request) error {
		w.Header().Set("Content-Type", "application/json")
		_, err := w.Write(Document())
		return err
	})
}
