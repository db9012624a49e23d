package theory

import (
	"math"

	"github.com/balloc/balloc/kernels"
)

// Fluid limits of the noisy two-sample comparisons of Los and Sauerwald,
// "Balanced Allocations with the Choice of Noise" (PODC 2022), §2:
// g-Adv-Comp, g-Myopic-Comp, σ-Noisy-Load and ρ-Noisy-Comp. Each samples
// two bins uniformly and sends the ball to the first with a probability
// that depends only on the difference δ of their loads, pick(δ), with
// pick(δ) + pick(−δ) = 1 and pick(0) = 1/2 (equal loads: the level is the
// same either way). This is the level law the histogram engine steps
// (kernels/levelsteps.go: LevelsGComp, LevelsSigmaNoisyLoad,
// LevelsRhoNoisyComp). With p_k = s_k − s_{k+1} the fraction of bins at
// load exactly k, a ball lands on a bin at load k with probability
//
//	P_k = Σ_b p_k p_b pick(k−b) + Σ_a p_a p_k (1 − pick(a−k)) = 2 p_k Σ_b p_b pick(k−b)
//
// (the first sample at k, or the second at k; 1 − pick(a−k) = pick(k−a)),
// and so, by Kurtz's theorem as for d-choice (Mitzenmacher 1996, ch. 3),
//
//	ds_i/dt = P_{i−1} = 2 p_{i−1} Σ_b p_b pick(i−1−b).
//
// The laws, as the kernels decide them (δ = load of the first − load of the second):
//
//	g-myopic-comp, g-adv-comp random   pick = 1/2 for |δ| ≤ ⌊g⌋, else 1[δ < 0]
//	g-adv-comp greedy-reverse          pick = 1[δ > 0] (+1/2 at 0) for |δ| ≤ ⌊g⌋, else 1[δ < 0]
//	g-adv-comp max-target              the heavier within g, as greedy-reverse
//	                                   (its raise x + 1 − max orders as the load)
//	σ-noisy-load                       pick = P(δ + σ(Z₁ − Z₂) < 0) = ½·erfc(δ/(2σ))
//	ρ-noisy-comp                       pick = Wrong(δ) for δ > 0, 1 − Wrong(−δ) for δ < 0
//
// At g = 0, σ = 0 or ρ ≡ 1 every law is two-choice: 2 p_k (s_{k+1} + p_k/2)
// = s_k² − s_{k+1}². pick depends on δ only, so every system is equivariant
// under one level up per unit time and the travelling-wave jump of
// Solve applies. P_k ≤ 2 p_k, so the two-choice step is stable.

// FluidGComp solves the g-bounded comparison: within g the first of the two
// samples is picked with probability 1/2 (heavier false: g-myopic-comp,
// adversary random) or the heavier is (heavier true: greedy-reverse,
// max-target); beyond g the lighter.
func FluidGComp(g int, heavier bool, t float64) Profile {
	return fluidCompare(t, func(delta int) float64 {
		switch {
		case delta == 0:
			return 0.5
		case delta < -g || delta > g:
			return b2f(delta < 0)
		case heavier:
			return b2f(delta > 0)
		default:
			return 0.5
		}
	})
}

// FluidSigmaNoisyLoad solves σ-Noisy-Load: loads read with independent
// N(0, σ²) noise, the lower reading wins.
func FluidSigmaNoisyLoad(sigma float64, t float64) Profile {
	return fluidCompare(t, func(delta int) float64 {
		if sigma == 0 {
			return 0.5 * (1 - float64(sign(delta)))
		}
		return 0.5 * math.Erfc(float64(delta)/(2*sigma))
	})
}

// FluidRhoNoisyComp solves ρ-Noisy-Comp: a comparison of loads δ apart is
// wrong (the heavier wins) with probability rho.Wrong(δ).
func FluidRhoNoisyComp(rho kernels.Rho, t float64) Profile {
	return fluidCompare(t, func(delta int) float64 {
		switch {
		case delta == 0:
			return 0.5
		case delta > 0:
			return rho.Wrong(float64(delta))
		default:
			return 1 - rho.Wrong(float64(-delta))
		}
	})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// fluidCompare solves ds_i/dt = 2 p_{i−1} Σ_b p_b pick(i−1−b) on the moving
// window. pick is tabulated by δ as the window needs it (it may be costly:
// erfc), so an evaluation is O(window²) multiplications.
func fluidCompare(t float64, pick func(delta int) float64) Profile {
	var table []float64 // table[δ+off] = pick(δ), |δ| ≤ off
	off := -1
	at := func(delta int) float64 {
		if delta < -off || delta > off {
			off = max(2*off, 64, abs(delta))
			table = make([]float64, 2*off+1)
			for d := -off; d <= off; d++ {
				table[d+off] = pick(d)
			}
		}
		return table[delta+off]
	}
	var p []float64 // p[k] is the fraction at load base−1+k
	return Solve(1, t, Step(2), nil, func(_ float64, w *Window, ds [][]float64) {
		L := len(ds[0]) + 1
		p = p[:0]
		for k := range L {
			i := w.base - 1 + k
			p = append(p, w.At(0, i)-w.At(0, i+1))
		}
		at(L) // grow the table once, before the loop
		for k := range ds[0] {
			// Level i = base+k gains from load i−1 = base−1+k, p[k].
			if p[k] == 0 {
				ds[0][k] = 0
				continue
			}
			sum := 0.0
			for b, pb := range p {
				sum += pb * table[k-b+off]
			}
			ds[0][k] = 2 * p[k] * sum
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
