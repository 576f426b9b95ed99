package openapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// The document is OpenAPI 3.0 in structure: its version and info, paths
// of operations each with an id (unique), responses keyed by status or
// "default", declared path parameters, and every $ref resolving to a
// schema of its components (OpenAPI Specification 3.0.3, "Schema").
func TestDocumentValidates(t *testing.T) {
	var d map[string]any
	if err := json.Unmarshal(Document(), &d); err != nil {
		t.Fatal(err)
	}
	if d["openapi"] != "3.0.3" {
		t.Errorf("openapi = %v", d["openapi"])
	}
	info, _ := d["info"].(map[string]any)
	if info["title"] == nil || info["version"] == nil {
		t.Errorf("info lacks title or version: %v", info)
	}
	schemas := d["components"].(map[string]any)["schemas"].(map[string]any)
	ids := map[string]string{}
	methods := []string{"get", "put", "post", "delete", "patch", "head", "options"}
	status := regexp.MustCompile(`^([1-5][0-9][0-9]|default)$`)
	for path, item := range d["paths"].(map[string]any) {
		if !strings.HasPrefix(path, "/") {
			t.Errorf("path %q does not start with /", path)
		}
		for method, o := range item.(map[string]any) {
			op := o.(map[string]any)
			where := method + " " + path
			if !slices.Contains(methods, method) {
				t.Errorf("%s: not an HTTP method", where)
			}
			id, _ := op["operationId"].(string)
			if prev, dup := ids[id]; id == "" || dup {
				t.Errorf("%s: operationId %q (also %s)", where, id, prev)
			}
			ids[id] = where
			resp, _ := op["responses"].(map[string]any)
			if len(resp) == 0 {
				t.Errorf("%s: no responses", where)
			}
			for code, r := range resp {
				if !status.MatchString(code) || r.(map[string]any)["description"] == nil {
					t.Errorf("%s: response %q without a status or a description", where, code)
				}
			}
			declared := map[string]bool{}
			params, _ := op["parameters"].([]any)
			for _, p := range params {
				pm := p.(map[string]any)
				if pm["in"] == "path" {
					declared[pm["name"].(string)] = true
				}
			}
			for _, name := range pathParams(path) {
				if !declared[name] {
					t.Errorf("%s: path parameter %s is not declared", where, name)
				}
			}
		}
	}
	for _, r := range refs(d) {
		name, ok := strings.CutPrefix(r, "#/components/schemas/")
		if _, found := schemas[name]; !ok || !found {
			t.Errorf("$ref %q does not resolve", r)
		}
	}
}

// refs returns every $ref in v.
func refs(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				out = append(out, s)
			}
			out = append(out, refs(x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, refs(x)...)
		}
	}
	return out
}

// The table itself: one entry per route, methods the mux knows, daemons
// by their kind.
func TestOperations(t *testing.T) {
	seen := map[string]bool{}
	for _, op := range Operations {
		method, path, ok := strings.Cut(op.Pattern, " ")
		if !ok || !slices.Contains([]string{"GET", "POST", "PUT"}, method) || !strings.HasPrefix(path, "/") {
			t.Errorf("pattern %q: want METHOD /path", op.Pattern)
		}
		if seen[op.Pattern] {
			t.Errorf("%s: twice", op.Pattern)
		}
		seen[op.Pattern] = true
		if len(op.Daemons) == 0 || op.Summary == "" {
			t.Errorf("%s: no daemons or no summary", op.Pattern)
		}
		for _, d := range op.Daemons {
			if !slices.Contains(every, d) {
				t.Errorf("%s: unknown daemon %q", op.Pattern, d)
			}
		}
	}
}

// Wire types become schemas with their JSON names; fields without
// omitempty are required, embedded structs are flattened.
func TestSchemas(t *testing.T) {
	var d struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `json:"properties"`
				Required   []string       `json:"required"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(Document(), &d); err != nil {
		t.Fatal(err)
	}
	jq := d.Components.Schemas["JobQuery"]
	for _, name := range []string{"ids", "owners", "constraint", "all", "projection", "limit"} {
		if jq.Properties[name] == nil {
			t.Errorf("JobQuery lacks %q: %v", name, jq.Properties)
		}
	}
	if len(jq.Required) != 0 {
		t.Errorf("JobQuery requires %v", jq.Required)
	}
	if got := d.Components.Schemas["ActResult"].Required; !slices.Equal(got, []string{"changed", "denied", "matched"}) {
		t.Errorf("ActResult requires %v", got)
	}
}

func TestCheck(t *testing.T) {
	var all []wire.Route
	for _, op := range Operations {
		all = append(all, wire.Route{Pattern: op.Pattern, Level: op.Level})
	}
	if err := Check(all); err != nil {
		t.Errorf("the table's own routes: %v", err)
	}
	err := Check([]wire.Route{{Pattern: "POST /v1/new", Level: auth.Read}, {Pattern: "POST " + wire.PathAct, Level: auth.Read}})
	for _, want := range []string{"`POST /v1/new` has no entry", "`POST /v1/queue/act` needs READ; internal/openapi says WRITE"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %v; want %q", err, want)
		}
	}
}

// Every daemon serves the document without a token.
func TestServe(t *testing.T) {
	m := wire.NewMux(nil, nil)
	Serve(m)
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, PathDocument, nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != string(Document()) {
		t.Errorf("GET %s: %d %q", PathDocument, rec.Code, rec.Header())
	}
}
