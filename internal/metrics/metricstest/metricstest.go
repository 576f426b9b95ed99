// Package metricstest checks a daemon's Prometheus metrics in its tests:
// the registry passes the client library's linter (names, suffixes, help
// texts), and GET /metrics answers a READ token with the metrics and
// refuses a request without a token.
package metricstest

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/metrics"
	"github.com/kite-sched/kite/internal/pooltest"
)

// Lint fails the test for every problem the Prometheus linter finds in
// the metrics reg gathers.
func Lint(t testing.TB, reg prometheus.Gatherer) {
	t.Helper()
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatalf("gathering metrics: %v", err)
	}
	for _, p := range problems {
		t.Errorf("metric %s: %s", p.Metric, p.Text)
	}
}

// Scrape fetches GET /metrics from the daemon at addr in the pool with a
// token of the levels given (none: no token) and returns the status and
// the body.
func Scrape(t testing.TB, p *pooltest.Pool, addr string, levels auth.Level) (int, string) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DialContext: p.Network.DialContext}, Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://"+addr+metrics.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if levels != 0 {
		req.Header.Set("Authorization", "Bearer "+p.Token("prometheus", levels))
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", metrics.Path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", metrics.Path, err)
	}
	return resp.StatusCode, string(body)
}

// Check lints reg, checks that docs/metrics.md documents its metrics,
// and checks the daemon's GET /metrics at addr: refused (401) without a
// token, answered with a READ token, and the answer holds a sample of
// each of the metric names want. It returns the answer.
func Check(t testing.TB, p *pooltest.Pool, addr string, reg prometheus.Gatherer, want ...string) string {
	t.Helper()
	Lint(t, reg)
	CheckDocumented(t, reg)
	if code, body := Scrape(t, p, addr, 0); code != http.StatusUnauthorized {
		t.Errorf("GET /metrics without a token: %d %s, want 401", code, body)
	}
	code, body := Scrape(t, p, addr, auth.Read)
	if code != http.StatusOK {
		t.Fatalf("GET /metrics with a READ token: %d %s", code, body)
	}
	for _, name := range want {
		if !HasSample(body, name) {
			t.Errorf("GET /metrics has no sample of %s", name)
		}
	}
	return body
}

// HasSample reports whether a metrics text holds a sample of the metric
// name (with or without labels).
func HasSample(text, name string) bool {
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, name+"{") {
			return true
		}
	}
	return false
}

// Value returns the value of the sample of a metric name whose labels
// include every label="value" pair given, and whether there is one.
func Value(text, name string, labels ...string) (string, bool) {
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, name+" ") && !strings.HasPrefix(line, name+"{") {
			continue
		}
		ok := true
		for _, l := range labels {
			if !strings.Contains(line, l) {
				ok = false
			}
		}
		if ok {
			return line[strings.LastIndexByte(line, ' ')+1:], true
		}
	}
	return "", false
}

// CheckDocumented fails the test for each Kite metric of reg (the go_ and
// process_ metrics aside) that docs/metrics.md does not name in
// backquotes.
func CheckDocumented(t testing.TB, reg prometheus.Gatherer) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gathering metrics: %v", err)
	}
	doc, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		name := f.GetName()
		if strings.HasPrefix(name, metrics.Namespace+"_") && !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("docs/metrics.md does not document `%s`", name)
		}
	}
}

// moduleRoot finds the directory holding go.mod above the test's.
func moduleRoot(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}
