package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
)

func init() {
	table = append(table,
		proctable.Row{Process: "threshold", Slow: slowRetry(false), Law: retryLaw(3, 7, false), N: 3, M: 7},
		proctable.Row{Process: "adaptive", Slow: slowRetry(true), Law: retryLaw(3, 7, true), N: 3, M: 7},
	)
}

// retryLimit is the load a bin must be below to take ball t+1 of m in n
// bins: threshold's m/n + 1, ⌈m/n⌉ + 1 for integer loads; adaptive's
// i/n + 1 for ball i = t + 1, ⌊t/n⌋ + 2.
func retryLimit(adaptive bool, t, m, n uint64) uint64 {
	if adaptive {
		return t/n + 2
	}
	return (m+n-1)/n + 1
}

// slowRetry: uniform bins, one draw each, until one is below the limit.
func slowRetry(adaptive bool) func([]uint64, proctable.Trial, uint64) {
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		n := uint64(len(loads))
		limit := retryLimit(adaptive, t, tr.Balls, n)
		for {
			if i := tr.Choices.Bounded(uint32(n)); loads[i] < limit {
				loads[i]++
				return
			}
		}
	}
}

// retryLaw: a uniform bin among those below the limit.
func retryLaw(n, m int, adaptive bool) proctable.Transition {
	return func(loads []int, t int) []float64 {
		limit := retryLimit(adaptive, uint64(t), uint64(m), uint64(n))
		p := make([]float64, n)
		below := 0
		for _, v := range loads {
			if uint64(v) < limit {
				below++
			}
		}
		for i, v := range loads {
			if uint64(v) < limit {
				p[i] = 1 / float64(below)
			}
		}
		return p
	}
}
