package adarray

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kite-sched/kite/classad"
)

func TestSplitArray(t *testing.T) {
	tests := []struct {
		in  string
		n   int
		err string
	}{
		{`[]`, 0, ""},
		{` [ {"a": 1} , {"b": "}]\"{"} ]  `, 2, ""},
		{`[{"a": {"b": [1, {"c": 2}]}}]`, 1, ""},
		{`{"a": 1}`, 0, "not a JSON array"},
		{`[{"a": 1}`, 0, "does not end"},
		{`[{"a": 1} {"b": 2}]`, 0, "expected , or ]"},
		{`[{"a": "x]`, 0, "a string does not end"},
		{`[{"a": 1}] x`, 0, "data after the array"},
		{`[1]`, 0, "expected an object"},
	}
	for _, tt := range tests {
		items, err := Split([]byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || len(items) != tt.n {
			t.Errorf("%s: %d items, %v", tt.in, len(items), err)
		}
	}
}

// Splitting then parsing reads what the array parser reads.
func FuzzSplitArray(f *testing.F) {
	f.Add([]byte(`[{"A": 1, "B": "x}"}, {"C": [1, 2]}]`))
	f.Add([]byte(`[ ]`))
	f.Add([]byte(`[{"A": "\/Expr(a + b)\/"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, _, werr := classad.ParseJSONArray(data)
		items, err := Split(data)
		var got []*classad.Ad
		if err == nil {
			got, err = ParseAll(items)
		}
		if (err == nil) != (werr == nil) {
			if werr == nil {
				t.Fatalf("split refused what the array parser reads: %v", err)
			}
			return // the splitter may accept shapes the parser then refuses item by item
		}
		if err == nil {
			for i := range got {
				if got[i].String() != want[i].String() {
					t.Fatalf("ad %d: %s, want %s", i, got[i], want[i])
				}
			}
		}
	})
}

// Read counts the ads as the body streams in: braces and brackets in
// strings are not ads, and a body with one too many is refused before the
// rest is read (the reader here fails past the limit's ad).
func TestReadCounts(t *testing.T) {
	tests := []struct {
		name, body string
		limit      int
		tooMany    bool
	}{
		{"within", `[{"a":1},{"b":"{[}"}]`, 2, false},
		{"strings are not ads", `[{"a":"{\"x\":{}}"}]`, 1, false},
		{"one too many", `[{"a":1},{"b":2},{"c":3}]`, 2, true},
		{"nested objects are not ads", `[{"a":{"b":{"c":1}}}]`, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf, err := Read(strings.NewReader(tt.body), 0, 1<<20, tt.limit)
			if tt.tooMany {
				if !errors.Is(err, ErrTooMany) {
					t.Fatalf("got %v, want ErrTooMany", err)
				}
				return
			}
			if err != nil || string(buf) != tt.body {
				t.Fatalf("got %q %v", buf, err)
			}
		})
	}
	broken := io.MultiReader(strings.NewReader(`[{"a":1},{"b":2}`), iotest.ErrReader(errors.New("the rest was read")))
	if _, err := Read(broken, 0, 1<<20, 1); !errors.Is(err, ErrTooMany) {
		t.Fatalf("a body past the limit was read on: %v", err)
	}
}
