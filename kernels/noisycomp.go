package kernels

import (
	"fmt"
	"math"
)

// ρ-Noisy-Comp (Los and Sauerwald, "Balanced Allocations with the Choice of
// Noise", §2): a ball samples two bins i, j uniformly, and a comparison of
// loads that differ by δ > 0 is correct — the ball goes to the lighter —
// with probability ρ(δ), wrong otherwise. Equal loads (δ = 0) have no wrong
// answer: the ball goes to a uniformly random one of the two, as every process
// here breaks ties.

// RhoKind names a family of ρ.
type RhoKind int

const (
	// RhoGauss: ρ(δ) = Φ(δ/(√2σ)), the law of comparing x + N(0,σ²) with
	// y + N(0,σ²); A = σ.
	RhoGauss RhoKind = iota
	// RhoLogistic: ρ(δ) = 1/(1 + e^{−δ/s}); A = s.
	RhoLogistic
	// RhoStep: ρ(δ) = p for 0 < δ ≤ g, 1 beyond; A = g, B = p.
	RhoStep
)

// Rho is a comparison law.
type Rho struct {
	Kind RhoKind
	A, B float64
}

// Wrong returns 1 − ρ(δ) for δ > 0, and 1/2 for δ = 0 (a fair tie-break).
func (r Rho) Wrong(delta float64) float64 {
	if delta == 0 {
		return 0.5
	}
	switch r.Kind {
	case RhoGauss:
		if r.A == 0 {
			return 0
		}
		return 0.5 * math.Erfc(delta/(2*r.A))
	case RhoLogistic:
		if r.A == 0 {
			return 0
		}
		return 1 / (1 + math.Exp(delta/r.A))
	case RhoStep:
		if delta <= r.A {
			return 1 - r.B
		}
		return 0
	}
	panic(fmt.Sprintf("kernels: unknown ρ kind %d", r.Kind))
}

// maxRhoTable bounds the exact coins tabulated for integer δ.
const maxRhoTable = 1 << 16

// RhoTable holds, for integer load differences, an exact coin per δ.
type RhoTable struct {
	rho   Rho
	coins []Bernoulli // δ = 0 … len−1
	// beyond: past the table, comparisons are wrong with probability
	// rho.Wrong(δ) > 0 (only when the table was capped); else never.
	beyond bool
}

// NewRhoTable tabulates the coins of every δ with Wrong(δ) > 0, up to
// maxRhoTable of them. Wrong(δ) must be non-increasing in δ and below 1.
func NewRhoTable(rho Rho) (*RhoTable, error) {
	t := &RhoTable{rho: rho}
	for d := 0; ; d++ {
		q := rho.Wrong(float64(d))
		if q == 0 {
			return t, nil
		}
		if d == maxRhoTable {
			t.beyond = true
			return t, nil
		}
		coin, err := NewBernoulli(q)
		if err != nil {
			return nil, err
		}
		t.coins = append(t.coins, coin)
	}
}

// RhoNoisyComp throws count balls by ρ-Noisy-Comp with the law in table and
// returns the new maximum load.
//
// Stream: two PCG32.Bounded(n) per ball from r; from noise, per ball, the
// exact coin Bernoulli(1 − ρ(δ)) (one output, more only on a tie with the
// coin's first word), drawn for every ball. 1 ≤ len(loads) ≤ MaxBins.
func RhoNoisyComp[L Load](loads []L, r, noise *PCG32, count uint64, table *RhoTable, maxLoad L) L {
	s, inc := r.state, r.inc()
	ns, ninc := noise.state, noise.inc()
	n := uint32(len(loads))
	coins := table.coins
	var idx [2 * stageBalls]uint32
	for count > 0 {
		b := int(min(count, stageBalls))
		s = fillBounded(idx[:2*b], s, inc, n)
		prefetchLoads(loads, idx[:2*b])
		for k := range b {
			i, j := idx[2*k], idx[2*k+1]
			li, lj := loads[i], loads[j]
			d := li - lj
			if lj > li {
				d = lj - li
			}
			var c uint32
			ns, c = step(ns, ninc)
			var wrong bool
			if uint64(d) < uint64(len(coins)) {
				coin := &coins[d]
				wrong = c < coin.hi
				if c == coin.hi {
					ns, wrong = coin.flipTail(ns, ninc)
				}
			} else if table.beyond {
				ns, wrong = flipFloatFrom(c, ns, ninc, table.rho.Wrong(float64(d)))
			}
			// j when it is the lighter and the comparison is right, or the
			// heavier (or equal) and it is wrong; i on equal loads when right.
			pick := b2u(lj < li) ^ b2u(wrong)
			i, li = choose(pick, i, j), choose(pick, li, lj)
			li++
			loads[i] = li
			maxLoad = max(maxLoad, li)
		}
		count -= uint64(b)
	}
	r.state, noise.state = s, ns
	return maxLoad
}

// RhoNoisyCompWeighted is RhoNoisyComp on real loads, ball k weighing w[k];
// the coin for each real δ is exact for the float64 value of 1 − ρ(δ).
func RhoNoisyCompWeighted(loads []float64, r, noise *PCG32, w []float64, rho Rho, maxLoad float64) float64 {
	s, inc := r.state, r.inc()
	ns, ninc := noise.state, noise.inc()
	n := uint32(len(loads))
	var idx [2 * stageBalls]uint32
	for len(w) > 0 {
		b := min(len(w), stageBalls)
		s = fillBounded(idx[:2*b], s, inc, n)
		prefetchLoads(loads, idx[:2*b])
		for k, wk := range w[:b] {
			i, j := idx[2*k], idx[2*k+1]
			li, lj := loads[i], loads[j]
			pickJ := lj < li
			var c uint32
			ns, c = step(ns, ninc)
			var wrong bool
			ns, wrong = flipFloatFrom(c, ns, ninc, rho.Wrong(math.Abs(li-lj)))
			if wrong {
				pickJ = !pickJ
			}
			if pickJ {
				i, li = j, lj
			}
			li += wk
			loads[i] = li
			maxLoad = max(maxLoad, li)
		}
		w = w[b:]
	}
	r.state, noise.state = s, ns
	return maxLoad
}
