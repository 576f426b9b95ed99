package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// Document returns the OpenAPI 3 document of Operations, as JSON.
func Document() []byte {
	docOnce.Do(func() {
		b, err := json.MarshalIndent(build(Operations), "", "  ")
		if err != nil {
			// Every value of the document is a map, slice or string the
			// code below makes: this cannot fail.
			panic(fmt.Sprintf("openapi: %v", err))
		}
		doc = b
	})
	return doc
}

var (
	docOnce sync.Once
	doc     []byte
)

type obj = map[string]any

// build makes the document of ops.
func build(ops []Operation) obj {
	g := &gen{schemas: obj{}}
	g.schemas["Ad"] = obj{"type": "object", "additionalProperties": true,
		"description": "A ClassAd in HTCondor's JSON form: literals as JSON values, null for UNDEFINED, other expressions as the string \"\\/Expr(<expression>)\\/\"."}
	g.schemas["Object"] = obj{"type": "object", "additionalProperties": true, "description": "An object of the daemon's own (see its documentation)."}
	g.schemas["Error"] = obj{"type": "object", "required": []string{"error"}, "properties": obj{"error": obj{
		"type": "object", "required": []string{"code", "message"},
		"properties": obj{"code": obj{"type": "string", "enum": []string{wire.CodeBadRequest, wire.CodeUnauthenticated,
			wire.CodeForbidden, wire.CodeNotFound, wire.CodeConflict, wire.CodeTooLarge, wire.CodeUnavailable, wire.CodeInternal}},
			"message": obj{"type": "string"}}}}}
	paths := obj{}
	for _, op := range ops {
		method, path, _ := strings.Cut(op.Pattern, " ")
		item, _ := paths[path].(obj)
		if item == nil {
			item = obj{}
			paths[path] = item
		}
		item[strings.ToLower(method)] = g.operation(op, method, path)
	}
	return obj{
		"openapi": "3.0.3",
		"info": obj{"title": "Kite", "version": "v1",
			"description": "Kite's HTTP/JSON protocol (docs/protocol.md): every daemon serves its endpoints under /v1/ with a bearer token; x-kite-daemons says which daemons serve an operation, x-kite-level the level its token needs."},
		"paths": paths,
		"components": obj{
			"schemas":         g.schemas,
			"securitySchemes": obj{"bearer": obj{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}},
		},
	}
}

// gen collects the schemas of named types as it meets them.
type gen struct{ schemas obj }

func (g *gen) operation(op Operation, method, path string) obj {
	o := obj{
		"operationId":    operationID(method, path),
		"summary":        op.Summary,
		"tags":           op.Daemons,
		"x-kite-daemons": op.Daemons,
		"x-kite-level":   levelName(op.Level),
	}
	if op.Level == wire.Public {
		o["security"] = []any{}
	} else {
		o["security"] = []any{obj{"bearer": []string{}}}
	}
	var params []any
	for _, name := range pathParams(path) {
		params = append(params, obj{"name": name, "in": "path", "required": true, "schema": obj{"type": "string"}})
	}
	for _, q := range op.Query {
		params = append(params, obj{"name": q.Name, "in": "query", "required": q.Required, "description": q.Description, "schema": obj{"type": "string"}})
	}
	if params != nil {
		o["parameters"] = params
	}
	switch {
	case op.Request != nil:
		o["requestBody"] = obj{"required": true, "content": obj{"application/json": obj{"schema": g.schema(reflect.TypeOf(op.Request))}}}
	case op.RawRequest != "":
		o["requestBody"] = obj{"required": true, "content": obj{op.RawRequest: obj{"schema": obj{"type": "string", "format": "binary"}}}}
	}
	o["responses"] = g.responses(op)
	return o
}

func (g *gen) responses(op Operation) obj {
	errs := obj{"description": "the request failed", "content": obj{"application/json": obj{"schema": ref("Error")}}}
	var ok obj
	switch {
	case op.Upgrade:
		return obj{"101": obj{"description": "switched to Kite's framed shell protocol"}, "default": errs}
	case op.Stream:
		item := g.schema(reflect.TypeOf(op.Response))
		line := obj{"type": "object", "description": "one line of the stream: an item, then {\"end\": true}, or {\"error\": ...} if the server failed part way",
			"properties": obj{"item": item, "end": obj{"type": "boolean"}, "error": g.schemas["Error"].(obj)["properties"].(obj)["error"]}}
		ok = obj{"200": obj{"description": "a stream of items, one JSON object per line", "content": obj{"application/x-ndjson": obj{"schema": line}}}}
	case op.Response != nil:
		ok = obj{"200": obj{"description": "the answer", "content": obj{"application/json": obj{"schema": g.schema(reflect.TypeOf(op.Response))}}}}
	case op.RawResponse != "":
		ok = obj{"200": obj{"description": "the answer", "content": obj{op.RawResponse: obj{"schema": obj{"type": "string"}}}}}
	default:
		ok = obj{"204": obj{"description": "done"}}
	}
	ok["default"] = errs
	return ok
}

// operationID is a name for an operation: "post_v1_queue_query".
func operationID(method, path string) string {
	id := strings.ToLower(method) + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		case r == '{' || r == '}':
			return -1
		}
		return '_'
	}, path)
	return strings.TrimRight(id, "_")
}

// pathParams returns the {wildcards} of a path.
func pathParams(path string) []string {
	var out []string
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, strings.TrimSuffix(strings.Trim(seg, "{}"), "..."))
		}
	}
	return out
}

func levelName(l auth.Level) string {
	if l == wire.Public {
		return "PUBLIC"
	}
	return l.String()
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

var (
	adType      = reflect.TypeFor[Ad]()
	classadType = reflect.TypeFor[classad.Ad]()
	objectType  = reflect.TypeFor[Object]()
	rawType     = reflect.TypeFor[json.RawMessage]()
	timeType    = reflect.TypeFor[time.Time]()
	durType     = reflect.TypeFor[time.Duration]()
)

// schema returns the JSON schema of t as encoding/json writes it; named
// structs become components, referred to by name.
func (g *gen) schema(t reflect.Type) obj {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case adType, classadType:
		return ref("Ad")
	case objectType:
		return ref("Object")
	case rawType:
		return obj{"description": "any JSON value"}
	case timeType:
		return obj{"type": "string", "format": "date-time"}
	case durType:
		return obj{"type": "integer", "description": "nanoseconds"}
	}
	switch t.Kind() {
	case reflect.Bool:
		return obj{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return obj{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return obj{"type": "number"}
	case reflect.String:
		return obj{"type": "string"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return obj{"type": "string", "format": "byte"}
		}
		return obj{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return obj{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.Struct:
		return g.structSchema(t)
	}
	return obj{"description": "any JSON value"}
}

func (g *gen) structSchema(t reflect.Type) obj {
	name := t.Name()
	if name == "" {
		return g.object(t)
	}
	name = strings.ToUpper(name[:1]) + name[1:]
	if _, ok := g.schemas[name]; !ok {
		g.schemas[name] = obj{} // placeholder for recursive types
		g.schemas[name] = g.object(t)
	}
	return ref(name)
}

// object is the schema of a struct's fields, embedded ones flattened.
func (g *gen) object(t reflect.Type) obj {
	props := obj{}
	var required []string
	g.fields(t, props, &required)
	sort.Strings(required)
	o := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

func (g *gen) fields(t reflect.Type, props obj, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(ft, props, required)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.schema(f.Type)
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}
