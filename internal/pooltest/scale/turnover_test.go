package scale

import (
	"testing"
	"time"
)

// The turnover is the mean period between consecutive starts on a slot,
// whatever order the dates come in; a slot with one start has no
// period, and the whole-second dates average out.
func TestTurnover(t *testing.T) {
	tests := []struct {
		name   string
		starts map[string][]int64
		want   Turnover
		rate   float64 // for 100 slots
	}{
		{"none", nil, Turnover{}, 0},
		{"one start a slot", map[string][]int64{"a": {10}, "b": {11}}, Turnover{}, 0},
		{"back to back", map[string][]int64{"a": {100, 0, 200}}, Turnover{Period: 100 * time.Second, Pairs: 2}, 1},
		{"seconds average out", map[string][]int64{"a": {0, 20}, "b": {5, 26}, "c": {7}},
			Turnover{Period: 20500 * time.Millisecond, Pairs: 2}, 100 / 20.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := turnover(tt.starts)
			if got != tt.want {
				t.Errorf("turnover = %+v, want %+v", got, tt.want)
			}
			if r := got.Rate(100); r != tt.rate {
				t.Errorf("rate = %v, want %v", r, tt.rate)
			}
		})
	}
}
