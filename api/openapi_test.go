package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/openapi"
)

// Every operation of the OpenAPI document is served by the daemons it
// names: asked without a token, a daemon answers each with its own JSON
// (401 unauthenticated, or the answer of a public endpoint), never
// net/http's "404 page not found" of a path it does not route. (The
// other way, every route has an operation, is checked by each daemon's
// tests through pooltest.CheckDocumented; the master, which runs
// processes, is checked there only.)
func TestOpenAPIOperationsAreServed(t *testing.T) {
	hc := &http.Client{Transport: &http.Transport{DialContext: pool.Network.DialContext}}
	addrs := map[string]string{
		openapi.Collector:  pool.Config.Pool.Collector,
		openapi.Negotiator: "negotiator:1",
		openapi.Schedd:     "schedd:1",
		openapi.Startd:     "startd:1",
	}
	for kind, addr := range addrs {
		for _, op := range openapi.Of(kind) {
			method, path, _ := strings.Cut(op.Pattern, " ")
			path = strings.NewReplacer("{name}", "x").Replace(path)
			req, err := http.NewRequestWithContext(context.Background(), method, "http://"+addr+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatalf("%s at the %s: %v", op.Pattern, kind, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct {
				Error struct{ Code string } `json:"error"`
			}
			served := resp.StatusCode < 300 || json.Unmarshal(body, &e) == nil && e.Error.Code != ""
			if !served {
				t.Errorf("the %s does not serve `%s`: %d %q", kind, op.Pattern, resp.StatusCode, body)
			}
		}
	}
}

// The daemons serve the document to anyone, and it describes the
// protocol: the schedd's query streams job ads.
func TestOpenAPIDocumentServed(t *testing.T) {
	hc := &http.Client{Transport: &http.Transport{DialContext: pool.Network.DialContext}}
	resp, err := hc.Get("http://schedd:1" + openapi.PathDocument)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.Paths["/v1/queue/query"]["post"].Responses["200"].Content["application/x-ndjson"] == nil {
		t.Errorf("the document does not stream the queue's ads: %+v", doc.Paths["/v1/queue/query"])
	}
}
