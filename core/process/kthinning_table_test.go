package process_test

import (
	"math"
	"slices"

	"github.com/balloc/balloc/internal/proctable"
)

func init() {
	table = append(table,
		proctable.Row{Process: "k-thinning", Params: map[string]string{"k": "3", "thresholds": "0.5,1"}, Slow: slowKThinning([]float64{0.5, 1}, 3),
			Law: kThinningLaw(3, 3, []float64{0.5, 1}), N: 3, M: 6},
		proctable.Row{Process: "k-thinning", Params: map[string]string{"k": "3", "thresholds": "quantile"}, Slow: slowKThinning(nil, 3),
			Law: kThinningLaw(4, 3, nil), N: 4, M: 5},
	)
}

// kPasses is test j of K-Thinning for a sample of load v, ball t+1:
// load < t/n + θj with thresholds (in rationals, as keeps), or with
// quantile thresholds (thetas nil) load ≤ the ⌊n(1 − 2^(−1/c))⌋-th of
// the loads in ascending order, c = K − j the choices left (exact in
// floating point for the rows' n).
func kPasses(v uint64, loads []uint64, t uint64, j, k int, thetas []float64) bool {
	if thetas != nil {
		return keeps(v, t, len(loads), thetas[j])
	}
	sorted := slices.Clone(loads)
	slices.Sort(sorted)
	c := float64(k - j)
	return v <= sorted[int(math.Floor(float64(len(loads))*(1-math.Pow(2, -1/c))))]
}

// slowKThinning: up to K uniform samples, one draw each; sample j < K
// kept if it passes test j, the K-th kept whatever its load.
func slowKThinning(thetas []float64, k int) func([]uint64, proctable.Trial, uint64) {
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		n := uint32(len(loads))
		var i uint32
		for j := 0; ; j++ {
			i = tr.Choices.Bounded(n)
			if j == k-1 || kPasses(loads[i], loads, t, j, k, thetas) {
				break
			}
		}
		loads[i]++
	}
}

// kThinningLaw: sample j reached with the chance every earlier one failed,
// kept where it passes; the K-th uniform.
func kThinningLaw(n, k int, thetas []float64) proctable.Transition {
	return func(loads []int, t int) []float64 {
		u := make([]uint64, n)
		for i, v := range loads {
			u[i] = uint64(v)
		}
		p := make([]float64, n)
		reach := 1.0
		for j := range k - 1 {
			fail := 0.0
			for i := range n {
				if kPasses(u[i], u, uint64(t), j, k, thetas) {
					p[i] += reach / float64(n)
				} else {
					fail += 1 / float64(n)
				}
			}
			reach *= fail
		}
		for i := range n {
			p[i] += reach / float64(n)
		}
		return p
	}
}
