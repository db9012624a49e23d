package theory

import (
	"math"
	"slices"
)

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

// FluidKThreshold is k-Threshold's fluid limit with offsets g_1…g_k
// (core/process/kqueries.go) at time t = m/n: two uniform bins, each at
// level ℓ(x) = #{j : x ≥ L_j} for its load x, L_j = ⌈τ + g_j⌉ at time τ;
// the ball to the lower level, the first on a tie. With L_(1) ≤ … ≤ L_(k)
// sorted, the bins of level ≥ ℓ are those of load ≥ L_(ℓ), a fraction
// G(ℓ) = s_{L_(ℓ)} (G(0) = 1, G(k+1) = 0). A bin of load x takes the ball
// through the first sample when the second's level is ≥ ℓ(x), and through
// the second when the first's is > ℓ(x):
//
//	ds_i/dτ = (s_{i−1} − s_i)·(G(ℓ(i−1)) + G(ℓ(i−1) + 1)).
//
// With one offset it is FluidTwoThinning's system (G(0) + G(1) = 1 + s_L
// below the limit L, s_L at or above it). The limits are constant between
// the times τ + g_j reaches an integer, the solver's stretches.
func FluidKThreshold(offsets []float64, t float64) Profile {
	limits := make([]int, len(offsets))
	stretches := &Stretches{
		next: func(tt float64) float64 {
			end := math.Inf(1)
			for _, g := range offsets {
				end = min(end, math.Floor(tt+g)+1-g)
			}
			return end
		},
		begin: func(a, b float64) {
			for j, g := range offsets {
				limits[j] = int(math.Ceil((a+b)/2 + g)) // constant on (a, b)
			}
			slices.Sort(limits)
		},
	}
	k := len(offsets)
	return Solve(1, t, Step(k+1), stretches, func(_ float64, w *Window, ds [][]float64) {
		G := func(l int) float64 {
			switch {
			case l == 0:
				return 1
			case l > k:
				return 0
			}
			return w.At(0, limits[l-1])
		}
		for c := range ds[0] {
			i := w.base + c
			l := 0
			for l < k && limits[l] <= i-1 {
				l++
			}
			ds[0][c] = (w.At(0, i-1) - w.At(0, i)) * (G(l) + G(l+1))
		}
	})
}
