package process

import (
	"math/big"
	"testing"
)

// Thinning.At against the definition, ball by ball, in exact rationals.
func TestThinningLimitExact(t *testing.T) {
	for _, n := range []uint64{1, 3, 7, 10} {
		for _, theta := range []float64{0, 0.5, 1, -0.3, 2.75, 1.0 / 3, -5} {
			th := NewThinning(n, theta)
			limitAt := func(t uint64) int64 {
				x := new(big.Rat).Add(big.NewRat(int64(t), int64(n)), new(big.Rat).SetFloat64(theta))
				c := ceilRat(x).Int64()
				return max(c, 0)
			}
			for t0 := uint64(0); t0 < 200; t0++ {
				limit, last := th.At(t0)
				if int64(limit) != limitAt(t0) {
					t.Fatalf("n=%d θ=%v t=%d: limit %d, want %d", n, theta, t0, limit, limitAt(t0))
				}
				if last < t0 || last > t0+n*10 {
					t.Fatalf("n=%d θ=%v t=%d: stretch ends at %d", n, theta, t0, last)
				}
				for u := t0; u <= last; u++ {
					if limitAt(u) != int64(limit) {
						t.Fatalf("n=%d θ=%v: limit changes at %d inside the stretch [%d, %d]", n, theta, u, t0, last)
					}
				}
				if limitAt(last+1) == int64(limit) && limit > 0 {
					t.Fatalf("n=%d θ=%v: stretch from %d ends at %d but the limit holds at %d", n, theta, t0, last, last+1)
				}
			}
		}
	}
}
