package stats

import (
	"math"
	"testing"
)

// TestByHand: each helper against figures worked by hand, and the
// degenerate cases the callers rely on (0, not NaN).
func TestByHand(t *testing.T) {
	xs := []float64{2, 2, 3, 3} // mean 2.5, Σd² = 1
	if v := Variance(xs, 2.5); v != 1.0/3 {
		t.Errorf("Variance = %v, want 1/3", v)
	}
	if sd := StdDev(xs, 2.5); sd != math.Sqrt(1.0/3) {
		t.Errorf("StdDev = %v, want √(1/3)", sd)
	}
	if se := StdErr(xs, 2.5); se != math.Sqrt(1.0/3/4) {
		t.Errorf("StdErr = %v, want √(1/12)", se)
	}
	// d = −.5, −.5, .5, .5: Σ d_b d_{b−1} = .25 − .25 + .25 = .25, Σd² = 1.
	if r := Lag1(xs, 2.5); r != 0.25 {
		t.Errorf("Lag1 = %v, want 0.25", r)
	}
	// Alternating signs: −.5·.5 three times over Σd² = 1.
	if r := Lag1([]float64{2, 3, 2, 3}, 2.5); r != -0.75 {
		t.Errorf("Lag1 alternating = %v, want -0.75", r)
	}
	for _, short := range [][]float64{nil, {7}} {
		if v, se := Variance(short, 7), StdErr(short, 7); v != 0 || se != 0 {
			t.Errorf("%v: Variance %v, StdErr %v, want 0, 0", short, v, se)
		}
	}
	if r := Lag1([]float64{4, 4, 4}, 4); r != 0 {
		t.Errorf("Lag1 of a constant = %v, want 0", r)
	}
}

// TestSameBitsAsPlainSums: the helpers give the bits of the formulas the
// engines and commands printed before they shared them (seeded outputs
// stay identical): √(Σd²/(n−1)/n) summed in slice order.
func TestSameBitsAsPlainSums(t *testing.T) {
	xs := []float64{0.1, 0.7, 0.30000000000000004, 1e-3, 2.5, 0.2}
	mean := 0.0
	for _, x := range xs {
		mean += x / float64(len(xs))
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	n := float64(len(xs))
	if got, want := StdErr(xs, mean), math.Sqrt(ss/(n-1)/n); got != want {
		t.Errorf("StdErr = %v, want %v bit for bit", got, want)
	}
	if got, want := StdDev(xs, mean), math.Sqrt(ss/(n-1)); got != want {
		t.Errorf("StdDev = %v, want %v bit for bit", got, want)
	}
}
