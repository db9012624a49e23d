package kernels

import "unsafe"

// Sampling and tie options of the two-sample family (d-choice, two-choice,
// (1+β)): how a ball draws its samples and which of the least loaded ones
// it takes. The default (uniform samples with replacement, the first least
// loaded sample) runs the loops of dchoice.go, oneplusbeta.go and batch.go,
// untouched; these loops run every other combination.
//
// Ties (Draws.Index, Draws.Random). The default loops keep the first least
// loaded sample drawn, which is uniform tie-breaking in law whenever the
// samples are exchangeable (dchoice.go): i.i.d. samples from any law, and
// uniform samples without replacement. Index keeps the least loaded sample
// of lowest bin index: the rule of the authors' d_choice and one_plus_beta
// (Dim131/Batched-22, src/batched_spaa_22.cc), which return the largest
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
// Samples (Draws.Distinct, Draws.Alias). With Distinct the k-th sample of
// a ball (k = 0, 1, …) is PCG32.Bounded(n − k), read as the index among the
// bins not yet drawn for this ball, in increasing bin order. With an alias
// table each sample is Alias.draw (PCG32.Bounded(n), then one output); with
// both, a draw that repeats a sample of the ball is redrawn (sequential
// sampling without replacement from the law).

// Draws is a trial's sampling and tie options and its scratch space.
type Draws struct {
	Index    bool   // ties to the lowest bin index; else to the first sample drawn
	Random   bool   // ties by an explicit uniform choice (Distinct with Alias)
	Distinct bool   // a ball's samples without replacement
	Alias    *Alias // bins drawn by this law; nil: uniform
	buf      []uint32
	sorted   []uint32
}

// NewDraws returns options for balls of d samples.
func NewDraws(d int, index, random, distinct bool, alias *Alias) *Draws {
	return &Draws{Index: index, Random: random, Distinct: distinct, Alias: alias,
		buf: make([]uint32, d), sorted: make([]uint32, 0, d)}
}

// sample fills o.buf with one ball's samples from raw state s.
func (o *Draws) sample(s, inc uint64, n uint32) uint64 {
	buf := o.buf
	switch {
	case o.Alias != nil && o.Distinct:
		for k := range buf {
			for {
				var x uint32
				s, x = o.Alias.draw(s, inc)
				if !contains(buf[:k], x) {
					buf[k] = x
					break
				}
			}
		}
	case o.Alias != nil:
		for k := range buf {
			s, buf[k] = o.Alias.draw(s, inc)
		}
	case o.Distinct:
		srt := o.sorted[:0]
		for k := range buf {
			var x uint32
			s, x = bounded(s, inc, n-uint32(k))
			p := 0
			for ; p < len(srt) && srt[p] <= x; p++ {
				x++ // the x-th bin not yet drawn
			}
			srt = srt[:len(srt)+1]
			copy(srt[p+1:], srt[p:])
			srt[p] = x
			buf[k] = x
		}
	default:
		for k := range buf {
			s, buf[k] = bounded(s, inc, n)
		}
	}
	return s
}

func contains(xs []uint32, x uint32) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// pick is the sample of o.buf[:d] that receives the ball by loads, by the
// tie rule of o.
func pick[L loadValue](o *Draws, s, inc uint64, loads []L, d int) (uint64, uint32) {
	buf := o.buf[:d]
	best := buf[0]
	bl := loads[best]
	switch {
	case o.Index:
		for _, j := range buf[1:] {
			if lj := loads[j]; lj < bl || lj == bl && j < best {
				best, bl = j, lj
			}
		}
	case o.Random:
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
	default:
		for _, j := range buf[1:] {
			if lj := loads[j]; lj < bl {
				best, bl = j, lj
			}
		}
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
	if d == 2 && o.Index && !o.Distinct && o.Alias == nil && !staged(len(loads)*int(unsafe.Sizeof(loads[0]))) {
		return twoChoiceIndex(loads, r, count, maxLoad)
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

// twoChoiceIndex is DChoiceDraws at d = 2 with index ties and uniform
// samples with replacement, written out: TwoChoice's draws.
func twoChoiceIndex[L Load](loads []L, r *PCG32, count uint64, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	for ; count > 0; count-- {
		var i, j uint32
		s, i = boundedFast(s, inc, n)
		s, j = boundedFast(s, inc, n)
		li, lj := loads[i], loads[j]
		if lj < li || lj == li && j < i {
			i, li = j, lj
		}
		li++
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
	if o.Index && !o.Distinct && o.Alias == nil {
		return onePlusBetaIndex(loads, r, count, coin, maxLoad)
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

// onePlusBetaIndex is OnePlusBetaDraws with index ties and uniform samples
// with replacement, written out as OnePlusBeta is: OnePlusBeta's draws.
func onePlusBetaIndex[L Load](loads []L, r *PCG32, count uint64, coin *Bernoulli, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
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
		li, lj := loads[i], loads[j]
		// A one-choice step masks the second load to the type's maximum,
		// which no load reaches (fewer balls than 2^32 on 32-bit loads).
		var mask L
		if one {
			mask = ^L(0)
		}
		if lj |= mask; lj < li || lj == li && j < i {
			i, li = j, lj
		}
		li++
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
