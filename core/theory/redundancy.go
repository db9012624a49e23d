package theory

import (
	"math"
	"sync"
)

// Redundancy-d's mean response time in the large-system limit (Gardner,
// Harchol-Balter, Scheller-Wolf, Velednitsky and Zbarsky, "Redundancy-d: the
// power of d choices for redundancy", Operations Research 65(4), 2017):
// with exponential job sizes of mean 1, independent service of the copies
// and load λ per server, under the paper's asymptotic independence the
// response time T has the tail
//
//	P(T > t) = (λ + (1 − λ)·e^((d−1)t))^(−d/(d−1)),
//
// which is Exp(1 − λ), the M/M/1 queue's, in the limit d → 1, and the
// minimum of d unit exponentials, Exp(d), as λ → 0. Its mean, ∫ P(T > t) dt,
// is for d = 2 (u = e^t, partial fractions)
//
//	E[T] = −ln(1 − λ)/λ² − 1/λ,
//
// and for d ≥ 3 the integral is taken numerically.

// RedundancyResponse is E[T] for d ≥ 1 copies at load 0 < λ < 1 (d = 1:
// M/M/1 queues, 1/(1 − λ)).
func RedundancyResponse(lambda float64, d int) float64 {
	switch d {
	case 1:
		return 1 / (1 - lambda)
	case 2:
		return -math.Log1p(-lambda)/(lambda*lambda) - 1/lambda
	}
	key := redundancyKey{lambda, d}
	redundancyMemo.Lock()
	defer redundancyMemo.Unlock()
	v, ok := redundancyMemo.m[key]
	if !ok {
		v = RedundancyResponseIntegral(lambda, d)
		if redundancyMemo.m == nil {
			redundancyMemo.m = map[redundancyKey]float64{}
		}
		redundancyMemo.m[key] = v
	}
	return v
}

// redundancyMemo keeps the integrals taken (about 5 ms each: 2^16 steps),
// since every trial of a run asks for its spec's: a run's few (λ, d).
type redundancyKey struct {
	lambda float64
	d      int
}

var redundancyMemo struct {
	sync.Mutex
	m map[redundancyKey]float64
}

// RedundancyResponseIntegral is ∫₀^∞ P(T > t) dt by Simpson's rule, for
// d ≥ 2: the tail is below (1 − λ)^(−d/(d−1))·e^(−dt), so the integral
// stops where that bound is below 10^-15.
func RedundancyResponseIntegral(lambda float64, d int) float64 {
	e := float64(d - 1)
	tail := func(t float64) float64 { return math.Pow(lambda+(1-lambda)*math.Exp(e*t), -float64(d)/e) }
	end := (math.Log(1e15) - float64(d)/e*math.Log(1-lambda)) / float64(d)
	const steps = 1 << 16
	h := end / steps
	sum := tail(0) + tail(end)
	for k := 1; k < steps; k++ {
		w := 2.0
		if k%2 == 1 {
			w = 4
		}
		sum += w * tail(float64(k)*h)
	}
	return sum * h / 3
}
