package plot

import (
	"math"
	"slices"
	"testing"
)

func TestRoundTicks(t *testing.T) {
	labels := func(lo, hi float64, log bool) []string {
		var out []string
		for _, tk := range (roundTicks{log: log}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, c := range []struct {
		lo, hi float64
		log    bool
		want   []string
	}{
		{0, 23, false, []string{"0", "5", "10", "15", "20"}},
		{1.3, 2.9, false, []string{"1.4", "1.6", "1.8", "2.0", "2.2", "2.4", "2.6", "2.8"}},
		{-3.2, 4.1, false, []string{"−3", "−2", "−1", "0", "1", "2", "3", "4"}},
		{0, 2e6, false, []string{"0", "5e5", "1e6", "1.5e6", "2e6"}},
		{200, 10000, true, []string{"200", "500", "1000", "2000", "5000", "10000"}},
		{10, 1e8, true, []string{"10", "100", "1000", "10000", "1e5", "1e6", "1e7", "1e8"}},
		{3, 8, true, []string{"3", "4", "5", "6", "7", "8"}},
		{0.92, 17.4, true, []string{"1", "2", "5", "10"}},
		{3, 13, true, []string{"3", "4", "5", "6", "7", "8", "9", "10"}},
	} {
		if got := labels(c.lo, c.hi, c.log); !slices.Equal(got, c.want) {
			t.Errorf("ticks %v–%v (log %v): %q, want %q", c.lo, c.hi, c.log, got, c.want)
		}
	}
}

// 22 series get 22 colours; the 23rd repeats the first, dashed.
func TestPaletteTwentyTwoColours(t *testing.T) {
	seen := map[[3]uint8]bool{}
	for k := range 22 {
		c := seriesColor(k)
		seen[[3]uint8{c.R, c.G, c.B}] = true
		if len(seriesDashes(k)) != 0 {
			t.Errorf("series %d is dashed", k)
		}
	}
	if len(seen) != 22 || seriesColor(22) != seriesColor(0) || len(seriesDashes(22)) == 0 || texDash(22) == texDash(0) {
		t.Errorf("%d colours; series 22 dashed %v", len(seen), seriesDashes(22))
	}
}

// logTicks refuses any range a log axis cannot show, rather than loop over
// ticks from 10^MinInt.
func TestLogTicksRefuseBadRanges(t *testing.T) {
	for _, r := range [][2]float64{{-0.5, 1.5}, {0, 1}, {math.NaN(), 1}, {1, math.Inf(1)}} {
		if ticks := logTicks(r[0], r[1]); ticks != nil {
			t.Errorf("logTicks(%g, %g) = %d ticks, want none", r[0], r[1], len(ticks))
		}
	}
}
