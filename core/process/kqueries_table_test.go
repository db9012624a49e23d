package process_test

import (
	"math"
	"math/big"

	"github.com/balloc/balloc/internal/exactlaw"
	"github.com/balloc/balloc/internal/proctable"
)

func init() {
	table = append(table,
		proctable.Row{Process: "k-threshold", Params: map[string]string{"offsets": "0.5"}, Slow: slowKThreshold(0.5), Law: exactlaw.KThreshold(3, 0.5), N: 3, M: 6},
		proctable.Row{Process: "k-threshold", Params: map[string]string{"offsets": "0,1"}, Slow: slowKThreshold(0, 1), Law: exactlaw.KThreshold(3, 0, 1), N: 3, M: 6},
		proctable.Row{Process: "k-threshold", Params: map[string]string{"offsets": "1.25,-0.25,0.5"}, Slow: slowKThreshold(1.25, -0.25, 0.5), Law: exactlaw.KThreshold(4, 1.25, -0.25, 0.5), N: 4, M: 6},
		proctable.Row{Process: "k-quantile", Params: map[string]string{"deltas": "0.5"}, Slow: slowKQuantile(0.5), Law: exactlaw.KQuantile(3, 0.5), N: 3, M: 6},
		proctable.Row{Process: "k-quantile", Params: map[string]string{"deltas": "0.5,0.25"}, Slow: slowKQuantile(0.5, 0.25), Law: exactlaw.KQuantile(4, 0.5, 0.25), N: 4, M: 6},
		proctable.Row{Process: "k-quantile", Params: map[string]string{"deltas": "0.3,1,0.6"}, Slow: slowKQuantile(0.3, 1, 0.6), Law: exactlaw.KQuantile(4, 0.3, 1, 0.6), N: 4, M: 5},
		proctable.Row{Process: "k-quantile", Params: map[string]string{"deltas": "0.75,0.25,1,0.5"}, Slow: slowKQuantile(0.75, 0.25, 1, 0.5), Law: exactlaw.KQuantile(4, 0.75, 0.25, 1, 0.5), N: 4, M: 5},
	)
}

// thresholdLevel: the queries "is the load at least t/n + g?" of ball t+1,
// answered in rationals; the level is the number of yes answers.
func thresholdLevel(load, t uint64, n int, offsets []float64) int {
	level := 0
	for _, g := range offsets {
		f := new(big.Rat).Add(big.NewRat(int64(t), int64(n)), new(big.Rat).SetFloat64(g))
		if new(big.Rat).SetInt64(int64(load)).Cmp(f) >= 0 {
			level++
		}
	}
	return level
}

// slowKThreshold: two uniform bins, each asked every query; the ball to
// the one with fewer yes answers, the first when they tie.
func slowKThreshold(offsets ...float64) func([]uint64, proctable.Trial, uint64) {
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		n := uint32(len(loads))
		i := tr.Choices.Bounded(n)
		j := tr.Choices.Bounded(n)
		if thresholdLevel(loads[j], t, len(loads), offsets) < thresholdLevel(loads[i], t, len(loads), offsets) {
			i = j
		}
		loads[i]++
	}
}

// heaviest is ⌈δn⌉ for each δ (exact for the rows' δ and n).
func heaviest(n int, deltas []float64) []int {
	k := make([]int, len(deltas))
	for j, d := range deltas {
		k[j] = int(math.Ceil(d * float64(n)))
	}
	return k
}

// slowKQuantile: two uniform bins; then, for each in turn, a uniform
// position among the bins at its load, drawn once and answering all its
// queries; query j says yes when the bin's position in the loads sorted
// heaviest first (the bins above its load, then its own place among the
// equal ones) is below k_j. The ball to the sample with fewer yes answers,
// the first when they tie.
func slowKQuantile(deltas ...float64) func([]uint64, proctable.Trial, uint64) {
	return func(loads []uint64, tr proctable.Trial, _ uint64) {
		n := len(loads)
		k := heaviest(n, deltas)
		level := func(v uint64) int {
			above, equal := 0, 0
			for _, x := range loads {
				if x > v {
					above++
				} else if x == v {
					equal++
				}
			}
			pos := above + int(tr.Choices.Bounded(uint32(equal)))
			l := 0
			for _, kj := range k {
				if pos < kj {
					l++
				}
			}
			return l
		}
		i := tr.Choices.Bounded(uint32(n))
		j := tr.Choices.Bounded(uint32(n))
		if li, lj := level(loads[i]), level(loads[j]); lj < li {
			i = j
		}
		loads[i]++
	}
}
