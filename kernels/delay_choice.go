package kernels

// τ-Delay as a setting of any process whose decision reads loads (Los and
// Sauerwald, "Balanced Allocations with the Choice of Noise", §2, defines it
// for Two-Choice: every load read may be up to τ balls old; kernels/delay.go).
// The loops here read loads through the same Delay state as TauDelay — the
// loads τ balls ago and a ring of the last τ bins (fixed, adversarial), or
// the last τ balls' arrivals by bin (uniform, empirical, replay;
// delay_arrivals.go) — so a delayed read costs what it costs there: O(1)
// for fixed and adversarial, O(log(1 + a/n)) expected at age a.
//
// The age of a read, by mode, for a ball with d reads:
//
//	DelayFixed        τ for every read (all balls so far while fewer than τ)
//	DelayUniform      uniform in {0, …, τ}, independently per read: d ages
//	                  a ball, as TauDelay draws two
//	DelayEmpirical    one age per ball from the law, shared by its d reads
//	                  (a ball reads its bins at one moment, as in TauDelay)
//	DelayReplay       one given age per ball, shared by its d reads
//	DelayAdversarial  the ages within the window that make the worst choice
//	                  (below, per process)
//
// Adversarial d-choice. Bin j can be shown any load it had in the window,
// from past_j (τ balls ago) to x_j (now); the ball goes to the first sample
// of least reading. The adversary sends the ball to the heaviest sample it
// can: sample h can be made to win exactly when shown at past_h with every
// other sample shown at its current load, so with p the first sample of
// least current load x_p, h ≠ p wins iff past_h < x_p, or past_h = x_p and h
// comes before p; p always wins. The ball goes to the winnable sample of
// largest current load, the first of them on a tie. For d = 2 this is
// TauDelay's adversary ball for ball (the lighter shown now, the heavier at
// its load τ balls ago; equal loads as they are).

// DelayedDChoice throws count balls by d-choice (coin nil) or (1+β) (coin
// non-nil, d = 2) with every load read through d's delay, and returns the
// new maximum load. Ball k of a replay reads at age replay[k] (replay has
// count ages; nil in the other modes).
//
// Stream: from r, per ball, the coin when there is one (Bernoulli.Flip) and
// then d PCG32.Bounded(n), as DChoice and OnePlusBeta draw them; from noise,
// for DelayUniform d PCG32.Bounded(τ+1) per ball (one per read, in sample
// order; drawn on (1+β)'s one-choice steps too), for DelayEmpirical one
// Ages draw per ball. At d = 2 and no coin these are TauDelay's draws, and
// the balls are its balls. d ≥ 2, 1 ≤ len(loads) ≤ MaxBins, τ < 2^32 − 1.
func DelayedDChoice[L Load](loads []L, r, noise *PCG32, count uint64, d int, coin *Bernoulli, dl *Delay[L], replay []uint32, maxLoad L) L {
	if dl.mode == DelayFixed || dl.mode == DelayAdversarial {
		general := func(c uint64, maxLoad L) L {
			return delayedDChoiceFixed(loads, r, c, d, coin, dl, maxLoad, dl.mode == DelayAdversarial)
		}
		if m, ok := dChoiceSpans(loads, r, count, d, coin, dl, maxLoad, general); ok {
			return m
		}
	}
	if dl.mode == DelayFixed && d <= 2*stageBalls {
		return delayedDChoiceFixed(loads, r, count, d, coin, dl, maxLoad, false)
	}
	if dl.mode == DelayAdversarial && d <= 2*stageBalls {
		return delayedDChoiceFixed(loads, r, count, d, coin, dl, maxLoad, true)
	}
	s, inc := r.state, r.inc()
	ns, ninc := noise.state, noise.inc()
	n := uint32(len(loads))
	tau, t, mode := dl.tau, dl.t, dl.mode
	var stage [2 * stageBalls]uint32
	var stageAges [2 * stageBalls]uint32
	var two [2 * stageBalls]uint8
	idx, ages := stage[:], stageAges[:]
	if d > len(stage) { // one ball's draws past the stack buffers: once a call
		idx, ages = make([]uint32, d), make([]uint32, d)
	}
	per := max(1, len(idx)/d) // balls a stage
	slot := t % tau
	for count > 0 {
		b := int(min(count, uint64(per)))
		if coin == nil {
			s = fillBounded(idx[:b*d], s, inc, n)
		} else {
			for k := range b {
				var u bool
				s, u = coin.flip(s, inc)
				two[k] = b2u(u)
				for q := k * d; q < (k+1)*d; q++ {
					s, idx[q] = boundedFast(s, inc, n)
				}
			}
		}
		switch mode {
		case DelayUniform:
			ns = fillBounded(ages[:b*d], ns, ninc, uint32(tau+1))
		case DelayEmpirical:
			ns = dl.ages.fillEach(ages[:b], ns, ninc)
		case DelayReplay:
			copy(ages[:b], replay[:b])
			replay = replay[b:]
		}
		for k := range b {
			draws := idx[k*d : (k+1)*d]
			var best uint32
			switch mode {
			case DelayFixed:
				best = draws[0]
				bl := dl.past[best]
				for _, j := range draws[1:] {
					lj := dl.past[j]
					c := b2u(lj < bl)
					best, bl = choose(c, best, j), choose(c, bl, lj)
				}
			case DelayAdversarial: // d past the stack buffers
				best = adversarialDChoice(loads, dl.past, draws)
			default:
				// DelayUniform: an age a read; the others, one a ball.
				best = draws[0]
				var bl L
				for q, j := range draws {
					a := ages[k]
					if mode == DelayUniform {
						a = ages[k*d+q]
					}
					lj := loads[j]
					if back, span, ok := dl.arr.within(t, j, a); ok {
						if dl.arr.walk { // the same branch every read
							lj -= L(dl.arr.chainCount(back, span, slot))
						} else {
							lj -= L(dl.arr.count(j, back, span, t, slot))
						}
					}
					if q == 0 || lj < bl {
						best, bl = j, lj
					}
				}
			}
			if coin != nil {
				best = choose(two[k], draws[0], best) // one-choice steps keep the first sample
			}
			v := loads[best] + 1
			loads[best] = v
			maxLoad = max(maxLoad, v)
			if dl.arr.walk { // the same branch every ball
				dl.arr.chainAdd(best, t, slot)
			} else if dl.arr.last != nil {
				dl.arr.add(best, t, slot)
			} else {
				if t >= tau {
					dl.past[dl.bins[slot]]++
				}
				dl.bins[slot] = best
			}
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		count -= uint64(b)
	}
	dl.t = t
	r.state, noise.state = s, ns
	return maxLoad
}

// delayedDChoiceFixed is DelayedDChoice in DelayFixed (every read of the
// past loads) or, with adversarial set, DelayAdversarial, their own loop: no
// noise is drawn, and the state is the past loads and the ring of bins.
func delayedDChoiceFixed[L Load](loads []L, r *PCG32, count uint64, d int, coin *Bernoulli, dl *Delay[L], maxLoad L, adversarial bool) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	tau, t, past, bins := dl.tau, dl.t, dl.past, dl.bins
	var idx [2 * stageBalls]uint32
	var two [2 * stageBalls]uint8
	if coin == nil {
		for k := range two {
			two[k] = 1
		}
	}
	per := len(idx) / d
	slot := t % tau
	for count > 0 {
		b := int(min(count, uint64(per)))
		if coin == nil {
			s = fillBounded(idx[:b*d], s, inc, n)
		} else {
			for k := range b {
				var u bool
				s, u = coin.flip(s, inc)
				two[k] = b2u(u)
				for q := k * d; q < (k+1)*d; q++ {
					s, idx[q] = boundedFast(s, inc, n)
				}
			}
		}
		for k := 0; k < b; k++ {
			draws := idx[k*d : (k+1)*d]
			first := draws[0]
			var best uint32
			switch {
			case !adversarial && d == 2: // (1+β): unrolled
				i, j := first, draws[1]
				best = choose(b2u(past[j] < past[i]), i, j)
			case !adversarial && d == 3: // Three-Choice: unrolled
				i, j, l := first, draws[1], draws[2]
				pi, pj, pl := past[i], past[j], past[l]
				c := b2u(pj < pi)
				bi, bl := choose(c, i, j), choose(c, pi, pj)
				best = choose(b2u(pl < bl), bi, l)
			case adversarial && d == 2: // TauDelay's selects
				i, j := first, draws[1]
				li, lj := loads[i], loads[j]
				ri, rj := choose(b2u(lj < li), li, past[i]), choose(b2u(li < lj), lj, past[j])
				best = choose(b2u(rj < ri), i, j)
			case adversarial: // adversarialDChoice, written out: a call costs as much as the choice
				p, xp := uint32(0), loads[first]
				for q := 1; q < len(draws); q++ {
					x := loads[draws[q]]
					c := b2u(x < xp)
					p, xp = choose(c, p, uint32(q)), choose(c, xp, x)
				}
				bx := xp
				best = draws[p]
				for q, j := range draws {
					pj, x := past[j], loads[j]
					c := (b2u(pj < xp) | b2u(pj == xp)&b2u(uint32(q) < p)) & b2u(x > bx)
					best, bx = choose(c, best, j), choose(c, bx, x)
				}
			default:
				var bl L
				best, bl = first, past[first]
				for _, j := range draws[1:] {
					lj := past[j]
					c := b2u(lj < bl)
					best, bl = choose(c, best, j), choose(c, bl, lj)
				}
			}
			best = choose(two[k], first, best)
			v := loads[best] + 1
			loads[best] = v
			maxLoad = max(maxLoad, v)
			if t >= tau {
				past[bins[slot]]++
			}
			bins[slot] = best
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		count -= uint64(b)
	}
	dl.t = t
	r.state = s
	return maxLoad
}

// adversarialDChoice is the bin the adversary sends a ball to among its
// samples draws (see the file's comment): two passes, O(d).
//
// Written with selects, not branches: which sample is lighter, and which the
// adversary can make win, are coin flips for the branch predictor.
func adversarialDChoice[L Load](loads, past []L, draws []uint32) uint32 {
	p, xp := uint32(0), loads[draws[0]]
	for q := 1; q < len(draws); q++ {
		x := loads[draws[q]]
		c := b2u(x < xp)
		p, xp = choose(c, p, uint32(q)), choose(c, xp, x)
	}
	// p wins, and comes before every later sample of its load: start from
	// it and let only a heavier winnable sample replace the best, so that
	// the first of the heaviest is kept.
	best, bx := draws[p], xp
	for q, j := range draws {
		pj, x := past[j], loads[j]
		win := b2u(pj < xp) | b2u(pj == xp)&b2u(uint32(q) < p)
		c := win & b2u(x > bx)
		best, bx = choose(c, best, j), choose(c, bx, x)
	}
	return best
}

// fillEach draws len(dst) ages, one per ball: Ages.fill's draws without the
// copy per read.
func (a *Ages) fillEach(dst []uint32, s, inc uint64) uint64 {
	alias := a.alias
	for k := range dst {
		s, dst[k] = alias.draw(s, inc)
	}
	if a.age != nil {
		for k := range dst {
			dst[k] = a.age[dst[k]]
		}
	}
	return s
}

// Quantile with τ-Delay (DelayFixed only). The rank test of Quantile(δ)
// reads the whole load vector, not one load: delayed, it is made on the
// vector as it was τ balls ago — bin i's load then, ranked among all loads
// then (kernels/quantile.go's ties at the boundary) — as BatchedQuantile
// makes it on the vector at the batch's start. The counts per load of that
// vector move by one ball as a ball leaves the window, O(1). Other modes
// would need the ranks at a different moment per read, which the counts do
// not give in O(1); core refuses them.

// DelayedQuantile throws count balls by Quantile(δ) (Mixed-Quantile with a
// non-nil coin) whose rank test reads the loads τ balls ago: d's past loads,
// whose counts q holds (from NewQuantileCounts, fed by this loop only). d
// is in DelayFixed. Stream per ball: as Quantile (the coin, the first bin,
// the second bin, the tie draw over the bins at the boundary load of the
// past vector). 1 ≤ len(loads) ≤ MaxBins.
func DelayedQuantile[L Load](loads []L, r *PCG32, count uint64, q *QuantileCounts, coin *Bernoulli, dl *Delay[L], maxLoad L) L {
	general := func(c uint64, maxLoad L) L { return delayedQuantile(loads, r, c, q, coin, dl, maxLoad) }
	if coin != nil {
		return general(count, maxLoad)
	}
	span := func(past []L, n uint32, ring []uint32, s, inc, _ uint64) (int, uint64) {
		return quantileFixedSpan(past, n, ring, s, inc, q)
	}
	return fixedSpans(loads, r, count, dl, 0, maxLoad, span, general)
}

// delayedQuantile is DelayedQuantile's general loop (delay_spans.go runs
// Quantile's balls after the first τ).
func delayedQuantile[L Load](loads []L, r *PCG32, count uint64, q *QuantileCounts, coin *Bernoulli, dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	tau, t, past, bins := dl.tau, dl.t, dl.past, dl.bins
	k, b, above, lo := q.k, q.b, q.above, q.lo
	cnt, mask := q.cnt, q.mask
	atB := cnt[b&mask] // bins of the past vector at b, in a register
	slot := t % tau
	for ; count > 0; count-- {
		var i, j, x uint32
		use := uint64(1)
		if coin != nil { // the same branch every ball: predicted
			var u bool
			s, u = coin.flip(s, inc)
			use = uint64(b2u(u))
		}
		s, i = boundedFast(s, inc, n)
		s, j = boundedFast(s, inc, n)
		s, x = boundedFast(s, inc, atB)
		// Heavy by the past loads: v > b, or v = b and x < k − above, with
		// masks as in Quantile (a fair coin at δ = 1/2 for a branch).
		v := uint64(past[i])
		gt := (b - v) >> 63
		d := v ^ b
		eq := 1 ^ (d|-d)>>63
		lt := (uint64(x) - (k - above)) >> 63
		pick := -((gt | eq&lt) & use)
		i ^= (i ^ j) & uint32(pick)
		w := loads[i] + 1
		loads[i] = w
		maxLoad = max(maxLoad, w)
		if t >= tau {
			// The ball leaving the window moves one bin of the past vector
			// from pv to pv+1: Quantile's update of the counts.
			u := bins[slot]
			pv := uint64(past[u])
			past[u] = L(pv + 1)
			if pv+1-lo > mask {
				q.lo = lo
				q.grow(pv + 1)
				cnt, mask = q.cnt, q.mask
			}
			cnt[pv&mask]--
			cnt[(pv+1)&mask]++
			d = pv ^ b
			left := 1 ^ (d|-d)>>63 // the bin left b
			d = (pv + 1) ^ b
			atB += uint32(1^(d|-d)>>63) - uint32(left) // … or came to it
			if above += left; above == k {             // the k heaviest now end at b+1
				b++
				atB = cnt[b&mask]
				above = k - uint64(atB)
			}
			if pv == lo && cnt[pv&mask] == 0 {
				lo++
			}
		}
		bins[slot] = i
		t++
		if slot++; slot == tau {
			slot = 0
		}
	}
	dl.t = t
	r.state = s
	q.b, q.above, q.lo = b, above, lo
	return maxLoad
}

// Two-Thinning with τ-Delay. The ball reads one load, its first sample's,
// at an age chosen by the mode, and compares it with t/n + θ for the t balls
// placed so far, known exactly: the count of balls is the ball's own number,
// only the bins' loads are outdated. (With --delay fixed, comparing with the
// average as it was, (t − τ)/n + θ, is the same process at θ − τ/n once τ
// balls are placed.) The
// adversary sees both samples and sends the ball to the heavier when the
// window allows either outcome: the first sample can be kept when its load τ
// balls ago is below the limit, and passed on when its load now is not;
// equal loads keep it.

// DelayedTwoThinning throws count balls by Two-Thinning with acceptance
// limit (core's ⌈t/n + θ⌉ for the stretch), the first sample's load read
// through d's delay, and returns the new maximum load; replay as in
// DelayedDChoice.
//
// Stream: from r, PCG32.Bounded(n), then a second only when the first bin
// is rejected (as TwoThinning), except in DelayAdversarial, which draws both
// every ball; from noise, for DelayUniform one PCG32.Bounded(τ+1) per ball,
// for DelayEmpirical one Ages draw per ball. 1 ≤ len(loads) ≤ MaxBins.
func DelayedTwoThinning[L Load](loads []L, r, noise *PCG32, count uint64, limit uint64, dl *Delay[L], replay []uint32, maxLoad L) L {
	if dl.mode == DelayFixed {
		general := func(c uint64, maxLoad L) L { return delayedThinningFixed(loads, r, c, limit, dl, maxLoad) }
		return windowSpans(loads, r, count, dl, limit, maxLoad, twoThinningWinSpan[L], general) // by windows (delay_thinwin.go)
	}
	s, inc := r.state, r.inc()
	ns, ninc := noise.state, noise.inc()
	n := uint32(len(loads))
	tau, t, mode := dl.tau, dl.t, dl.mode
	var ages [2 * stageBalls]uint32
	slot := t % tau
	for count > 0 {
		b := int(min(count, uint64(len(ages))))
		switch mode {
		case DelayUniform:
			ns = fillBounded(ages[:b], ns, ninc, uint32(tau+1))
		case DelayEmpirical:
			ns = dl.ages.fillEach(ages[:b], ns, ninc)
		case DelayReplay:
			copy(ages[:b], replay[:b])
			replay = replay[b:]
		}
		for k := range b {
			var i uint32
			s, i = boundedFast(s, inc, n)
			li := loads[i]
			var keep bool
			switch mode {
			case DelayFixed:
				keep = uint64(dl.past[i]) < limit
			case DelayAdversarial:
				var j uint32
				s, j = boundedFast(s, inc, n)
				keep = uint64(dl.past[i]) < limit && (uint64(li) < limit || li >= loads[j])
				if !keep {
					i = j
				}
			default:
				if back, span, ok := dl.arr.within(t, i, ages[k]); ok {
					if dl.arr.walk { // the same branch every read
						li -= L(dl.arr.chainCount(back, span, slot))
					} else {
						li -= L(dl.arr.count(i, back, span, t, slot))
					}
				}
				keep = uint64(li) < limit
			}
			if !keep && mode != DelayAdversarial {
				s, i = boundedFast(s, inc, n)
			}
			v := loads[i] + 1
			loads[i] = v
			maxLoad = max(maxLoad, v)
			if dl.arr.walk { // the same branch every ball
				dl.arr.chainAdd(i, t, slot)
			} else if dl.arr.last != nil {
				dl.arr.add(i, t, slot)
			} else {
				if t >= tau {
					dl.past[dl.bins[slot]]++
				}
				dl.bins[slot] = i
			}
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		count -= uint64(b)
	}
	dl.t = t
	r.state, noise.state = s, ns
	return maxLoad
}

// delayedThinningFixed is DelayedTwoThinning in DelayFixed, its own loop.
func delayedThinningFixed[L Load](loads []L, r *PCG32, count uint64, limit uint64, dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	tau, t, past, bins := dl.tau, dl.t, dl.past, dl.bins
	slot := t % tau
	for ; count > 0; count-- {
		// A branch, not selects: rejections are rare enough to predict
		// (selects drawing both samples measured 15% slower).
		var i uint32
		s, i = boundedFast(s, inc, n)
		if uint64(past[i]) >= limit {
			s, i = boundedFast(s, inc, n)
		}
		v := loads[i] + 1
		loads[i] = v
		maxLoad = max(maxLoad, v)
		if t >= tau {
			past[bins[slot]]++
		}
		bins[slot] = i
		t++
		if slot++; slot == tau {
			slot = 0
		}
	}
	dl.t = t
	r.state = s
	return maxLoad
}

// BatchedTwoThinning throws count balls by Two-Thinning in the b-Batch
// setting: every ball of a batch compares its first sample's load at the
// batch's start (bt's frozen loads) with limit, the caller's ⌈t₀/n + θ⌉ for
// the t₀ balls placed when the batch began; count must not pass the
// batch's end. Stream: as TwoThinning. 1 ≤ len(loads) ≤ MaxBins.
func BatchedTwoThinning[L Load](loads []L, r *PCG32, count uint64, limit uint64, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	frozen := bt.frozen
	var chosen [2 * stageBalls]uint32
	for count > 0 {
		c := int(min(count, uint64(len(chosen)), bt.b-bt.t%bt.b))
		for k := range c {
			var i uint32
			s, i = boundedFast(s, inc, n)
			if uint64(frozen[i]) >= limit {
				s, i = boundedFast(s, inc, n)
			}
			chosen[k] = i
		}
		maxLoad = placeBatch(bt, loads, chosen[:c], maxLoad)
		count -= uint64(c)
	}
	r.state = s
	return maxLoad
}
