package hist

import (
	"math"
	"slices"
	"testing"

	"github.com/balloc/balloc/internal/stattest"
	"github.com/balloc/balloc/kernels"
)

// vec is a load vector as a map key.
type vec string

// throwUniform against the exact law: x balls added uniformly to bins that
// already hold extras 0, 2 and 2, for x below and above the Poissonised
// threshold (64).
func TestThrowUniformExact(t *testing.T) {
	rr := kernels.TrialStream(44, 0, kernels.LaneChoices) // as core's tests drew it
	r := &rr
	for _, x := range []int{5, 70, 200} {
		// Exact law of the sorted final vector: multinomial over 3 bins.
		law := map[vec]float64{}
		lg := func(k int) float64 { v, _ := math.Lgamma(float64(k) + 1); return v }
		for a := 0; a <= x; a++ {
			for b := 0; a+b <= x; b++ {
				c := x - a - b
				p := math.Exp(lg(x) - lg(a) - lg(b) - lg(c) - float64(x)*math.Log(3))
				v := []byte{byte(0 + a), byte(2 + b), byte(2 + c)}
				slices.Sort(v)
				law[vec(v)] += p
			}
		}
		const trials = 20000
		obs := map[vec]int{}
		for range trials {
			cl := classes{lo: 0, c: []uint64{1, 0, 2}}
			throwUniform(&cl, uint64(x), r)
			var v []byte
			for j, k := range cl.c {
				for range k {
					v = append(v, byte(cl.lo+uint64(j)))
				}
			}
			if len(v) != 3 || cl.balls() != uint64(4+x) {
				t.Fatalf("x = %d: classes %+v", x, cl)
			}
			obs[vec(v)]++
		}
		if stat, limit, df := stattest.Law(law, obs, trials); stat > limit {
			t.Errorf("x = %d: χ² = %.1f on %d df > %.1f", x, stat, df, limit)
		}
	}
}
