package kernels

import (
	"fmt"
	"math/big"
	"math/bits"
)

// Quantile's placement in the models where balls leave (kernels/dynamic.go
// has the event loops of the placements by the least of D samples; these
// are Quantile's, dispatched from them when Placement.Heavy > 0).
//
// Quantile(δ) (Los and Sauerwald, ITCS 2022) reads the current loads only:
// a ball's first uniform bin passes it to a second uniform bin when it is
// among the k = ⌈δn⌉ heaviest, ties at the boundary in a uniformly random
// order (kernels/quantile.go). With departures the rule is the same on the
// loads present: the k heaviest of the n bins now. Mixed-Quantile (SPAA
// 2023) takes the quantile step with probability η, else keeps the first
// bin; η is Placement.Beta.
//
// Stream per arrival: the η coin (Bernoulli.Flip, when 0 < η < 1), the
// first bin (PCG32.Bounded(n)); on a quantile step the tie draw
// PCG32.Bounded(E) only when the first bin's load ties the boundary (A
// heavier bins and E at its load with A < k < A + E), then the second bin
// PCG32.Bounded(n) only when the first is heavy. On level counts a uniform
// rank is a uniform bin with ties in a uniform order, so the test is the
// rank's alone and there is no tie draw: rank (Bounded, or Bounded64 beyond
// 2^32 bins) of the first, and of the second when the first is heavy.

// heavy reports whether a bin of load v is among the k heaviest, ties
// ranked at random: A = S_{v+1} bins are heavier and E = S_v − A tie with
// it; heavy for sure when A + E ≤ k, never when A ≥ k, else with
// probability (k − A)/E (one Bounded(E) draw). E ≤ n ≤ MaxBins.
func (t *Tally) heavy(s, inc, v, k uint64) (uint64, bool) {
	above := t.S[v+1]
	if above >= k {
		return s, false
	}
	eq := t.S[v] - above
	if above+eq <= k {
		return s, true
	}
	var x uint32
	s, x = boundedFast(s, inc, uint32(eq))
	return s, uint64(x) < k-above
}

// supermarketQuantileDirect is SupermarketDirect for Quantile's placement.
// The tally's S_k give every bin's rank test in O(1).
func supermarketQuantileDirect[L Load](loads []L, r *PCG32, count uint64, sm *Supermarket, t *Tally) {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	arriveHi := sm.arrive.hi
	for ; count > 0; count-- {
		var c, i uint32
		s, c = step(s, inc)
		arrival := c < arriveHi
		if c == arriveHi {
			s, arrival = sm.arrive.flipTail(s, inc)
		}
		if !arrival {
			if s, i = boundedFast(s, inc, n); loads[i] > 0 {
				l := loads[i]
				loads[i] = l - 1
				t.down(uint64(l))
			}
			t.Event++
			continue
		}
		use := !sm.one
		if sm.mixed {
			s, use = sm.beta.flip(s, inc)
		}
		s, i = boundedFast(s, inc, n)
		if use {
			var heavy bool
			if s, heavy = t.heavy(s, inc, uint64(loads[i]), sm.heavy); heavy {
				s, i = boundedFast(s, inc, n)
			}
		}
		l := loads[i]
		loads[i] = l + 1
		t.up(uint64(l))
		t.Event++
	}
	r.state = s
}

// placeQuantile is LevelPlacer.Place for Quantile's placement: Levels ranks
// count from the lightest, so the k heaviest positions are the ranks ≥ n − k.
func (p *LevelPlacer) placeQuantile(lv *Levels, r *PCG32, count uint64) {
	n := lv.n
	for ; count > 0; count-- {
		step := !p.one
		if p.mixed {
			step = p.beta.Flip(r)
		}
		var x uint64
		r.state, x = rank(r.state, r.inc(), n)
		if step && x >= n-p.heavy {
			r.state, x = rank(r.state, r.inc(), n)
		}
		lv.Move(lv.Level(x))
	}
}

// Down moves one bin of load v ≥ 1 to v − 1 (a ball left it: the deletions
// model), keeping the counts, the boundary load b and the bins above it.
// A bin leaving b+1 joins b; one leaving b may leave fewer than k at b and
// above, and then the boundary moves down to b − 1, where the bin went.
func (q *QuantileCounts) Down(v uint64) {
	if v-1 < q.lo {
		if q.cnt[(v-1)&q.mask] != 0 { // the ring's slot holds load v−1+size: double it
			size := 2 * uint64(len(q.cnt))
			c := make([]uint32, size)
			for u := q.lo; u < q.lo+uint64(len(q.cnt)); u++ {
				c[u&(size-1)] = q.cnt[u&q.mask]
			}
			q.cnt, q.mask = c, size-1
		}
		q.lo = v - 1
	}
	q.cnt[v&q.mask]--
	q.cnt[(v-1)&q.mask]++
	switch {
	case v == q.b+1:
		q.above--
	case v == q.b && q.above+uint64(q.cnt[v&q.mask]) < q.k:
		q.b--
		q.above += uint64(q.cnt[v&q.mask])
	}
}

// Thinning's placement in the models where balls leave: Two-Thinning
// (Feldheim and Gurel-Gurevich 2021) and K-Thinning with thresholds compare
// a sample's load with t/n + θ, t the balls placed; with departures balloc
// reads t as the balls present (the current average is present/n, which
// is t/n of the static process while no ball has left). A ball takes up to
// K = len(Thetas)+1 uniform samples; sample j < K is kept when its load is
// below present/n + θ_j, the K-th whatever its load. For integer loads
// load < present/n + θ ⇔ n·load < present + n·θ ⇔ n·load < present + c,
// c = ⌈n·θ⌉ (n·load − present is an integer), exact in integers.
//
// Retry (Adaptive, Berenbrink, Khodamoradi, Sauerwald, Stauffer, SPAA
// 2013): uniform samples until one's load is below i/n + 1, ball i counted
// from 1 — with balls leaving, i = present + 1, so n·load < present + n + 1:
// Thetas {1} with c = n + 1, and no last sample kept whatever its load.
// The least load is at most ⌊present/n⌋, below the limit, so a ball ends.
//
// Stream per arrival: the samples one at a time (PCG32.Bounded(n); ranks on
// level counts, Bounded or Bounded64), the next only when the last was
// refused.

// thinConstants returns c_j = ⌈n·θ_j⌉, exactly (θ is a dyadic rational),
// or an error when one is beyond ±2^61 (then present + c would not fit).
func thinConstants(n uint64, thetas []float64) ([]int64, error) {
	cs := make([]int64, len(thetas))
	bound := new(big.Int).Lsh(big.NewInt(1), 61)
	for j, th := range thetas {
		x := new(big.Rat).SetFloat64(th)
		if x == nil {
			return nil, fmt.Errorf("kernels: threshold %v is not finite", th)
		}
		x.Mul(x, new(big.Rat).SetInt(new(big.Int).SetUint64(n)))
		c := new(big.Int).Div(x.Num(), x.Denom()) // floor (Euclidean, positive denominator)
		if !x.IsInt() {
			c.Add(c, big.NewInt(1))
		}
		if new(big.Int).Abs(c).Cmp(bound) > 0 {
			return nil, fmt.Errorf("kernels: |⌈n·θ⌉| = |⌈%d·%v⌉| exceeds 2^61", n, th)
		}
		cs[j] = c.Int64()
	}
	return cs, nil
}

// ThinningFits reports whether thresholds θ on n bins fit the exact integer
// test (|⌈n·θ⌉| ≤ 2^61).
func ThinningFits(n uint64, thetas []float64) bool {
	_, err := thinConstants(n, thetas)
	return err == nil
}

// thinKeep: a sample of load v is kept when n·v < present + c. present ≤
// 2^62 and |c| ≤ 2^61, so present + c fits; n·v is 128-bit.
func thinKeep(n, v, present uint64, c int64) bool {
	x := int64(present) + c
	if x <= 0 {
		return false
	}
	hi, lo := bits.Mul64(n, v)
	return hi == 0 && lo < uint64(x)
}

// supermarketThinDirect is SupermarketDirect for thinning's placement.
func supermarketThinDirect[L Load](loads []L, r *PCG32, count uint64, sm *Supermarket, t *Tally) {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	arriveHi := sm.arrive.hi
	thin, last := sm.thin, len(sm.thin)-1
	for ; count > 0; count-- {
		var c, i uint32
		s, c = step(s, inc)
		arrival := c < arriveHi
		if c == arriveHi {
			s, arrival = sm.arrive.flipTail(s, inc)
		}
		if !arrival {
			if s, i = boundedFast(s, inc, n); loads[i] > 0 {
				l := loads[i]
				loads[i] = l - 1
				t.down(uint64(l))
			}
			t.Event++
			continue
		}
		s, i = boundedFast(s, inc, n)
		for j := 0; j <= last || sm.retry; j++ {
			if thinKeep(uint64(n), uint64(loads[i]), t.Total, thin[min(j, last)]) {
				break
			}
			s, i = boundedFast(s, inc, n)
		}
		l := loads[i]
		loads[i] = l + 1
		t.up(uint64(l))
		t.Event++
	}
	r.state = s
}

// supermarketPlacerLevels is SupermarketLevels for Quantile's and
// thinning's placements: ranks count from the heaviest (a bin of rank x has
// load ℓ(x) = #{k ≥ 1 : S_k > x}), so Quantile's k heaviest positions are
// the ranks below k, and a thinning sample's load is ℓ(x). Like
// SupermarketLevels it keeps the tally's slices and counters in locals (the
// placement's kind is one predicted branch an arrival).
func supermarketPlacerLevels(r *PCG32, count uint64, sm *Supermarket, t *Tally) {
	s, inc, n := r.state, r.inc(), t.S[0]
	S, acc, since := t.S, t.Acc, t.since
	ev, arrivals, departures := t.Event, t.Arrivals, t.Departures
	arriveHi := sm.arrive.hi
	thin, last, heavy := sm.thin, len(sm.thin)-1, sm.heavy
	start := t.Total - t.Arrivals + t.Departures // the start's balls (mod 2^64)
	for ; count > 0; count-- {
		var c uint32
		var x uint64
		s, c = step(s, inc)
		arrival := c < arriveHi
		if c == arriveHi {
			s, arrival = sm.arrive.flipTail(s, inc)
		}
		if !arrival {
			s, x = rank(s, inc, n)
			if k := levelOf(S, x); k > 0 {
				acc[k] += float64(S[k]) * float64(ev-since[k])
				since[k] = ev
				S[k]--
				departures++
				if S[k] == 0 { // k was the top: it is now the zero above it
					S = S[:k+1]
				}
			}
			ev++
			continue
		}
		var v uint64
		if heavy > 0 {
			use := !sm.one
			if sm.mixed {
				s, use = sm.beta.flip(s, inc)
			}
			s, x = rank(s, inc, n)
			if use && x < heavy {
				s, x = rank(s, inc, n)
			}
			v = levelOf(S, x)
		} else {
			present := start + arrivals - departures
			s, x = rank(s, inc, n)
			v = levelOf(S, x)
			for j := 0; j <= last || sm.retry; j++ {
				if thinKeep(n, v, present, thin[min(j, last)]) {
					break
				}
				s, x = rank(s, inc, n)
				v = levelOf(S, x)
			}
		}
		k := v + 1
		if k == uint64(len(S)-1) { // a new top level
			t.S, t.Event = S, ev
			t.grow()
			S, acc, since = t.S, t.Acc, t.since
		}
		acc[k] += float64(S[k]) * float64(ev-since[k])
		since[k] = ev
		S[k]++
		arrivals++
		ev++
	}
	r.state = s
	t.Total += (arrivals - t.Arrivals) - (departures - t.Departures) // mod 2^64: the start's balls stay
	t.S, t.Event, t.Arrivals, t.Departures = S, ev, arrivals, departures
}
