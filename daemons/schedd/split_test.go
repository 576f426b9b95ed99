package schedd

import (
	"strings"
	"testing"

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
		items, err := splitArray([]byte(tt.in))
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
		items, err := splitArray(data)
		var got []*classad.Ad
		if err == nil {
			got, err = parseAll(items)
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
