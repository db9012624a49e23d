package kernels

import (
	"fmt"
	"math"
)

// A supermarket run that starts from a given state rather than from empty
// bins (--initial; core/supermarket_initial.go says which starts): the
// tally of the start's level counts, and the fixed-point start's draw.
//
// The fixed-point start (--initial fixed-point) draws every bin's load
// i.i.d. with P(load ≥ i) = π_i, π the process's fixed point. The two
// engines draw the same law in two ways:
//
//   - per bin (the direct engine, AtLeastLaw.Load): one PCG32.Uint64 x a
//     bin, its load the number of levels i with x < ⌊π_i·2^64⌋, so
//     P(load ≥ i) = ⌊π_i·2^64⌋/2^64, π_i to within 2^-64;
//   - on level counts (the histogram engine, AtLeastLaw.Levels): the i.i.d.
//     loads' counts S_i = #{bins with load ≥ i} are a Markov chain in i,
//     S_0 = n and S_{i+1} ~ Binomial(S_i, π_{i+1}/π_i) given S_i (a bin of
//     load ≥ i has load ≥ i+1 with that probability, independently of the
//     others) — the multinomial of the level counts by sequential binomials,
//     one PCG32.Binomial a level until a level is empty.
//
// Both are exact for the i.i.d. law (up to the float64 rounding of π) and
// stop at the law's last level: P(load > len(π)) = 0.

// AtLeastLaw is the law of a load L with P(L ≥ i) = Pi[i−1], i = 1 … len(Pi).
type AtLeastLaw struct {
	Pi  []float64
	thr []uint64 // ⌊π_i·2^64⌋, non-increasing
}

// NewAtLeastLaw checks that π is a tail law (1 ≥ π_1 ≥ π_2 ≥ … > 0) and
// returns it.
func NewAtLeastLaw(pi []float64) (*AtLeastLaw, error) {
	l := &AtLeastLaw{Pi: pi, thr: make([]uint64, len(pi))}
	prev := 1.0
	for i, p := range pi {
		if !(p > 0 && p <= prev) {
			return nil, fmt.Errorf("kernels: P(load ≥ %d) = %v after %v: want 1 ≥ π_1 ≥ π_2 ≥ … > 0", i+1, p, prev)
		}
		prev = p
		if p >= 1 {
			l.thr[i] = math.MaxUint64
		} else {
			l.thr[i] = uint64(math.Ldexp(p, 64)) // exact: p·2^64 < 2^64 is an integer once ≥ 2^53
		}
	}
	return l, nil
}

// Load draws one load: one r.Uint64 x, the count of levels with x < thr
// (a bisection: thr is non-increasing).
func (l *AtLeastLaw) Load(r *PCG32) uint64 {
	x := r.Uint64()
	lo, hi := 0, len(l.thr) // thr[i] > x for i < lo; thr[i] ≤ x for i ≥ hi
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if x < l.thr[mid] {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return uint64(lo)
}

// FillAtLeast draws every bin's load into loads (per bin, in bin order) and
// returns the largest.
func FillAtLeast[L Load](l *AtLeastLaw, r *PCG32, loads []L) L {
	var top L
	for i := range loads {
		v := L(l.Load(r))
		loads[i] = v
		top = max(top, v)
	}
	return top
}

// Levels draws the level counts of n i.i.d. loads: S[i] = #{load ≥ i},
// S[0] = n, up to the first empty level (included, so the last entry is
// 0), by sequential binomials.
func (l *AtLeastLaw) Levels(r *PCG32, n uint64) []uint64 {
	S := []uint64{n}
	prev := 1.0
	for _, p := range l.Pi {
		k := r.Binomial(S[len(S)-1], min(1, p/prev))
		S = append(S, k)
		if k == 0 {
			return S
		}
		prev = p
	}
	return append(S, 0)
}

// StartLevels sets a tally that has run no event to the state with S[i]
// bins of load ≥ i (S[0] = n, non-increasing; trailing zeros allowed): its
// balls Σ_{i≥1} S[i], its largest load ever the top.
func (t *Tally) StartLevels(S []uint64) {
	if t.Event != 0 || S[0] != t.S[0] {
		panic("kernels: Tally.StartLevels: a fresh tally of the same bins")
	}
	top := len(S) - 1
	for top > 0 && S[top] == 0 {
		top--
	}
	t.S = append(append(make([]uint64, 0, top+2), S[:top+1]...), 0)
	t.Acc = make([]float64, len(t.S))
	t.since = make([]uint64, len(t.S))
	t.Total = 0
	for k := 1; k <= top; k++ {
		if S[k] > S[k-1] {
			panic("kernels: Tally.StartLevels: S must be non-increasing")
		}
		t.Total += S[k]
	}
	t.MaxEver = uint64(top)
}

// AtLeastCounts is S[i] = #{bins with load ≥ i} of loads, i = 0 … max.
func AtLeastCounts[L Load](loads []L) []uint64 {
	var top L
	for _, v := range loads {
		top = max(top, v)
	}
	S := make([]uint64, uint64(top)+2)
	for _, v := range loads {
		S[v]++
	}
	for k := len(S) - 2; k >= 0; k-- {
		S[k] += S[k+1]
	}
	return S
}
