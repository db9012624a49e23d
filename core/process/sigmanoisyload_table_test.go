package process_test

import (
	"math"

	"github.com/balloc/balloc/internal/proctable"
)

func init() {
	table = append(table,
		proctable.Row{Process: "sigma-noisy-load", Params: map[string]string{"sigma": "1"}, Slow: slowSigmaNoisy(1), Law: sigmaNoisyLaw(3, 1), N: 3, M: 5},
		proctable.Row{Process: "sigma-noisy-load", Params: map[string]string{"sigma": "0.25"}, Slow: slowSigmaNoisy(0.25), Law: sigmaNoisyLaw(3, 0.25), N: 3, M: 5},
	)
}

// slowSigmaNoisy: two uniform samples from the choices stream, then two
// standard normals from the noise stream, the first sample's then the
// second's; the second takes the ball when its reading is lower:
// σ(z_j − z_i) < x_i − x_j.
func slowSigmaNoisy(sigma float64) func([]uint64, proctable.Trial, uint64) {
	return func(loads []uint64, tr proctable.Trial, _ uint64) {
		n := uint32(len(loads))
		i, j := tr.Choices.Bounded(n), tr.Choices.Bounded(n)
		zi, zj := tr.Noise.Normal(), tr.Noise.Normal()
		if sigma*(zj-zi) < float64(loads[i])-float64(loads[j]) {
			i = j
		}
		loads[i]++
	}
}

// sigmaNoisyLaw: the second sample is taken with probability
// P(σ(z_j − z_i) < δ) = Φ(δ/(σ√2)), δ = x_i − x_j.
func sigmaNoisyLaw(n int, sigma float64) proctable.Transition {
	return func(loads []int, _ int) []float64 {
		p := make([]float64, n)
		w := 1 / float64(n*n)
		for i := range n {
			for j := range n {
				delta := float64(loads[i] - loads[j])
				q := 0.5 * math.Erfc(-delta/(sigma*math.Sqrt2)/math.Sqrt2)
				p[j] += w * q
				p[i] += w * (1 - q)
			}
		}
		return p
	}
}
