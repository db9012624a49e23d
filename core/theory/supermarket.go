package theory

import (
	"fmt"
	"math"
)

// The supermarket model's mean field (Vvedenskaya, Dobrushin, Karpelevich,
// "Queueing system with selection of the shortest of two queues: an
// asymptotic approach", Problems Inform. Transmission 32, 1996;
// Mitzenmacher, "The power of two choices in randomized load balancing",
// IEEE TPDS 12(10), 2001, §3). s_i is the fraction of bins (queues) with at
// least i balls (jobs), s_0 = 1. Balls arrive at rate λn; a placement puts
// a ball on a bin of load ≥ i with probability p_i = f(s_i), where f is
// the process's level law, the same one its static fluid limit uses
// (core/hist's levelLaw, FluidDChoice): f(x) = (1−β)·x + β·x^d for "the
// least loaded of d samples with probability β, else one sample"
// (one-choice d = 1; d-choice β = 1; (1+β) d = 2). A ball placed on a bin of
// load exactly i−1 raises s_i, and a bin of load exactly i serves at rate
// 1, so as n → ∞
//
//	ds_i/dt = λ·(f(s_{i−1}) − f(s_i)) − (s_i − s_{i+1}),   i ≥ 1.
//
// Its fixed point: summing the right-hand sides from i up (with s_j → 0)
// telescopes to λ·f(s_{i−1}) − s_i, so at rest s_i = λ·f(s_{i−1}) exactly —
// the rate a bin of load ≥ i starts serving equals the rate balls join bins
// of load ≥ i−1. For JSQ(d) (β = 1) this is π_i = λ^((d^i − 1)/(d − 1)), and
// for one-choice (M/M/1 queues) π_i = λ^i.

// SupermarketLaw is a placement's level law f(x) = (1−β)·x + β·g(x): g(x) =
// x^d for the least of d samples, and for Quantile(δ) (Delta > 0; Los and
// Sauerwald, ITCS 2022) g(x) = δ·x + max(x − δ, 0) — the first sample's
// position u from the heaviest is uniform, a ball lands at load ≥ i when
// δ ≤ u < x (a light first bin kept) or when u < δ and the second sample
// has load ≥ i; the static fluid limit's level law (core/process/quantile.go
// Fluid: ds_i/dt = g(s_{i−1}) − g(s_i)). Mixed-Quantile's η is β.
type SupermarketLaw struct {
	D     int
	Beta  float64
	Delta float64
}

// F is the probability that the ball lands on a bin of load ≥ i when a
// fraction x of the bins have load ≥ i.
func (l SupermarketLaw) F(x float64) float64 {
	if l.Delta > 0 {
		return (1-l.Beta)*x + l.Beta*(l.Delta*x+max(x-l.Delta, 0))
	}
	return (1-l.Beta)*x + l.Beta*math.Pow(x, float64(l.D))
}

// FixedPointTail is where the fixed point stops: the first level whose
// fraction falls below it is the last one returned.
const FixedPointTail = 1e-12

// SupermarketFixedPoint returns π_1, π_2, … — the fraction of bins with at
// least i balls at the mean field's fixed point — down to the first value
// below FixedPointTail, by s_i = λ·f(s_{i−1}) (exact at the fixed point,
// see above). 0 < λ < 1.
func SupermarketFixedPoint(lambda float64, law SupermarketLaw) ([]float64, error) {
	return SupermarketFixedPointTo(lambda, law, FixedPointTail)
}

// SupermarketFixedPointTo is SupermarketFixedPoint down to the first value
// below tail (at most 2^20 levels: then the last value may be above it).
func SupermarketFixedPointTo(lambda float64, law SupermarketLaw, tail float64) ([]float64, error) {
	if !(lambda > 0 && lambda < 1) {
		return nil, fmt.Errorf("theory: arrival rate %v outside (0, 1)", lambda)
	}
	var pi []float64
	for s := 1.0; ; {
		s = lambda * law.F(s)
		pi = append(pi, s)
		if s < tail || len(pi) >= 1<<20 {
			return pi, nil
		}
	}
}

// JSQFixedPoint is JSQ(d)'s closed form, π_i = λ^((d^i − 1)/(d − 1))
// (d = 1: λ^i), for i = 1 … levels.
func JSQFixedPoint(lambda float64, d, levels int) []float64 {
	pi := make([]float64, levels)
	for i := range pi {
		e := float64(i + 1)
		if d > 1 {
			e = (math.Pow(float64(d), float64(i+1)) - 1) / float64(d-1)
		}
		pi[i] = math.Pow(lambda, e)
	}
	return pi
}

// SupermarketODE integrates the mean field from s (s[i−1] = s_i, levels
// beyond len(s) held at 0) for time T by RK4 steps of dt, and returns s(T).
func SupermarketODE(lambda float64, law SupermarketLaw, s []float64, T, dt float64) []float64 {
	L := len(s)
	x := append([]float64(nil), s...)
	k := make([][]float64, 4)
	for j := range k {
		k[j] = make([]float64, L)
	}
	tmp := make([]float64, L)
	at := func(v []float64, i int) float64 { // s_i, i ≥ 0
		switch {
		case i == 0:
			return 1
		case i > L:
			return 0
		}
		return v[i-1]
	}
	rhs := func(v, dst []float64) {
		for i := 1; i <= L; i++ {
			dst[i-1] = lambda*(law.F(at(v, i-1))-law.F(at(v, i))) - (at(v, i) - at(v, i+1))
		}
	}
	for t := 0.0; t < T; t += dt {
		h := min(dt, T-t)
		rhs(x, k[0])
		for i := range tmp {
			tmp[i] = x[i] + h/2*k[0][i]
		}
		rhs(tmp, k[1])
		for i := range tmp {
			tmp[i] = x[i] + h/2*k[1][i]
		}
		rhs(tmp, k[2])
		for i := range tmp {
			tmp[i] = x[i] + h*k[2][i]
		}
		rhs(tmp, k[3])
		for i := range x {
			x[i] += h / 6 * (k[0][i] + 2*k[1][i] + 2*k[2][i] + k[3][i])
		}
	}
	return x
}

// Thinning in the supermarket's mean field (Two-Thinning, K-Thinning with
// thresholds; core/process/kthinning.go): sample j < K is kept when its load is
// below μ + θ_j, μ = Σ_{i≥1} s_i the mean queue (balls present / n), i.e.
// below L_j = ⌈μ + θ_j⌉; the K-th sample is kept whatever its load. The
// ball lands on a bin of load ≥ i with probability
//
//	f_i(s) = Σ_{j<K} R_j·(s_i − s_{L_j})·[i < L_j] + R_K·s_i,   R_1 = 1, R_{j+1} = R_j·s_{L_j},
//
// s_k = 1 for k ≤ 0 (a limit ≤ 0 keeps nothing). f depends on the whole
// profile through μ, so the rest point s_i = λ·f_{i−1}(s) (the same
// telescoping as above, f_0 = 1) is found by integrating the ODE from
// empty queues until it stops moving.

// thinLaw is f_i(s) for thresholds θ on the profile s (s[k−1] = s_k).
// retry (Adaptive): samples until one is below L = ⌈μ + θ_1⌉, so the ball
// lands on a uniform bin of load < L: f_i = (s_i − s_L)/(1 − s_L) for i < L.
func thinLaw(thetas []float64, retry bool, s []float64, mu float64, i int) float64 {
	at := func(k int) float64 {
		switch {
		case k <= 0:
			return 1
		case k > len(s):
			return 0
		}
		return s[k-1]
	}
	if i <= 0 {
		return 1
	}
	if retry {
		L := int(math.Ceil(mu + thetas[0]))
		if i >= L {
			return 0
		}
		return (at(i) - at(L)) / (1 - at(L))
	}
	f, R := 0.0, 1.0
	for _, th := range thetas {
		L := int(math.Ceil(mu + th))
		if i < L {
			f += R * (at(i) - at(L))
		}
		R *= at(L)
	}
	return f + R*at(i)
}

// SupermarketThinningFixedPoint returns π_1, π_2, … for thinning with
// thresholds θ (retry: Adaptive's law) at arrival rate λ: the ODE ds_i/dt = λ(f_{i−1}(s) − f_i(s)) −
// (s_i − s_{i+1}) integrated from empty queues (RK4, dt = 0.05, on
// `levels` levels) until max |ds_i/dt| < 1e-11, down to the first value
// below FixedPointTail. An error when it has not come to rest by time
// 10^5 (a limit ⌈μ + θ⌉ sliding at an integer: then there is no rest point
// of this ODE, only of its Filippov closure).
func SupermarketThinningFixedPoint(lambda float64, thetas []float64, retry bool, levels int) ([]float64, error) {
	if !(lambda > 0 && lambda < 1) {
		return nil, fmt.Errorf("theory: arrival rate %v outside (0, 1)", lambda)
	}
	x := make([]float64, levels)
	rhs := func(v, dst []float64) float64 {
		mu := 0.0
		for _, a := range v {
			mu += a
		}
		worst := 0.0
		prev := thinLaw(thetas, retry, v, mu, 0)
		for i := 1; i <= levels; i++ {
			fi := thinLaw(thetas, retry, v, mu, i)
			next := 0.0
			if i < levels {
				next = v[i]
			}
			dst[i-1] = lambda*(prev-fi) - (v[i-1] - next)
			worst = max(worst, math.Abs(dst[i-1]))
			prev = fi
		}
		return worst
	}
	k := make([][]float64, 4)
	for j := range k {
		k[j] = make([]float64, levels)
	}
	tmp := make([]float64, levels)
	const h = 0.05
	for step := 0; step < 2e6; step++ {
		if rhs(x, k[0]) < 1e-11 {
			var pi []float64
			for _, s := range x {
				pi = append(pi, s)
				if s < FixedPointTail {
					break
				}
			}
			return pi, nil
		}
		for i := range tmp {
			tmp[i] = x[i] + h/2*k[0][i]
		}
		rhs(tmp, k[1])
		for i := range tmp {
			tmp[i] = x[i] + h/2*k[1][i]
		}
		rhs(tmp, k[2])
		for i := range tmp {
			tmp[i] = x[i] + h*k[2][i]
		}
		rhs(tmp, k[3])
		for i := range x {
			x[i] += h / 6 * (k[0][i] + 2*k[1][i] + 2*k[2][i] + k[3][i])
		}
	}
	return nil, fmt.Errorf("theory: thinning's mean field (θ = %v, λ = %v) did not come to rest by time 10^5 (a limit ⌈μ + θ⌉ sliding at an integer)", thetas, lambda)
}
