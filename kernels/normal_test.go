package kernels

import (
	"math"
	"slices"
	"testing"
)

func TestNormalZigguratTables(t *testing.T) {
	if math.Abs(zigNorm.r-3.6541528853610088) > 1e-9 {
		t.Errorf("r = %.17g, want Marsaglia and Tsang's 3.6541528853610088", zigNorm.r)
	}
	if math.Abs(zigNorm.closure) > 1e-12 {
		t.Errorf("boxes do not tile the density: closure %g", zigNorm.closure)
	}
}

// Kolmogorov–Smirnov against Φ, the mass beyond the ziggurat's base edge r
// (where the tail method takes over) against 2(1 − Φ(r)), and symmetry.
func TestNormalDistribution(t *testing.T) {
	r := TrialStream(12, 0, LaneChoices)
	const N = 1 << 20
	xs := make([]float64, N)
	for i := range xs {
		xs[i] = r.Normal()
	}
	slices.Sort(xs)
	d := 0.0
	for i, x := range xs {
		f := 0.5 * math.Erfc(-x/math.Sqrt2)
		d = max(d, math.Abs(f-float64(i)/N), math.Abs(f-float64(i+1)/N))
	}
	if d*math.Sqrt(N) > 1.95 { // P ≈ 0.001
		t.Errorf("KS statistic √N·D = %.3f > 1.95", d*math.Sqrt(N))
	}
	const M = 1 << 23
	tail, neg := 0, 0
	for range M {
		z := r.Normal()
		if math.Abs(z) > zigNorm.r {
			tail++
		}
		if z < 0 {
			neg++
		}
	}
	p := math.Erfc(zigNorm.r / math.Sqrt2)
	if z := (float64(tail) - M*p) / math.Sqrt(M*p*(1-p)); math.Abs(z) > 4.5 {
		t.Errorf("mass beyond ±r: %d of %d, expected %.0f (z = %.2f)", tail, M, M*p, z)
	}
	if z := (float64(neg) - M/2) / math.Sqrt(M/4); math.Abs(z) > 4.5 {
		t.Errorf("negative draws: %d of %d (z = %.2f)", neg, M, z)
	}
}
