package theory

import (
	"math"
	"testing"
)

// The closed form for d = 2 against the integral of the tail, and the
// limits the tail has: λ → 0 is the minimum of d unit exponentials (1/d).
func TestRedundancyResponse(t *testing.T) {
	for _, l := range []float64{0.1, 0.5, 0.8, 0.9, 0.99} {
		closed, num := RedundancyResponse(l, 2), RedundancyResponseIntegral(l, 2)
		if math.Abs(closed-num) > 1e-9*closed {
			t.Errorf("λ = %g: closed form %.12g, integral %.12g", l, closed, num)
		}
	}
	for _, d := range []int{2, 3, 5} {
		if got := RedundancyResponse(1e-6, d); math.Abs(got-1/float64(d)) > 1e-5 {
			t.Errorf("d = %d, λ → 0: E[T] = %g, want 1/d", d, got)
		}
	}
	// More copies respond faster at the same load.
	if !(RedundancyResponse(0.9, 3) < RedundancyResponse(0.9, 2) && RedundancyResponse(0.9, 2) < RedundancyResponse(0.9, 1)) {
		t.Errorf("E[T] not decreasing in d at λ = 0.9")
	}
}
