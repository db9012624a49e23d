package process_test

import (
	"math/big"

	"github.com/balloc/balloc/internal/proctable"
)

func init() {
	table = append(table,
		proctable.Row{Process: "two-thinning", Params: map[string]string{"threshold": "0.5"}, Slow: slowTwoThinning(0.5), Law: twoThinningLaw(3, 0.5), N: 3, M: 6},
		proctable.Row{Process: "two-thinning", Params: map[string]string{"threshold": "1"}, Slow: slowTwoThinning(1), Law: twoThinningLaw(3, 1), N: 3, M: 6},
		proctable.Row{Process: "two-thinning", Params: map[string]string{"threshold": "0.4"}, Slow: slowTwoThinning(0.4), Law: twoThinningLaw(2, 0.4), N: 2, M: 7},
		proctable.Row{Process: "two-thinning", Params: map[string]string{"threshold": "-0.25"}, Slow: slowTwoThinning(-0.25), Law: twoThinningLaw(3, -0.25), N: 3, M: 5},
	)
}

// keeps is Two-Thinning's test for ball t+1 in n bins: load < t/n + θ,
// in rationals.
func keeps(load uint64, t uint64, n int, theta float64) bool {
	x := new(big.Rat).Add(big.NewRat(int64(t), int64(n)), new(big.Rat).SetFloat64(theta))
	return new(big.Rat).SetInt64(int64(load)).Cmp(x) < 0
}

// slowTwoThinning: a uniform bin, kept if its load passes; else a second
// uniform bin, drawn only then.
func slowTwoThinning(theta float64) func([]uint64, proctable.Trial, uint64) {
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		n := uint32(len(loads))
		i := tr.Choices.Bounded(n)
		if !keeps(loads[i], t, len(loads), theta) {
			i = tr.Choices.Bounded(n)
		}
		loads[i]++
	}
}

// twoThinningLaw: the first uniform bin when it passes, else a second.
func twoThinningLaw(n int, theta float64) proctable.Transition {
	return func(loads []int, t int) []float64 {
		p := make([]float64, n)
		for i := range n {
			if keeps(uint64(loads[i]), uint64(t), n, theta) {
				p[i] += 1 / float64(n)
				continue
			}
			for j := range n {
				p[j] += 1 / float64(n*n)
			}
		}
		return p
	}
}
