package policy

import "testing"

// The combined strategy raises fair_level when the job types or the
// nodes are too alike: paper 000 (§4.2 step 3) to 0.5 below a runtime
// index spread of 4 or an R span (Q0.9 - Q0.1) of 4, to 0.9 at a spread
// of 0 or a span below 2; the dissertation (section 3.3.6 step 4) to
// 0.33 below 0.5 or 0.4, to 0.67 at 0 or below 0.2.
func TestFairRaise(t *testing.T) {
	tests := []struct {
		raise             string
		fair, diff, major float64
		want              float64
	}{
		{"paper000", 0, 16, 8, 0},
		{"paper000", 0, 3, 8, 0.5},
		{"paper000", 0, 16, 3.9, 0.5},
		{"paper000", 0, 0, 8, 0.9},
		{"paper000", 0, 16, 1.9, 0.9},
		{"paper000", 0.95, 0, 1, 0.95},
		{"dissertation", 0, 16, 8, 0},
		{"dissertation", 0, 3, 8, 0},
		{"dissertation", 0, 16, 3.9, 0},
		{"dissertation", 0.1, 16, 0.39, 0.33},
		{"dissertation", 0.1, 0, 8, 0.67},
		{"dissertation", 0.1, 16, 0.19, 0.67},
		{"dissertation", 0.8, 0, 0, 0.8},
	}
	for _, tt := range tests {
		if got := fairRaises[tt.raise].level(tt.fair, tt.diff, tt.major); got != tt.want {
			t.Errorf("%s: fair_level %g, spread %g, R span %g: raised to %g, want %g", tt.raise, tt.fair, tt.diff, tt.major, got, tt.want)
		}
	}
	j, err := NewWith("joschka-combined", Params{"fair_raise": "dissertation"})
	if err != nil || j.(*JoSchKa).raise != fairRaises["dissertation"] {
		t.Errorf("fair_raise = dissertation: %v, %v", j, err)
	}
	if _, err := NewWith("joschka-combined", Params{"fair_raise": "2008"}); err == nil {
		t.Error(`fair_raise = "2008": want an error`)
	}
	if _, err := NewWith("joschka-balanced", Params{"fair_raise": "dissertation"}); err == nil {
		t.Error("fair_raise on balanced: want an error")
	}
}
