package plot

import (
	"slices"
	"testing"
)

// A log axis over 2.5–3 decades holds two powers of ten only: it is labelled
// at 1, 2 and 5 × 10^k, not at every integer (the cycle's gap against log t,
// 1.8 to 700, had 23 crowded labels).
func TestLogTicksLabels(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{1.8, 700, []string{"2", "5", "10", "20", "50", "100", "200", "500"}},
		{1, 1e6, []string{"1", "10", "100", "1000", "10000", "1e5", "1e6"}},
		{3, 8, []string{"3", "4", "5", "6", "7", "8"}},
		{1, 100, []string{"1", "2", "5", "10", "20", "50", "100"}},
	} {
		var got []string
		for _, tk := range logTicks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("logTicks(%g, %g) labels %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
}
