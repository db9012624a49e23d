package theory

import (
	"math"
	"testing"
)

// One threshold is Two-Thinning's system; a last threshold far below the
// loads (never met) leaves K − 1 samples' worth, and one far above (always
// met) makes the samples after it unreachable.
func TestFluidKThinningReductions(t *testing.T) {
	for _, th := range []float64{0.5, 1, 1.25, -0.5} {
		if d := profileDiff(FluidKThinning([]float64{th}, 4), FluidTwoThinning(th, 4)); d > 1e-9 {
			t.Errorf("θ = %v: K = 2 differs from two-thinning by %g", th, d)
		}
		// A second test that always keeps: K = 3 is K = 2 (to the solver's
		// 1e-8: K = 3 takes smaller steps, Step(3)).
		if d := profileDiff(FluidKThinning([]float64{th, 1e6}, 4), FluidTwoThinning(th, 4)); d > 1e-8 {
			t.Errorf("θ = %v: a second test that always keeps differs from K = 2 by %g", th, d)
		}
	}
	// A first test that never keeps passes every ball to the second sample.
	if d := profileDiff(FluidKThinning([]float64{-1e6, 0.5}, 4), FluidTwoThinning(0.5, 4)); d > 1e-8 {
		t.Errorf("a first test that never keeps differs from K = 2 by %g", d)
	}
	// Mass is conserved: Σ_i s_i = t.
	p := FluidKThinning([]float64{0.5, 1, 0}, 7)
	sum := 0.0
	for i := 1; i <= p.Top(); i++ {
		sum += p.At(i)
	}
	if math.Abs(sum-7) > 1e-6 {
		t.Errorf("Σ s_i = %v, want 7", sum)
	}
}

// k-Threshold's limit reduces as its law does: one offset is Two-Thinning
// with θ = g; a second query no load answers yes (g = 10^6) changes
// nothing; and a first every load answers yes (g = −10^6) puts every bin
// one level up, which changes nothing either. Mass is conserved.
func TestFluidKThresholdReductions(t *testing.T) {
	for _, g := range []float64{0.5, 1, 1.25, -0.5} {
		if d := profileDiff(FluidKThreshold([]float64{g}, 4), FluidTwoThinning(g, 4)); d > 1e-9 {
			t.Errorf("g = %v: one query differs from two-thinning by %g", g, d)
		}
		for _, extra := range []float64{1e6, -1e6} {
			if d := profileDiff(FluidKThreshold([]float64{g, extra}, 4), FluidTwoThinning(g, 4)); d > 1e-8 {
				t.Errorf("g = %v: a query answered alike by every bin (%g) differs by %g", g, extra, d)
			}
		}
	}
	if d := profileDiff(FluidKThreshold([]float64{0, 2}, 4), FluidTwoThinning(0, 4)); d < 1e-3 {
		t.Errorf("a second query at 2 changes the limit by only %g", d)
	}
	p := FluidKThreshold([]float64{0.5, 1, 0}, 7)
	sum := 0.0
	for i := 1; i <= p.Top(); i++ {
		sum += p.At(i)
	}
	if math.Abs(sum-7) > 1e-6 {
		t.Errorf("Σ s_i = %v, want 7", sum)
	}
}

// profileDiff is the largest difference of two profiles over their levels.
func profileDiff(a, b Profile) float64 {
	worst := 0.0
	for i := min(a.Base, b.Base) - 1; i <= max(a.Top(), b.Top())+1; i++ {
		worst = max(worst, math.Abs(a.At(i)-b.At(i)))
	}
	return worst
}
