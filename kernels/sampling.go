package kernels

// Sampling and tie options of the two-sample family (d-choice, two-choice,
// (1+β); quantile's samples in QuantileDraws): how a ball draws its samples and which of the least loaded ones
// it takes. The default (uniform samples with replacement, the first least
// loaded sample) runs the loops of dchoice.go, oneplusbeta.go and batch.go,
// untouched; these loops run every other combination. They do not stage
// their draws (staging.go): past the L2 cache they run unstaged.
//
// Ties (Draws.Index, Draws.Random). The default loops keep the first least
// loaded sample drawn, which is uniform tie-breaking in law whenever the
// samples are exchangeable (dchoice.go): i.i.d. samples from any law, and
// uniform samples without replacement. Index keeps the least loaded sample
// of lowest bin index: the rule of the authors' d_choice and one_plus_beta
// (Dim131/Batched-22 src/batched_spaa_22.cc, Batched-23
// src/batched_spaa_23.cc), which return the largest
// sampled position of a load vector sorted heaviest first, so ties go to a
// fixed order of the bins; SPAA'22 (Los and Sauerwald, "Balanced
// allocations in batches: simplified and generalized") Fig. 8.4 sets it
// against their two_choice_with_random_tie_breaking (the first sample) at
// b = 25n. Samples drawn without replacement from an unequal law are not
// exchangeable (a likely bin tends to come first), so there Random draws an
// explicit uniform choice among the tied samples: the j-th tied sample met
// replaces the kept one when PCG32.Bounded(j) = 0 (j ≥ 2), drawn only at
// ties.
//
// Samples (Draws.Distinct, Draws.Alias). A sample is PCG32.Bounded(n), or
// with an alias table Alias.draw (PCG32.Bounded(n), then one output). With
// Distinct a draw that repeats an earlier sample of the same ball is drawn
// again, until it is new: the k-th sample is then uniform over the n − k
// bins not yet drawn (sequential sampling without replacement from the
// law, for an alias table). A redraw has probability below k/n for
// uniform samples, so the loops keep one well-predicted branch; d close
// to n costs O(n log n) draws a ball.

// Draws is a trial's sampling and tie options and its scratch space.
type Draws struct {
	Index    bool   // ties to the lowest bin index; else to the first sample drawn
	Random   bool   // ties by an explicit uniform choice (Distinct with Alias)
	Distinct bool   // a ball's samples without replacement
	Alias    *Alias // bins drawn by this law; nil: uniform
	buf      []uint32
}

// NewDraws returns options for balls of d samples.
func NewDraws(d int, index, random, distinct bool, alias *Alias) *Draws {
	return &Draws{Index: index, Random: random, Distinct: distinct, Alias: alias, buf: make([]uint32, d)}
}

// sample fills o.buf with one ball's samples from raw state s.
func (o *Draws) sample(s, inc uint64, n uint32) uint64 {
	buf := o.buf
	for k := range buf {
		for {
			var x uint32
			if o.Alias != nil {
				s, x = o.Alias.draw(s, inc)
			} else {
				s, x = bounded(s, inc, n)
			}
			if !o.Distinct || !contains(buf[:k], x) {
				buf[k] = x
				break
			}
		}
	}
	return s
}

// contains reports whether x is in xs, without a branch per element.
func contains[T uint32 | uint64](xs []T, x T) bool {
	var hit uint8
	for _, y := range xs {
		hit |= b2u(y == x)
	}
	return hit != 0
}

// better reports whether the sample j of load lj takes the ball from best
// of load bl: strictly lighter, or, under index ties, as light with a lower
// index. Branch-free (index is 0 or 1): the comparison is a coin flip for
// the predictor.
func better[L loadValue](lj, bl L, j, best uint32, index uint8) uint8 {
	return b2u(lj < bl) | b2u(lj == bl)&b2u(j < best)&index
}

// pick is the sample of o.buf[:d] that receives the ball by loads, by the
// tie rule of o.
func pick[L loadValue](o *Draws, s, inc uint64, loads []L, d int) (uint64, uint32) {
	buf := o.buf[:d]
	best := buf[0]
	bl := loads[best]
	if o.Random {
		tied := uint32(1)
		for _, j := range buf[1:] {
			switch lj := loads[j]; {
			case lj < bl:
				best, bl, tied = j, lj, 1
			case lj == bl:
				tied++
				var u uint32
				if s, u = bounded(s, inc, tied); u == 0 {
					best = j
				}
			}
		}
		return s, best
	}
	index := b2u(o.Index)
	for _, j := range buf[1:] {
		lj := loads[j]
		best = choose(better(lj, bl, j, best, index), best, j)
		bl = min(bl, lj)
	}
	return s, best
}

// DChoiceDraws throws count balls by d-choice with options o (NewDraws(d,
// …)) and returns the new maximum load. Stream per ball: the d samples (see
// above), then the tie draws of Random. With uniform samples with
// replacement these are DChoice's d PCG32.Bounded(n), so only the
// decisions of Index differ from DChoice's. d ≥ 1, 1 ≤ len(loads) ≤ MaxBins.
func DChoiceDraws[L Load](loads []L, r *PCG32, count uint64, o *Draws, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	d := len(o.buf)
	if d == 2 && o.Alias == nil {
		return twoChoiceFast(loads, r, count, o.Index, o.Distinct, maxLoad)
	}
	if d == 3 && o.Alias == nil {
		return threeChoiceFast(loads, r, count, o, maxLoad)
	}
	if o.Alias == nil {
		return dChoiceUniform(loads, r, count, o, maxLoad)
	}
	if !o.Distinct {
		return dChoiceAlias(loads, r, count, o, maxLoad)
	}
	for ; count > 0; count-- {
		s = o.sample(s, inc, n)
		var i uint32
		s, i = pick(o, s, inc, loads, d)
		v := loads[i] + 1
		loads[i] = v
		maxLoad = max(maxLoad, v)
	}
	r.state = s
	return maxLoad
}

// twoChoiceFast is DChoiceDraws at d = 2 with uniform samples, written
// out: TwoChoice's draws (and redraws of a second sample that repeats the
// first, with distinct). index and distinct are the same for every ball.
func twoChoiceFast[L Load](loads []L, r *PCG32, count uint64, index, distinct bool, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	idx := b2u(index)
	for ; count > 0; count-- {
		var i, j uint32
		s, i = boundedFast(s, inc, n)
		s, j = boundedFast(s, inc, n)
		for distinct && j == i {
			s, j = boundedFast(s, inc, n)
		}
		li, lj := loads[i], loads[j]
		i = choose(better(lj, li, j, i, idx), i, j)
		li = min(li, lj) + 1
		loads[i] = li
		maxLoad = max(maxLoad, li)
	}
	r.state = s
	return maxLoad
}

// threeChoiceFast is dChoiceUniform at d = 3 (the authors' Three-Choice),
// the samples held in registers: the same draws and decisions.
func threeChoiceFast[L Load](loads []L, r *PCG32, count uint64, o *Draws, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	idx, distinct := b2u(o.Index), o.Distinct
	for ; count > 0; count-- {
		s0 := s
		var a, b, c uint32
		s, a = boundedFast(s, inc, n)
		s, b = boundedFast(s, inc, n)
		s, c = boundedFast(s, inc, n)
		la, lb, lc := loads[a], loads[b], loads[c]
		best := choose(better(lb, la, b, a, idx), a, b)
		bl := min(la, lb)
		best = choose(better(lc, bl, c, best, idx), best, c)
		bl = min(bl, lc)
		if distinct && b2u(a == b)|b2u(a == c)|b2u(b == c) != 0 {
			s = o.sample(s0, inc, n)
			s, best = pick(o, s, inc, loads, 3)
			bl = loads[best]
		}
		bl++
		loads[best] = bl
		maxLoad = max(maxLoad, bl)
	}
	r.state = s
	return maxLoad
}

// dChoiceUniform is DChoiceDraws with uniform samples (Random is for unequal
// laws only), the draws and the decision in one pass. With distinct a
// repeat (probability below d²/n a ball) is not redrawn in the pass: the
// ball is redone from its starting state by sample and pick, which draw
// exactly as defined, so the fast pass has one rarely taken branch.
func dChoiceUniform[L Load](loads []L, r *PCG32, count uint64, o *Draws, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	buf := o.buf
	d := len(buf)
	idx, distinct := b2u(o.Index), o.Distinct
	for ; count > 0; count-- {
		s0 := s
		var best uint32
		s, best = boundedFast(s, inc, n)
		bl := loads[best]
		buf[0] = best
		var repeat uint8
		for k := 1; k < d; k++ {
			var j uint32
			s, j = boundedFast(s, inc, n)
			if distinct {
				repeat |= b2u(contains(buf[:k], j))
				buf[k] = j
			}
			lj := loads[j]
			best = choose(better(lj, bl, j, best, idx), best, j)
			bl = min(bl, lj)
		}
		if repeat != 0 {
			s = o.sample(s0, inc, n)
			s, best = pick(o, s, inc, loads, d)
			bl = loads[best]
		}
		bl++
		loads[best] = bl
		maxLoad = max(maxLoad, bl)
	}
	r.state = s
	return maxLoad
}

// drawFast is Alias.draw inlined and without a branch on the comparison
// (a coin flip for the predictor): the same outputs, the same outcome.
func (a *Alias) drawFast(s, inc uint64) (uint64, uint32) {
	var i, c uint32
	s, i = boundedFast(s, inc, uint32(len(a.prob)))
	s, c = step(s, inc)
	return s, choose(b2u(a.keep[i])|b2u(c < a.prob[i]), a.alias[i], i)
}

// dChoiceAlias is DChoiceDraws with samples by an alias table, with
// replacement (ties to the first or by index).
func dChoiceAlias[L Load](loads []L, r *PCG32, count uint64, o *Draws, maxLoad L) L {
	s, inc := r.state, r.inc()
	a, d, idx := o.Alias, len(o.buf), b2u(o.Index)
	for ; count > 0; count-- {
		var best uint32
		s, best = a.drawFast(s, inc)
		bl := loads[best]
		for k := 1; k < d; k++ {
			var j uint32
			s, j = a.drawFast(s, inc)
			lj := loads[j]
			best = choose(better(lj, bl, j, best, idx), best, j)
			bl = min(bl, lj)
		}
		bl++
		loads[best] = bl
		maxLoad = max(maxLoad, bl)
	}
	r.state = s
	return maxLoad
}

// onePlusBetaAlias is OnePlusBetaDraws with samples by an alias table, with
// replacement.
func onePlusBetaAlias[L Load](loads []L, r *PCG32, count uint64, coin *Bernoulli, o *Draws, maxLoad L) L {
	s, inc := r.state, r.inc()
	a, idx, hi := o.Alias, b2u(o.Index), coin.hi
	for ; count > 0; count-- {
		var c uint32
		s, c = step(s, inc)
		one := c > hi
		if c == hi {
			var two bool
			s, two = coin.flipTail(s, inc)
			one = !two
		}
		var i, j uint32
		s, i = a.drawFast(s, inc)
		s, j = a.drawFast(s, inc)
		li, lj := loads[i], loads[j]
		var mask L
		if one {
			mask = ^L(0)
		}
		lj |= mask
		i = choose(better(lj, li, j, i, idx), i, j)
		li = min(li, lj) + 1
		loads[i] = li
		maxLoad = max(maxLoad, li)
	}
	r.state = s
	return maxLoad
}

// OnePlusBetaDraws throws count balls by (1+β) with options o (NewDraws(2,
// …)) and returns the new maximum load. Stream per ball: the coin, then two
// samples (the second drawn, and ignored, on one-choice steps, as
// OnePlusBeta does), then the tie draws of Random.
func OnePlusBetaDraws[L Load](loads []L, r *PCG32, count uint64, coin *Bernoulli, o *Draws, maxLoad L) L {
	if o.Alias == nil {
		return onePlusBetaFast(loads, r, count, coin, o.Index, o.Distinct, maxLoad)
	}
	if !o.Distinct {
		return onePlusBetaAlias(loads, r, count, coin, o, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	for ; count > 0; count-- {
		var two bool
		s, two = coin.flip(s, inc)
		s = o.sample(s, inc, n)
		i := o.buf[0]
		if two {
			s, i = pick(o, s, inc, loads, 2)
		}
		v := loads[i] + 1
		loads[i] = v
		maxLoad = max(maxLoad, v)
	}
	r.state = s
	return maxLoad
}

// onePlusBetaFast is OnePlusBetaDraws with uniform samples, written out as
// OnePlusBeta is (twoChoiceFast's draws after the coin).
func onePlusBetaFast[L Load](loads []L, r *PCG32, count uint64, coin *Bernoulli, index, distinct bool, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	idx := b2u(index)
	hi := coin.hi
	for ; count > 0; count-- {
		var c uint32
		s, c = step(s, inc)
		one := c > hi
		if c == hi {
			var two bool
			s, two = coin.flipTail(s, inc)
			one = !two
		}
		var i, j uint32
		s, i = boundedFast(s, inc, n)
		s, j = boundedFast(s, inc, n)
		for distinct && j == i {
			s, j = boundedFast(s, inc, n)
		}
		li, lj := loads[i], loads[j]
		// A one-choice step masks the second load to the type's maximum,
		// which no load reaches (fewer balls than 2^32 on 32-bit loads).
		var mask L
		if one {
			mask = ^L(0)
		}
		lj |= mask
		i = choose(better(lj, li, j, i, idx), i, j)
		li = min(li, lj) + 1
		loads[i] = li
		maxLoad = max(maxLoad, li)
	}
	r.state = s
	return maxLoad
}

// BatchedDChoiceDraws is DChoiceDraws in the b-Batch setting (see
// BatchedDChoice): every ball of a batch decides on the loads at the
// batch's start. The same stream per ball as DChoiceDraws.
func BatchedDChoiceDraws[L Load](loads []L, r *PCG32, count uint64, o *Draws, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	d := len(o.buf)
	var chosen [stageBalls]uint32
	for count > 0 {
		c := int(min(count, stageBalls, bt.b-bt.t%bt.b))
		for k := range c {
			s = o.sample(s, inc, n)
			s, chosen[k] = pick(o, s, inc, bt.frozen, d)
		}
		maxLoad = placeBatch(bt, loads, chosen[:c], maxLoad)
		count -= uint64(c)
	}
	r.state = s
	return maxLoad
}

// BatchedOnePlusBetaDraws is OnePlusBetaDraws in the b-Batch setting. The
// same stream per ball as OnePlusBetaDraws.
func BatchedOnePlusBetaDraws[L Load](loads []L, r *PCG32, count uint64, coin *Bernoulli, o *Draws, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	var chosen [stageBalls]uint32
	for count > 0 {
		c := int(min(count, stageBalls, bt.b-bt.t%bt.b))
		for k := range c {
			var two bool
			s, two = coin.flip(s, inc)
			s = o.sample(s, inc, n)
			chosen[k] = o.buf[0]
			if two {
				s, chosen[k] = pick(o, s, inc, bt.frozen, 2)
			}
		}
		maxLoad = placeBatch(bt, loads, chosen[:c], maxLoad)
		count -= uint64(c)
	}
	r.state = s
	return maxLoad
}

// LevelsDChoiceDistinct throws count balls by d-choice with d samples
// without replacement on the histogram's ranks (see Levels), drawn as Draws
// draws bins (a rank that repeats one of the ball's is drawn again); the
// ball goes to the level of the least rank. buf holds d ranks. Exact on
// level counts: d distinct uniform ranks are d distinct uniform bins.
func LevelsDChoiceDistinct(lv *Levels, r *PCG32, count uint64, buf []uint64) {
	s, inc, n := r.state, r.inc(), lv.n
	for ; count > 0; count-- {
		lowest := n
		for k := range buf {
			var x uint64
			s, x = rank(s, inc, n)
			for contains(buf[:k], x) {
				s, x = rank(s, inc, n)
			}
			buf[k] = x
			lowest = min(lowest, x)
		}
		lv.Move(lv.Level(lowest))
	}
	r.state = s
}

// LevelsOnePlusBetaDistinct throws count balls by (1+β) with its two
// samples without replacement on ranks. Stream per ball: the coin, then two
// ranks (the second redrawn while it repeats the first, drawn on
// one-choice steps too).
func LevelsOnePlusBetaDistinct(lv *Levels, r *PCG32, count uint64, coin *Bernoulli) {
	s, inc, n := r.state, r.inc(), lv.n
	for ; count > 0; count-- {
		var two bool
		s, two = coin.flip(s, inc)
		var x, y uint64
		s, x = rank(s, inc, n)
		s, y = rank(s, inc, n)
		for y == x {
			s, y = rank(s, inc, n)
		}
		if two {
			x = min(x, y)
		}
		lv.Move(lv.Level(x))
	}
	r.state = s
}

// QuantileDraws is Quantile (quantile.go) with its two samples drawn by o:
// by o.Alias, and with o.Distinct the second redrawn while it is the first.
// Quantile never compares two loads, so o's tie rule is unused. Stream per
// ball: the coin (Mixed-Quantile), the first sample, the second (and its
// redraws), then Quantile's tie draw PCG32.Bounded(count(b)).
func QuantileDraws[L Load](loads []L, r *PCG32, count uint64, q *QuantileCounts, coin *Bernoulli, o *Draws, maxLoad L) L {
	if o.Alias == nil && o.Distinct && coin == nil {
		return quantileDistinct(loads, r, count, q, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	a, distinct := o.Alias, o.Distinct
	k, b, above, lo := q.k, q.b, q.above, q.lo
	cnt, mask := q.cnt, q.mask
	atB := cnt[b&mask]
	for ; count > 0; count-- {
		var i, j, x uint32
		use := uint64(1)
		if coin != nil {
			var u bool
			s, u = coin.flip(s, inc)
			use = uint64(b2u(u))
		}
		if a != nil {
			s, i = a.drawFast(s, inc)
			s, j = a.drawFast(s, inc)
			for distinct && j == i {
				s, j = a.drawFast(s, inc)
			}
		} else {
			s, i = boundedFast(s, inc, n)
			s, j = boundedFast(s, inc, n)
			for distinct && j == i {
				s, j = boundedFast(s, inc, n)
			}
		}
		s, x = boundedFast(s, inc, atB)
		v, w := uint64(loads[i]), uint64(loads[j])
		// From here on Quantile's loop, line for line (see its comments).
		gt := (b - v) >> 63
		d := v ^ b
		eq := 1 ^ (d|-d)>>63
		lt := (uint64(x) - (k - above)) >> 63
		pick := -((gt | eq&lt) & use)
		i ^= (i ^ j) & uint32(pick)
		v ^= (v ^ w) & pick
		loads[i] = L(v + 1)
		maxLoad = max(maxLoad, L(v+1))
		if v+1-lo > mask {
			q.lo = lo
			q.grow(v + 1)
			cnt, mask = q.cnt, q.mask
		}
		cnt[v&mask]--
		cnt[(v+1)&mask]++
		d = v ^ b
		left := 1 ^ (d|-d)>>63
		d = (v + 1) ^ b
		atB += uint32(1^(d|-d)>>63) - uint32(left)
		if above += left; above == k {
			b++
			atB = cnt[b&mask]
			above = k - uint64(atB)
		}
		if v == lo && cnt[v&mask] == 0 {
			lo++
		}
	}
	r.state = s
	q.b, q.above, q.lo = b, above, lo
	return maxLoad
}

// quantileDistinct is QuantileDraws for uniform distinct samples without a
// coin, its own loop: the three draws jumped from the ball's state
// (pcgjump.go), and drawn one by one when a low half falls below its bound
// or the two samples coincide.
func quantileDistinct[L Load](loads []L, r *PCG32, count uint64, q *QuantileCounts, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	k, b, above, lo := q.k, q.b, q.above, q.lo
	cnt, mask := q.cnt, q.mask
	atB := cnt[b&mask]
	_, add3 := jumpAdds(inc)
	for ; count > 0; count-- {
		s1 := s*pcgMul + inc
		xi := uint64(pcgOutput(s)) * uint64(n)
		xj := uint64(pcgOutput(s1)) * uint64(n)
		xx := uint64(pcgOutput(s1*pcgMul+inc)) * uint64(atB)
		i, j, x := uint32(xi>>32), uint32(xj>>32), uint32(xx>>32)
		if min(uint32(xi), uint32(xj)) < n || uint32(xx) < atB || i == j {
			s, i = boundedFast(s, inc, n)
			s, j = boundedFast(s, inc, n)
			for j == i {
				s, j = boundedFast(s, inc, n)
			}
			s, x = boundedFast(s, inc, atB)
		} else {
			s = s*pcgMul3 + add3
		}
		v, w := uint64(loads[i]), uint64(loads[j])
		// From here on Quantile's loop, line for line (see its comments).
		gt := (b - v) >> 63
		d := v ^ b
		eq := 1 ^ (d|-d)>>63
		lt := (uint64(x) - (k - above)) >> 63
		pick := -(gt | eq&lt)
		i ^= (i ^ j) & uint32(pick)
		v ^= (v ^ w) & pick
		loads[i] = L(v + 1)
		maxLoad = max(maxLoad, L(v+1))
		if v+1-lo > mask {
			q.lo = lo
			q.grow(v + 1)
			cnt, mask = q.cnt, q.mask
		}
		cnt[v&mask]--
		cnt[(v+1)&mask]++
		d = v ^ b
		left := 1 ^ (d|-d)>>63
		d = (v + 1) ^ b
		atB += uint32(1^(d|-d)>>63) - uint32(left)
		if above += left; above == k {
			b++
			atB = cnt[b&mask]
			above = k - uint64(atB)
		}
		if v == lo && cnt[v&mask] == 0 {
			lo++
		}
	}
	r.state = s
	q.b, q.above, q.lo = b, above, lo
	return maxLoad
}

// LevelsQuantileDistinct is LevelsQuantile with the second rank redrawn
// while it is the first: exact on level counts, as LevelsDChoiceDistinct.
func LevelsQuantileDistinct(lv *Levels, r *PCG32, count uint64, k uint64, coin *Bernoulli) {
	s, inc, n := r.state, r.inc(), lv.n
	for ; count > 0; count-- {
		var x, y uint64
		use := true
		if coin != nil {
			s, use = coin.flip(s, inc)
		}
		s, x = rank(s, inc, n)
		s, y = rank(s, inc, n)
		for y == x {
			s, y = rank(s, inc, n)
		}
		if use && x >= n-k {
			x = y
		}
		lv.Move(lv.Level(x))
	}
	r.state = s
}
