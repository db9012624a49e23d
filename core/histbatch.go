package core

import (
	"math"
	"slices"

	"github.com/balloc/balloc/kernels"
)

// Exact batches for d-choice, (1+β) and one-choice on the histogram.
//
// The level law. With S_k the number of bins of load ≥ k and
// f(x) = (1−β)·x/n + β·(x/n)^d, a ball lands on a bin of load k with
// probability p_k(S) = f(S_k) − f(S_{k+1}): the least loaded of d samples
// has load ≥ k exactly when all d do (with probability β; a single sample
// with probability 1−β). d-choice is β = 1, one-choice d = 1.
//
// The decomposition. Over a batch of B balls, S_k can only grow, by at most
// B, and S_{k+1} ≤ S_k throughout. Since f is increasing and convex, the
// least value of p_k over every state the batch can reach is
//
//	Q_k = f(S_k⁰) − f(U_{k+1}),  U_{k+1} = min(S_{k+1}⁰ + B, S_k⁰),
//
// spend the whole budget on level k and none on k−1. Let ε = 1 − Σ_k Q_k.
// Then for every ball of the batch, whatever the state,
//
//	p(S) = (1 − ε)·Q/(1 − ε) + ε·(p(S) − Q)/ε,
//
// a mixture whose first part does not depend on the state. Drawing each
// ball's part with an independent coin is drawing the number R ~ Bin(B, ε)
// of "correction" balls and their positions uniformly. Between corrections,
// a run of G balls draws i.i.d. levels from Q/(1−ε): its level counts are
// Multinomial(G, Q/(1−ε)), and applying them at once gives the state that
// applying them one by one would (additions commute, and Q_k > 0 means level
// k has a bin in every reachable state). A correction ball draws its level
// from (p(S) − Q)/ε in the state it finds. Every ball therefore lands with
// exactly its law p(S): the batch is the one-ball chain, run faster.
//
// Cost. ε ≈ B·Σ_k f′(S_{k+1})·[level k occupied], so R ≈ B²·ε₁: batches of
// B ≈ √(2/ε₁) balls hold about two corrections and take O(levels) binomial
// draws, about √(n·levels) balls at a time.

// minDecomposedBatch: smaller batches run ball by ball.
const minDecomposedBatch = 256

// targetCorrections is the expected number of correction balls a batch is
// sized for: each costs O(levels), as does each run between them.
const targetCorrections = 2

// decomposedBatchOverride forces the batch size (tests use it to run the
// batched path on tiny n, where it would otherwise go ball by ball).
var decomposedBatchOverride uint64

// levelLaw is f for (d, β) on n bins, with stable differences.
type levelLaw struct {
	n    float64
	d    int
	beta float64
}

// diff is f(a) − f(b), computed without cancellation: a^d − b^d is
// (a − b)·Σ a^j b^(d−1−j), with a − b exact in the integers.
func (l levelLaw) diff(a, b uint64) float64 {
	if a == b {
		return 0
	}
	sign := 1.0
	if a < b {
		a, b, sign = b, a, -1
	}
	delta := float64(a-b) / l.n
	x, y := float64(a)/l.n, float64(b)/l.n
	// T_k = Σ_{j≤k} x^j y^(k−j) by T_k = x·T_{k−1} + y^k; T_{d−1} is the sum.
	sum, yp := 1.0, 1.0
	for k := 1; k < l.d; k++ {
		yp *= y
		sum = x*sum + yp
	}
	return sign * ((1-l.beta)*delta + l.beta*delta*sum)
}

// advanceDecomposed advances up to count balls of the (d, β) process and
// returns how many it placed: one exact batch, or a run ball by ball when
// batches would be small.
func advanceDecomposed(lv *kernels.Levels, r *kernels.PCG32, count uint64, d int, beta float64, coin *kernels.Bernoulli) uint64 {
	law := levelLaw{n: float64(lv.Bins()), d: d, beta: beta}
	lo0, L0 := lv.Min(), lv.Len()
	// S⁰ for loads lo0 … lo0+L0 (the last is 0: above the top).
	S0 := make([]uint64, L0+1)
	for i := range S0 {
		S0[i] = lv.AtLeast(lo0 + uint64(i))
	}
	eps := func(B uint64) float64 {
		e := 0.0
		for i := 0; i < L0; i++ {
			u := min(S0[i+1]+B, S0[i])
			e += law.diff(u, S0[i+1])
		}
		return e
	}
	// The largest B ≤ count with B·ε(B) ≤ 2 corrections expected (ε grows
	// with B, linearly once the levels are occupied), by bisection.
	B := count
	if float64(B)*eps(B) > targetCorrections {
		lo, hi := uint64(1), count
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			if float64(mid)*eps(mid) <= targetCorrections {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		B = lo
	}
	if decomposedBatchOverride > 0 {
		B = min(count, decomposedBatchOverride)
	}
	if B < minDecomposedBatch && decomposedBatchOverride == 0 {
		run := min(count, 1<<16) // batches stay small for a while: check again later
		switch {
		case coin != nil:
			kernels.LevelsOnePlusBeta(lv, r, run, coin)
		default:
			kernels.LevelsDChoice(lv, r, run, d)
		}
		return run
	}
	// Q_k for the batch, and ε.
	Q := make([]float64, L0)
	for i := range L0 {
		u := min(S0[i+1]+B, S0[i])
		Q[i] = law.diff(S0[i], u)
	}
	e := math.Min(1, eps(B))
	R := r.Binomial(B, e)
	// Positions of the corrections: a uniform R-subset of [0, B), by Floyd's
	// algorithm (one draw per element, whatever R is).
	pos := make([]uint64, 0, R)
	seen := make(map[uint64]bool, R)
	for j := B - R; j < B; j++ {
		p := r.Bounded64(j + 1)
		if seen[p] {
			p = j
		}
		seen[p] = true
		pos = append(pos, p)
	}
	slices.Sort(pos)
	shares := make([]uint64, L0)
	moves := make([]uint64, 0, L0+1)
	done := uint64(0)
	for k := 0; k <= len(pos); k++ {
		end := B
		if k < len(pos) {
			end = pos[k]
		}
		if g := end - done; g > 0 { // a run of g balls from Q/(1−ε)
			r.Multinomial(shares, g, Q)
			moves = moves[:0]
			// Align to the current levels: level lo0+i is current index
			// lo0+i−Min(); Q_i > 0 guarantees it exists.
			cur := lv.Min()
			for i, x := range shares {
				load := lo0 + uint64(i)
				if x == 0 {
					continue
				}
				idx := int(load - cur)
				for len(moves) <= idx {
					moves = append(moves, 0)
				}
				moves[idx] = x
			}
			if len(moves) > 0 {
				lv.MoveMany(moves)
			}
			done = end
		}
		if k < len(pos) { // a correction ball from (p(S) − Q)/ε
			correction(lv, r, law, lo0, S0, Q, B)
			done++
		}
	}
	return B
}

// correction places one ball by the law (p(S) − Q)/ε in the current state.
func correction(lv *kernels.Levels, r *kernels.PCG32, law levelLaw, lo0 uint64, S0 []uint64, Q []float64, B uint64) {
	lo := min(lv.Min(), lo0)
	hi := max(lv.Max(), lo0+uint64(len(Q))-1)
	w := make([]float64, hi-lo+1)
	total := 0.0
	for k := lo; k <= hi; k++ {
		sk, sk1 := lv.AtLeast(k), lv.AtLeast(k+1)
		v := 0.0
		if k >= lo0 && k < lo0+uint64(len(Q)) {
			i := k - lo0
			u := min(S0[i+1]+B, S0[i])
			// p_k(S) − Q_k = [f(S_k) − f(S_k⁰)] + [f(U) − f(S_{k+1})]
			v = law.diff(sk, S0[i]) + law.diff(u, sk1)
		} else {
			v = law.diff(sk, sk1) // Q_k = 0 outside the batch's first window
		}
		v = math.Max(0, v)
		w[k-lo] = v
		total += v
	}
	x := r.Float64() * total
	k := 0
	for k < len(w)-1 && x >= w[k] {
		x -= w[k]
		k++
	}
	for w[k] == 0 { // never land on a weightless level through rounding
		k--
	}
	lv.Move(int(lo + uint64(k) - lv.Min()))
}
