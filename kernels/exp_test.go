package kernels

import (
	"math"
	"slices"
	"testing"
)

func TestZigguratTables(t *testing.T) {
	// Marsaglia and Tsang's published base edge for 256 boxes.
	if math.Abs(zigExp.r-7.69711747013104972) > 1e-9 {
		t.Errorf("r = %.17g, want 7.69711747013104972", zigExp.r)
	}
	if math.Abs(zigExp.closure) > 1e-12 {
		t.Errorf("boxes do not tile the density: closure error %g", zigExp.closure)
	}
	for i := 0; i < zigBoxes; i++ {
		if !(zigExp.x[i] > zigExp.x[i+1]) && i > 0 {
			t.Fatalf("box widths not decreasing at %d", i)
		}
		if zigExp.k[i] > 1<<53 {
			t.Fatalf("k[%d] = %d exceeds 2^53", i, zigExp.k[i])
		}
	}
}

// TestExpDistribution: Kolmogorov–Smirnov against Exp(1), plus the tail
// mass beyond r (where the ziggurat switches method) against e^-r.
func TestExpDistribution(t *testing.T) {
	r := TrialStream(11, 0, LaneChoices)
	const N = 1 << 20
	xs := make([]float64, N)
	FillExp(xs, &r, 1)
	slices.Sort(xs)
	d := 0.0
	for i, x := range xs {
		f := 1 - math.Exp(-x)
		d = max(d, math.Abs(f-float64(i)/N), math.Abs(f-float64(i+1)/N))
	}
	// P(√N·D > 1.95) ≈ 0.001 (Kolmogorov distribution).
	if d*math.Sqrt(N) > 1.95 {
		t.Errorf("KS statistic √N·D = %.3f > 1.95", d*math.Sqrt(N))
	}
	// Tail beyond r over 8M draws: binomial count, z-test.
	const M = 1 << 23
	tail := 0
	for range M {
		if r.Exp() > zigExp.r {
			tail++
		}
	}
	p := math.Exp(-zigExp.r)
	if z := (float64(tail) - M*p) / math.Sqrt(M*p*(1-p)); math.Abs(z) > 4.5 {
		t.Errorf("tail beyond r: %d of %d, expected %.0f (z = %.2f)", tail, M, M*p, z)
	}
	// Wedge region of the top box, where every draw needs the exact test:
	// P(x₂₅₅ ... ) is covered by KS; check the mean and variance too.
	mean, m2 := 0.0, 0.0
	for _, x := range xs {
		mean += x
		m2 += x * x
	}
	mean /= N
	v := m2/N - mean*mean
	if z := (mean - 1) / math.Sqrt(1.0/N); math.Abs(z) > 4.5 {
		t.Errorf("mean %.5f, z = %.2f", mean, z)
	}
	// Var of x² is E[x⁴] − 1 = 23 for Exp(1); the sample variance's sd ≈ √(8/N).
	if z := (v - 1) / math.Sqrt(8.0/N); math.Abs(z) > 4.5 {
		t.Errorf("variance %.5f, z = %.2f", v, z)
	}
}
