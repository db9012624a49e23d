package theory

import (
	"math"
	"testing"
)

// Quantile's level law in the supermarket's mean field: F against its
// definition (the first position u uniform on [0, 1) from the heaviest,
// integrated on a fine grid), and the ODE from empty queues reaching the
// fixed point s_i = λ·F(s_{i−1}).
func TestSupermarketQuantileLaw(t *testing.T) {
	for _, law := range []SupermarketLaw{{D: 2, Beta: 1, Delta: 0.5}, {D: 2, Beta: 0.4, Delta: 0.25}, {D: 2, Beta: 1, Delta: 0.8}} {
		for _, x := range []float64{0, 0.1, 0.25, 0.5, 0.7, 1} {
			const grid = 1 << 16
			p := 0.0 // P(the ball lands on a bin of load ≥ i), fraction x at ≥ i
			for g := range grid {
				u := (float64(g) + 0.5) / grid
				quant := x // heavy first bin: a second uniform bin
				if u >= law.Delta {
					quant = 0
					if u < x {
						quant = 1
					}
				}
				one := 0.0
				if u < x {
					one = 1
				}
				p += ((1-law.Beta)*one + law.Beta*quant) / grid
			}
			if math.Abs(p-law.F(x)) > 1e-4 {
				t.Errorf("%+v: F(%v) = %v, integrated %v", law, x, law.F(x), p)
			}
		}
		for _, lambda := range []float64{0.5, 0.9} {
			pi, _ := SupermarketFixedPoint(lambda, law)
			s := SupermarketODE(lambda, law, make([]float64, len(pi)+5), 2000, 0.05)
			for i := range pi {
				if math.Abs(s[i]-pi[i]) > 1e-6 {
					t.Errorf("λ=%v %+v level %d: ODE %v, fixed point %v", lambda, law, i+1, s[i], pi[i])
					break
				}
			}
		}
	}
}
