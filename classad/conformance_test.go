package classad_test

import (
	"bufio"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad/batch"
)

// TestConformance runs HTCondor's reference answers (testdata/conformance)
// through the line protocol. Every disagreement must be listed, with its
// reason, in testdata/known-differences.txt, and at least 99.5% of lines
// must agree.
func TestConformance(t *testing.T) {
	cmds := readLines(t, "testdata/conformance/public.in")
	want := readLines(t, "testdata/conformance/public.out")
	if len(cmds) != len(want) {
		t.Fatalf("%d commands but %d answers", len(cmds), len(want))
	}
	known := knownDifferences(t)
	failed := 0
	for i, cmd := range cmds {
		got := batch.Answer(cmd)
		if sameAnswer(want[i], got) {
			if _, ok := known[i+1]; ok {
				t.Errorf("line %d agrees now: remove it from known-differences.txt", i+1)
			}
			continue
		}
		failed++
		if _, ok := known[i+1]; !ok {
			t.Errorf("line %d: %s\n  want: %s\n  got:  %s", i+1, cmd, want[i], got)
		}
	}
	rate := 1 - float64(failed)/float64(len(cmds))
	t.Logf("%d of %d lines agree (%.2f%%)", len(cmds)-failed, len(cmds), 100*rate)
	if rate < 0.995 {
		t.Errorf("agreement %.2f%% is below 99.5%%", 100*rate)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// knownDifferences reads "line N: reason" entries.
func knownDifferences(t *testing.T) map[int]string {
	out := map[int]string{}
	for _, l := range readLines(t, "testdata/known-differences.txt") {
		rest, ok := strings.CutPrefix(l, "line ")
		if !ok {
			continue
		}
		num, reason, _ := strings.Cut(rest, ":")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil || strings.TrimSpace(reason) == "" {
			t.Fatalf("known-differences.txt: bad entry %q (want \"line N: reason\")", l)
		}
		out[n] = reason
	}
	return out
}

// sameAnswer applies the comparison rules of the reference answers: equal
// after removing white space outside string literals, keywords compared
// without case, and reals compared to a relative tolerance of 1e-12.
func sameAnswer(a, b string) bool {
	if a == b {
		return true
	}
	fa, fb := strings.Split(a, "\t"), strings.Split(b, "\t")
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		ta, na := normalize(fa[i])
		tb, nb := normalize(fb[i])
		if ta != tb || len(na) != len(nb) {
			return false
		}
		for j := range na {
			x, y := na[j], nb[j]
			if x != y && !(math.IsNaN(x) && math.IsNaN(y)) && math.Abs(x-y) > 1e-12*math.Max(math.Abs(x), math.Abs(y)) {
				return false
			}
		}
	}
	return true
}

var (
	numberRE  = regexp.MustCompile(`(?i)[-+]?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\.\d+(?:[eE][-+]?\d+)?|inf|nan)`)
	keywordRE = regexp.MustCompile(`(?i)\b(true|false|undefined|error)\b`)
	spaceRE   = regexp.MustCompile(`\s+`)
)

// normalize returns an answer with blanks outside strings removed,
// keywords lower-cased and reals replaced by a marker, and the reals.
func normalize(s string) (string, []float64) {
	var out strings.Builder
	var nums []float64
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); {
		if s[i] == '"' {
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			out.WriteString(s[i:j])
			i = j
			continue
		}
		j := strings.IndexByte(s[i:], '"')
		if j < 0 {
			j = len(s)
		} else {
			j += i
		}
		part := spaceRE.ReplaceAllString(s[i:j], "")
		part = keywordRE.ReplaceAllStringFunc(part, strings.ToLower)
		part = numberRE.ReplaceAllStringFunc(part, func(m string) string {
			f, _ := strconv.ParseFloat(m, 64)
			nums = append(nums, f)
			return "#R"
		})
		out.WriteString(part)
		i = j
	}
	return out.String(), nums
}
