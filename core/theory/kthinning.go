package theory

import "math"

// FluidKThinning is K-Thinning's fluid limit with thresholds θ1…θ(K−1)
// (core/process/kthinning.go) at time t = m/n: sample j is kept when its
// load is below L_j = ⌈τ + θj⌉ at time τ, and the K-th sample is kept. The
// ball lands on a bin of load i−1 when the first j−1 samples were rejected
// (probability R_{j−1} = s_{L_1}⋯s_{L_{j−1}}, s_i the fraction of bins with
// load ≥ i) and sample j is a bin of load i−1 < L_j, or when all K−1 were
// rejected and the last is:
//
//	ds_i/dτ = (s_{i−1} − s_i)·(Σ_j R_{j−1}·[i−1 < L_j] + R_{K−1}).
//
// With one threshold it is FluidTwoThinning's system. The limits are
// constant between the times τ + θj reaches an integer, which are the
// solver's stretches.
func FluidKThinning(thetas []float64, t float64) Profile {
	limits := make([]int, len(thetas))
	next := func(tt float64) float64 {
		end := math.Inf(1)
		for _, th := range thetas {
			end = min(end, math.Floor(tt+th)+1-th)
		}
		return end
	}
	stretches := &Stretches{
		next: next,
		begin: func(a, b float64) {
			for j, th := range thetas {
				limits[j] = int(math.Ceil((a+b)/2 + th)) // constant on (a, b)
			}
		},
	}
	return Solve(1, t, Step(len(thetas)+1), stretches, func(_ float64, w *Window, ds [][]float64) {
		for k := range ds[0] {
			i := w.base + k
			rate, reach := 0.0, 1.0 // reach: the chance that sample j is taken
			for _, l := range limits {
				if i-1 < l {
					rate += reach
				}
				reach *= w.At(0, l)
			}
			ds[0][k] = (w.At(0, i-1) - w.At(0, i)) * (rate + reach)
		}
	})
}
