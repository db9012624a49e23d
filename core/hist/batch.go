package hist

import (
	"math"
	"slices"

	"github.com/balloc/balloc/kernels"
)

// Exact batches for d-choice and (1+β) on the histogram.
//
// Ranks. Order the n bins by load and give the bins at or above load k the
// positions 1 … S_k, where S_k is the number of bins of load ≥ k (the top
// position, 1, is a most loaded bin). A ball of d-choice or (1+β) lands on
// the bin at a position s drawn from a law that does not depend on the
// state: the least loaded of its samples is the one of largest position, and
// with f(x) = (1−β)·x/n + β·(x/n)^d,
//
//	P(s ≤ x) = f(x)        (all d samples, or the one sample, in the top x).
//
// The ball's level is the largest k with S_k ≥ s, and it moves one bin of
// that level up: S_{k+1} grows by one. So a batch of B balls is B i.i.d.
// positions s_1 … s_B applied in order to boundaries S_1 ≥ S_2 ≥ … that only
// grow. (Ties within a level are broken uniformly, as the per-ball loops.)
//
// The scheme. Give each ball an independent uniform time in [0, 1) and
// apply the balls in time order: that is the same sequence in law. Draw the
// batch in this order, each step a conditional law of the one before:
//
//  1. N_j, the balls whose position lies in level j's range
//     (S_{j+1}⁰, S_j⁰] at the batch's start: Multinomial(B, p⁰), p⁰_j =
//     f(S_j⁰) − f(S_{j+1}⁰). Given N, the positions in each range are i.i.d.
//     by f restricted to the range, and the times i.i.d. uniform.
//  2. Widths W_k: boundary k can move by at most W_k in this batch (they
//     start at N_{k−1} + widthSlack and grow to a fixed point). A ball
//     of range j lands on j unless s ≤ S_{j+1}(t), so only the balls with
//     s ≤ S_{j+1}⁰ + W_{j+1} are uncertain; the number of them, from the
//     not yet classified balls of the range, is binomial, and their
//     positions are drawn one by one (rejection from uniform: f is convex).
//     The others ("safe") land on j whatever the order. An uncertain ball
//     can only land on j, …, j+h, h the run of boundaries above it whose
//     reach covers s. W_k must bound X_{k−1}, the balls landing on level
//     k−1: safe ones of range k−1 plus the uncertain ones that can reach
//     k−1, and, above the starting top level L−1, the number M of balls
//     that can reach ≥ L−1 less one per level to be opened on the way
//     (level L+i needs a ball on each of L−1 … L+i−1 first). Widening a W
//     reveals more uncertain balls (binomial thinning of the safe ones) and
//     can widen others; W only grows and is capped at n − S_k⁰, so this
//     ends. Choosing the widths from what was revealed is adaptive querying
//     of the same draws, not a condition on the outcome.
//  3. The uncertain balls in time order: ball s of range j lands on the
//     largest k ≤ j+h with S_k(t) = S_k⁰ + X_{k−1}(t) ≥ s (boundaries are
//     non-increasing in k, so the first failure ends the search). X_{k−1}(t)
//     is the uncertain balls so far on k−1 plus the safe balls of range
//     k−1 with earlier times: given their number, those times are i.i.d.
//     uniform and independent of every other range, so the count before t
//     is a binomial bridge from the last query of that range.
//  4. The safe balls all land on their ranges: X_j = safe_j + uncertain.
//
// Every step is exact, and by induction on time the widths hold (each
// boundary has moved at most its bound, so every ball was classified
// right): the batch is the one-ball chain, run faster.
//
// (Exact as the other samplers are: in real arithmetic; the float64 times
// tie with probability about R²·2^-53 a batch.)
//
// Cost. A batch costs O(levels) binomials (its multinomial, the thinning,
// about one pass) plus O(1) per uncertain ball — a position, a time and
// one binomial bridge — and there are about R = B²·κ of those,
// κ = Σ_j p_j·f′(S_{j+1}) ≈ 1/n whatever the loads (it is the mean slope
// of f at the boundaries). Batches of B = √(R/κ) ≈ 4·√n balls for
// R = targetUncertain: about 4000 balls a batch at n = 10^6 and 40000 at
// n = 10^8 (13 and 16 levels, 1.4 passes, at m = 200·n). The lower-bound
// decomposition this replaced gave every boundary the width B and cost
// O(levels) per correction, so its batches were √(2n/levels) balls.

// minLevelBatch: smaller batches run ball by ball, which is cheaper there
// (a batch costs about 4 µs, a ball on ranks about 7 ns: measured at
// n = 10^4, where batches of 400 balls ran at 11.4 ns a ball).
const minLevelBatch = 1024

// targetUncertain is the expected number of uncertain balls a batch is sized
// for, against the O(levels) binomials of its multinomial and thinning.
const targetUncertain = 16

// widthSlack is added to each starting width (see batch).
const widthSlack = 8

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

// position draws s in (a, b] with P(s = x) ∝ f(x) − f(x−1): uniform
// proposals accepted against the largest increment, f(b) − f(b−1) (f is
// convex, so increments grow with x).
func (l levelLaw) position(r *kernels.PCG32, a, b uint64) uint64 {
	top := l.diff(b, b-1)
	for {
		x := a + 1 + r.Bounded64(b-a)
		if r.Float64()*top < l.diff(x, x-1) {
			return x
		}
	}
}

// uncertain is a ball whose level depends on the order within its batch.
type uncertain struct {
	t    float64 // time in [0, 1)
	s    uint64  // position
	j, h int     // its range, and how many boundaries above it can pass it
}

// levelBatch is the state of the batched path between batches: the
// boundaries S_k (k = 0 … L, S_0 = n, S_L = 0) above load lo, and scratch.
type levelBatch struct {
	law     levelLaw
	n, lo   uint64
	S       []uint64
	p       []float64
	count   []uint64 // N_j, then safe_j
	reach   []uint64 // per range: positions up to reach[j] are uncertain
	width   []uint64 // W_k, by boundary
	bound   []uint64 // X_j bound, by level
	landed  []uint64 // uncertain balls landed, by level
	seen    []uint64 // safe balls revealed before the bridge time, by range
	at      []float64
	times   []float64
	balls   []uncertain
	scratch []uint64
}

func newLevelBatch(lv *kernels.Levels, law levelLaw) *levelBatch {
	lb := &levelBatch{law: law, n: lv.Bins(), lo: lv.Min()}
	for i := 0; i <= lv.Len(); i++ {
		lb.S = append(lb.S, lv.AtLeast(lb.lo+uint64(i)))
	}
	return lb
}

// size is the batch size for the current state (see Cost above): B₀ =
// √(R/κ) from the slopes at the boundaries, at most n/16, then halved while
// the expected number of uncertain balls with widths B·p_j — which convexity
// makes larger than B²κ when the widths are not small beside n — exceeds
// twice the target.
func (lb *levelBatch) size() uint64 {
	S, law := lb.S, lb.law
	L := len(S) - 1
	kappa := 0.0
	for j := range L {
		kappa += law.diff(S[j], S[j+1]) * law.diff(S[j+1]+1, S[j+1])
	}
	B := max(1, lb.n/16)
	if kappa > 0 {
		B = min(B, uint64(math.Min(1<<62, math.Sqrt(targetUncertain/kappa))))
	}
	for B > 1 {
		fb, R := float64(B), 0.0
		for j := range L {
			w := uint64(math.Ceil(fb * law.diff(S[j], S[j+1])))
			R += fb * law.diff(min(S[j], S[j+1]+w), S[j+1])
		}
		if R <= 2*targetUncertain {
			break
		}
		B /= 2
	}
	return B
}

// store writes the boundaries back into lv.
func (lb *levelBatch) store(lv *kernels.Levels) {
	c := lb.scratch[:0]
	for k := 0; k+1 < len(lb.S); k++ {
		c = append(c, lb.S[k]-lb.S[k+1])
	}
	lb.scratch = c
	lv.SetCounts(lb.lo, c)
}

// grown returns x with length at least k, zeroed.
func grown[T uint64 | float64](x []T, k int) []T {
	x = x[:0]
	for range k {
		x = append(x, 0)
	}
	return x
}

func at(x []uint64, k int) uint64 {
	if k < len(x) {
		return x[k]
	}
	return 0
}

// batch places B balls (steps 1–4 above).
func (lb *levelBatch) batch(r *kernels.PCG32, B uint64) {
	law, S := lb.law, lb.S
	L := len(S) - 1
	// 1. Balls per starting range.
	lb.p = grown(lb.p, L)
	for j := range L {
		lb.p[j] = law.diff(S[j], S[j+1])
	}
	lb.count = grown(lb.count, L)
	r.Multinomial(lb.count, B, lb.p)
	safe := lb.count
	// 2. Widths, from W_k = N_{k−1} + widthSlack up: the slack covers the
	// few uncertain balls that can arrive from below, so that a second pass
	// seldom widens (and thins) again.
	lb.width = grown(lb.width, L+1)
	for k := 1; k <= L; k++ {
		lb.width[k] = min(safe[k-1]+widthSlack, lb.n-S[k])
	}
	lb.reach = grown(lb.reach, L)
	for j := range L {
		lb.reach[j] = S[j+1]
	}
	lb.balls = lb.balls[:0]
	for {
		for j := range L {
			hi := min(S[j], S[j+1]+lb.width[j+1])
			lo := lb.reach[j]
			if hi <= lo {
				continue
			}
			if safe[j] > 0 {
				x := r.Binomial(safe[j], math.Min(1, law.diff(hi, lo)/law.diff(S[j], lo)))
				safe[j] -= x
				for range x {
					lb.balls = append(lb.balls, uncertain{s: law.position(r, lo, hi), j: j})
				}
			}
			lb.reach[j] = hi
		}
		// Bounds on the balls landing on each level.
		top := L
		for i := range lb.balls {
			b := &lb.balls[i]
			b.h = 0
			for k := b.j + 1; b.s <= at(S, k)+at(lb.width, k); k++ {
				b.h++
			}
			top = max(top, b.j+b.h+1)
		}
		lb.bound = grown(lb.bound, top+1)
		reachTop := uint64(0) // M: balls that can land on L−1 or above
		for j := range L {
			lb.bound[j] += safe[j]
		}
		reachTop += safe[L-1]
		for _, b := range lb.balls {
			for l := b.j; l <= b.j+b.h; l++ {
				lb.bound[l]++
			}
			if b.j+b.h >= L-1 {
				reachTop++
			}
		}
		for l := L; l <= top; l++ {
			opened := uint64(l - L + 1)
			lb.bound[l] = min(lb.bound[l], reachTop-min(reachTop, opened))
		}
		changed := false
		for l := 0; l <= top; l++ {
			k := l + 1
			for len(lb.width) <= k {
				lb.width = append(lb.width, 0)
			}
			want := min(lb.bound[l], lb.n-at(S, k))
			if want > lb.width[k] {
				lb.width[k] = want
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	// 3. The uncertain balls in time order, safe counts by bridges. Times
	// i.i.d. uniform, attached now: R sorted uniforms given to the balls in
	// a uniformly random order are R i.i.d. uniforms in time order.
	lb.times = grown(lb.times, len(lb.balls))
	for i := range lb.times {
		lb.times[i] = r.Float64()
	}
	slices.Sort(lb.times)
	for i := len(lb.balls) - 1; i > 0; i-- {
		k := int(r.Bounded64(uint64(i + 1)))
		lb.balls[i], lb.balls[k] = lb.balls[k], lb.balls[i]
	}
	for i := range lb.balls {
		lb.balls[i].t = lb.times[i]
	}
	levels := len(lb.bound)
	lb.landed = grown(lb.landed, levels)
	lb.seen = grown(lb.seen, L)
	lb.at = grown(lb.at, L)
	for _, b := range lb.balls {
		l := b.j
		for k := b.j + 1; k <= b.j+b.h; k++ {
			x := lb.landed[k-1]
			if i := k - 1; i < L {
				if left := safe[i] - lb.seen[i]; left > 0 && b.t > lb.at[i] {
					lb.seen[i] += r.Binomial(left, (b.t-lb.at[i])/(1-lb.at[i]))
				}
				lb.at[i] = b.t
				x += lb.seen[i]
			}
			if at(S, k)+x < b.s {
				break
			}
			l = k
		}
		lb.landed[l]++
	}
	// 4. Apply: S_{k} += X_{k−1}.
	total := uint64(0)
	for len(lb.S) < levels+1 {
		lb.S = append(lb.S, 0)
	}
	S = lb.S
	for l := levels - 1; l >= 0; l-- {
		x := lb.landed[l]
		if l < L {
			x += safe[l]
		}
		S[l+1] += x
		total += x
	}
	if total != B {
		panic("hist: a level batch placed the wrong number of balls")
	}
	for len(S) > 2 && S[len(S)-2] == 0 {
		S = S[:len(S)-1]
	}
	drop := 0
	for drop+1 < len(S)-1 && S[drop+1] == lb.n {
		drop++
	}
	if drop > 0 {
		S = append(S[:0], S[drop:]...)
		lb.lo += uint64(drop)
	}
	for k := 1; k < len(S); k++ {
		if S[k] > S[k-1] {
			panic("hist: a level batch left loads out of order")
		}
	}
	lb.S = S
}

// Advance advances up to count balls of the (d, β) process on lv and
// returns how many it placed: exact batches, or a run ball by ball through
// perBall (which places run balls of the process on lv) when batches would
// be small. force > 0 sets the batch size, so that tests run the batched
// path on tiny n, where it would otherwise go ball by ball.
func Advance(lv *kernels.Levels, r *kernels.PCG32, count uint64, d int, beta float64, perBall func(run uint64), force uint64) uint64 {
	lb := newLevelBatch(lv, levelLaw{n: float64(lv.Bins()), d: d, beta: beta})
	if force == 0 && lb.size() < minLevelBatch {
		run := min(count, 1<<16) // batches stay small for a while: check again later
		perBall(run)
		return run
	}
	for done := uint64(0); done < count; {
		B := min(count-done, lb.size())
		if force > 0 {
			B = min(count-done, force)
		}
		lb.batch(r, B)
		done += B
	}
	lb.store(lv)
	return count
}

// MinBatch is the smallest level batch Advance runs; below it, ball by ball.
const MinBatch = minLevelBatch

// TypicalBatch is the batch size Advance chooses on n bins (size, at κ ≈
// 1/n), for cost estimates.
func TypicalBatch(n float64) float64 { return math.Sqrt(targetUncertain * n) }

// MaxBins keeps counts exact in the float64 arithmetic of the binomial
// sampler: the histogram engine holds at most 2^50 bins.
const MaxBins = 1 << 50
