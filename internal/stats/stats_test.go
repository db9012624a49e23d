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
}

// MeanCI is the mean and Student's t half-width: for 2, 2, 3, 3 the mean
// 2.5, sd √(1/3) and t_{0.975,3} = 3.182446305284263 (a table's value).
func TestMeanCIByHand(t *testing.T) {
	m, half := MeanCI([]float64{2, 2, 3, 3})
	want := 3.182446305284263 * math.Sqrt(1.0/3) / 2
	if m != 2.5 || math.Abs(half-want) > 1e-12 {
		t.Errorf("MeanCI = %v ± %v, want 2.5 ± %v", m, half, want)
	}
	if m, half := MeanCI([]float64{7}); m != 7 || half != 0 {
		t.Errorf("MeanCI of one value = %v ± %v, want 7 ± 0", m, half)
	}
}
