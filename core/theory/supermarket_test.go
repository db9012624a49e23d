package theory

import (
	"math"
	"testing"
)

// The fixed point s_i = λ·f(s_{i−1}) is JSQ(d)'s closed form, and it is
// where the mean-field ODE goes from empty queues.
func TestSupermarketFixedPointIsJSQ(t *testing.T) {
	for _, d := range []int{1, 2, 3} {
		for _, lambda := range []float64{0.5, 0.9, 0.99} {
			pi, err := SupermarketFixedPoint(lambda, SupermarketLaw{D: d, Beta: 1})
			if err != nil {
				t.Fatal(err)
			}
			closed := JSQFixedPoint(lambda, d, len(pi))
			for i := range pi {
				if math.Abs(pi[i]/closed[i]-1) > 1e-9 {
					t.Fatalf("d=%d λ=%v level %d: recursion %v, closed form %v", d, lambda, i+1, pi[i], closed[i])
				}
			}
			if last := pi[len(pi)-1]; last >= FixedPointTail || (len(pi) > 1 && pi[len(pi)-2] < FixedPointTail) {
				t.Errorf("d=%d λ=%v: the tail stops at %v", d, lambda, last)
			}
		}
	}
	if _, err := SupermarketFixedPoint(1, SupermarketLaw{D: 2, Beta: 1}); err == nil {
		t.Error("λ = 1 has no fixed point, and was given one")
	}
}

func TestSupermarketODEReachesFixedPoint(t *testing.T) {
	for _, c := range []struct {
		lambda float64
		law    SupermarketLaw
		T      float64
	}{
		{0.9, SupermarketLaw{D: 2, Beta: 1}, 300},
		{0.8, SupermarketLaw{D: 2, Beta: 0.5}, 300},
		{0.95, SupermarketLaw{D: 3, Beta: 1}, 300},
		{0.5, SupermarketLaw{D: 1, Beta: 1}, 300},
	} {
		pi, _ := SupermarketFixedPoint(c.lambda, c.law)
		s := SupermarketODE(c.lambda, c.law, make([]float64, len(pi)+5), c.T, 0.05)
		for i := range pi {
			if math.Abs(s[i]-pi[i]) > 1e-6 {
				t.Errorf("λ=%v %+v level %d: ODE at T=%v %v, fixed point %v", c.lambda, c.law, i+1, c.T, s[i], pi[i])
				break
			}
		}
		// A neighbouring β is another fixed point: the comparison can fail.
		other, _ := SupermarketFixedPoint(c.lambda, SupermarketLaw{D: c.law.D, Beta: c.law.Beta * 0.9})
		if c.law.D > 1 && math.Abs(other[1]-pi[1]) < 1e-3 {
			t.Errorf("%+v: β·0.9 moves π_2 by only %v", c.law, math.Abs(other[1]-pi[1]))
		}
	}
}
