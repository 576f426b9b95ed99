package parser

import (
	"os"
	"strings"
	"testing"
)

// machineAd returns the benchmark machine ad in the new syntax and in the
// old, one attribute per line.
func machineAd(b *testing.B) (newSyntax, oldSyntax string) {
	b.Helper()
	src, err := os.ReadFile("../testdata/bench/machine.ad")
	if err != nil {
		b.Fatal(err)
	}
	var old strings.Builder
	for line := range strings.Lines(string(src)) {
		line = strings.TrimSpace(line)
		if line == "[" || line == "]" {
			continue
		}
		old.WriteString(strings.TrimSuffix(line, ";"))
		old.WriteByte('\n')
	}
	return string(src), old.String()
}

// BenchmarkParseRecord parses the machine ad (the tree only; the
// classad package's BenchmarkParseMachineAd makes an Ad of it too).
func BenchmarkParseRecord(b *testing.B) {
	src, _ := machineAd(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := ParseRecord(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseOld parses the machine ad in the old syntax, through
// participle's document grammar.
func BenchmarkParseOld(b *testing.B) {
	_, src := machineAd(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := ParseOld(src); err != nil {
			b.Fatal(err)
		}
	}
}
