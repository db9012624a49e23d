package process_test

import (
	"math"
	"slices"

	"github.com/balloc/balloc/internal/proctable"
	"github.com/balloc/balloc/kernels"
)

func init() {
	table = append(table,
		proctable.Row{Process: "quantile", Params: map[string]string{"delta": "0.5"}, Slow: slowQuantile(0.5, 1), Law: quantileLaw(3, 0.5), N: 3, M: 6},
		proctable.Row{Process: "quantile", Params: map[string]string{"delta": "0.25"}, Slow: slowQuantile(0.25, 1), Law: quantileLaw(4, 0.25), N: 4, M: 6},
		proctable.Row{Process: "quantile", Params: map[string]string{"delta": "0.3"}, Law: quantileLaw(4, 0.3), N: 4, M: 5},
		proctable.Row{Process: "quantile", Params: map[string]string{"delta": "1"}, Slow: slowQuantile(1, 1), Law: proctable.Uniform(3), N: 3, M: 5}, // δ = 1: One-Choice in law
		proctable.Row{Process: "mixed-quantile", Params: map[string]string{"delta": "0.3", "eta": "1"}, Law: quantileLaw(4, 0.3), N: 4, M: 5},
		proctable.Row{Process: "mixed-quantile", Params: map[string]string{"delta": "0.5", "eta": "0.4"}, Slow: slowQuantile(0.5, 0.4),
			Law: proctable.Mix(0.4, proctable.Uniform(4), quantileLaw(4, 0.5)), N: 4, M: 5},
	)
}

// slowQuantile: (mixed-quantile: the η coin first, every ball) two uniform
// samples and a uniform rank x among the bins at b, the load of the k-th
// heaviest (k = ⌈δn⌉); the first sample is heavy if its load exceeds b,
// or equals b and x < k − (bins above b): the ties at b ranked in a
// uniform order. A heavy first sample passes the ball to the second.
func slowQuantile(delta, eta float64) func([]uint64, proctable.Trial, uint64) {
	var coin *kernels.Bernoulli
	if eta < 1 {
		c, err := kernels.NewBernoulli(eta)
		if err != nil {
			panic(err)
		}
		coin = &c
	}
	return func(loads []uint64, tr proctable.Trial, _ uint64) {
		n := len(loads)
		k := uint64(math.Ceil(delta * float64(n))) // exact for the rows' δ and n
		sorted := slices.Clone(loads)
		slices.Sort(sorted)
		b := sorted[n-int(k)]
		var above, atB uint64
		for _, v := range loads {
			if v > b {
				above++
			} else if v == b {
				atB++
			}
		}
		use := true
		if coin != nil {
			use = coin.Flip(tr.Choices)
		}
		i, j := tr.Choices.Bounded(uint32(n)), tr.Choices.Bounded(uint32(n))
		x := uint64(tr.Choices.Bounded(uint32(atB)))
		v := loads[i]
		if use && (v > b || v == b && x < k-above) {
			i = j
		}
		loads[i]++
	}
}

// quantileLaw: a uniform bin, passed to a second uniform bin when it is
// among the k = ⌈δn⌉ heaviest, ties ranked in a uniform order: a bin with
// A heavier and E equal bins (itself included) is heavy with probability
// clamp((k − A)/E, 0, 1).
func quantileLaw(n int, delta float64) proctable.Transition {
	k := int(math.Ceil(delta * float64(n)))
	return func(loads []int, _ int) []float64 {
		p := make([]float64, n)
		for i := range n {
			a, e := 0, 0
			for _, v := range loads {
				if v > loads[i] {
					a++
				} else if v == loads[i] {
					e++
				}
			}
			h := math.Min(1, math.Max(0, float64(k-a)/float64(e)))
			p[i] += (1 - h) / float64(n)
			for j := range n {
				p[j] += h / float64(n*n)
			}
		}
		return p
	}
}
