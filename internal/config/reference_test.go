package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/config.md is what Reference writes: the configuration reference
// cannot drift from the structs and the defaults. UPDATE=1 rewrites it.
func TestReferenceUpToDate(t *testing.T) {
	var b bytes.Buffer
	if err := Reference(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "config.md")
	if os.Getenv("UPDATE") != "" {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, b.Bytes()) {
		t.Errorf("docs/config.md differs from what the generator writes: run go generate ./internal/config (or UPDATE=1 go test ./internal/config)")
	}
}

// The reference documents every key and every table, each key with its
// type, default and environment variable.
func TestReferenceCoversEveryKey(t *testing.T) {
	var b bytes.Buffer
	if err := Reference(&b); err != nil {
		t.Fatal(err)
	}
	ref := b.String()
	for _, key := range Default().Keys() {
		if !strings.Contains(ref, "### `"+key+"`\n\n") {
			t.Errorf("no entry for %s", key)
		}
		if !strings.Contains(ref, "environment `"+EnvName(key)+"`") {
			t.Errorf("no environment variable for %s", key)
		}
	}
	for _, table := range []string{"[negotiator.limits]", "[startd.attributes]", "[startd.slot_types.NAME]", "[startd.sita.hosts]"} {
		if !strings.Contains(ref, "### `"+table+"`") {
			t.Errorf("no entry for %s", table)
		}
	}
	for _, want := range []string{
		"### `collector.ad_lifetime`\n\nduration; default `\"15m0s\"` (HTCondor's CLASSAD_LIFETIME); environment `KITE_COLLECTOR_AD_LIFETIME`.\n\n`ad_lifetime` is how long an ad lives",
		"### `startd.memory`\n\ninteger; default `0` (MiB; 0: detect); environment `KITE_STARTD_MEMORY`.\n\nSee `startd.cpus` above.",
		"### `tls.cert`\n\nstring; default `\"\"`; environment `KITE_TLS_CERT`.\n\nServer certificate file (PEM).",
		"## `[pool]`\n\n`[pool]` is what every host of a pool shares",
	} {
		if !strings.Contains(ref, want) {
			t.Errorf("the reference lacks %q", want)
		}
	}
}

func TestLineComment(t *testing.T) {
	for line, want := range map[string]string{
		`a = 1  # one`:             "one",
		`a = "x # not" # yes`:      "yes",
		`a = 'y # no'`:             "",
		`a = "q\" # still"  # end`: "end",
		`# a whole line`:           "a whole line",
	} {
		if got := lineComment(line); got != want {
			t.Errorf("lineComment(%q) = %q, want %q", line, got, want)
		}
	}
}
