package kernels

import "unsafe"

// Spans: the fixed and adversarial delayed loops once the ring is full —
// d-choice d = 3 (fixed, adversarial), (1+β) and tau-delay (fixed,
// adversarial), Two-Thinning, K-Thinning, Threshold/Adaptive, Twinning/
// Packing and Quantile (fixed). After the first τ balls every ball retires
// the ball τ before it, so a loop over a stretch of the ring's slots — from
// the next slot to the ring's end or count's — needs no count of balls, no
// test of the window and no wrap beside its index. A span draws a ball's
// samples from one state where it takes a fixed number (jumped draws,
// pcgjump.go) and has no call in it, so the compiler keeps its values in
// registers; a ball on Lemire's slow path, or on a coin's tie with p's
// first word, ends the span unplaced and goes through the general loop,
// which consumes the stream exactly as the span's fast path does on every
// other ball. The balls are the general loops', ball for ball
// (delay_wide_test.go, at n = 10^6 where the slow path is taken, and at
// small n), and the general loops' tests (delay_choice_test.go,
// delay_steps_test.go, batch_steps_test.go) run the spans too.

// Spans of DelayFixed read only the past loads, so they leave the current
// loads to the driver, which adds the span's balls (the ring's slots it
// filled) to them after it in one pass: the span's loop keeps fewer values
// in registers and does one read-modify-write a ball less. The adversary
// reads the current loads, so its spans place their balls themselves.
// Packing runs on runs of the ring's balls instead (packing_runs.go).

// fixedSpan places the balls of ring's slots in order, each retiring the
// ball in its slot into past, until ring's end or a ball needing the
// general loop, and returns the balls placed and the state; it does not
// touch the current loads. n is the bins; arg the process's constant (a
// coin's first word, a limit).
type fixedSpan[L Load] func(past []L, n uint32, ring []uint32, s, inc, arg uint64) (int, uint64)

// loadSpan is a span that places its balls in loads itself and returns the
// new maximum too.
type loadSpan[L Load] func(loads, past []L, ring []uint32, s, inc uint64, maxLoad L) (int, uint64, L)

// dChoiceSpans runs DelayedDChoice (and TauDelay) through spans where one
// fits d, coin and mode, and reports whether it did.
func dChoiceSpans[L Load](loads []L, r *PCG32, count uint64, d int, coin *Bernoulli, dl *Delay[L], maxLoad L, general func(c uint64, maxLoad L) L) (L, bool) {
	var fixed fixedSpan[L]
	var adversarial loadSpan[L]
	var arg uint64
	switch {
	case dl.mode == DelayFixed && d == 2 && coin == nil:
		fixed = twoFixedSpan[L]
	case dl.mode == DelayFixed && d == 3 && coin == nil:
		fixed = threeFixedSpan[L]
	case dl.mode == DelayFixed && d == 2 && coin != nil:
		fixed, arg = onePlusBetaFixedSpan[L], uint64(coin.hi)
	case dl.mode == DelayAdversarial && d == 2 && coin == nil:
		adversarial = twoAdversarialSpan[L]
	case dl.mode == DelayAdversarial && d == 3 && coin == nil && unsafe.Sizeof(L(0)) == 4:
		adversarial = threeAdversarialSpan[L]
	default:
		return maxLoad, false
	}
	if fixed != nil {
		return fixedSpans(loads, r, count, dl, arg, maxLoad, fixed, general), true
	}
	past := dl.past[:len(loads)]
	return delayedSpans(dl, count, maxLoad, func(ring []uint32, maxLoad L) (int, L) {
		k, s, m := adversarial(loads, past, ring, r.state, r.inc(), maxLoad)
		r.state = s
		return k, m
	}, general), true
}

// fixedSpans is delayedSpans with a fixedSpan, the balls it placed added
// to loads after each span.
func fixedSpans[L Load](loads []L, r *PCG32, count uint64, dl *Delay[L], arg uint64, maxLoad L, span fixedSpan[L], general func(c uint64, maxLoad L) L) L {
	past := dl.past[:len(loads)]
	n := uint32(len(loads))
	return delayedSpans(dl, count, maxLoad, func(ring []uint32, maxLoad L) (int, L) {
		k, s := span(past, n, ring, r.state, r.inc(), arg)
		r.state = s
		return k, addPlaced(loads, ring[:k], maxLoad)
	}, general)
}

// addPlaced adds a ball to loads for every bin in placed and returns the
// new maximum.
func addPlaced[L Load](loads []L, placed []uint32, maxLoad L) L {
	for _, b := range placed {
		v := loads[b] + 1
		loads[b] = v
		maxLoad = max(maxLoad, v)
	}
	return maxLoad
}

// delayedSpans throws count balls of a fixed or adversarial delayed loop:
// general(c, maxLoad) runs c balls through the general loop (the first τ,
// which retire none, and each ball a span leaves), span(ring, maxLoad) the
// balls of ring's slots, from r's state, returning how many it placed.
func delayedSpans[L Load](dl *Delay[L], count uint64, maxLoad L, span func(ring []uint32, maxLoad L) (int, L), general func(c uint64, maxLoad L) L) L {
	if dl.t < dl.tau {
		c := min(count, dl.tau-dl.t)
		maxLoad = general(c, maxLoad)
		count -= c
	}
	for count > 0 {
		slot := dl.t % dl.tau
		ring := dl.bins[slot:min(dl.tau, slot+count)]
		k, m := span(ring, maxLoad)
		maxLoad = m
		dl.t += uint64(k)
		count -= uint64(k)
		if k < len(ring) {
			maxLoad = general(1, maxLoad)
			count--
		}
	}
	return maxLoad
}

// threeFixedSpan: d-choice d = 3, DelayFixed; the first of the least past
// loads wins.
func threeFixedSpan[L Load](past []L, n uint32, ring []uint32, s, inc, _ uint64) (int, uint64) {
	past = past[:n]
	_, add3 := jumpAdds(inc)
	k := 0
	for ; k < len(ring); k++ {
		s1 := s*pcgMul + inc
		x0 := uint64(pcgOutput(s)) * uint64(n)
		x1 := uint64(pcgOutput(s1)) * uint64(n)
		x2 := uint64(pcgOutput(s1*pcgMul+inc)) * uint64(n)
		if min(uint32(x0), uint32(x1), uint32(x2)) < n {
			break
		}
		s = s*pcgMul3 + add3
		a, b, c := x0>>32, x1>>32, x2>>32
		pa, pb, pc := uint64(past[a]), uint64(past[b]), uint64(past[c])
		m := ltMask(pb, pa)
		bl := pickMask(m, pa, pb)
		best := uint32(pickMask(ltMask(pc, bl), pickMask(m, a, b), c))
		past[ring[k]]++
		ring[k] = best
	}
	return k, s
}

// onePlusBetaFixedSpan: (1+β), DelayFixed: the coin's word, then the two
// samples; the coin succeeds when the word is below hi (a word equal to hi
// needs the coin's next words: the general loop), and then the second
// sample wins if its past load is less.
func onePlusBetaFixedSpan[L Load](past []L, n uint32, ring []uint32, s, inc, hi uint64) (int, uint64) {
	past = past[:n]
	_, add3 := jumpAdds(inc)
	k := 0
	for ; k < len(ring); k++ {
		s1 := s*pcgMul + inc
		w := pcgOutput(s)
		x0 := uint64(pcgOutput(s1)) * uint64(n)
		x1 := uint64(pcgOutput(s1*pcgMul+inc)) * uint64(n)
		if min(uint32(x0), uint32(x1)) < n || uint64(w) == hi {
			break
		}
		s = s*pcgMul3 + add3
		a, b := x0>>32, x1>>32
		best := uint32(pickMask(ltMask(uint64(past[b]), uint64(past[a]))&ltMask(uint64(w), hi), a, b))
		past[ring[k]]++
		ring[k] = best
	}
	return k, s
}

// threeAdversarialSpan: d-choice d = 3, DelayAdversarial, delay_choice.go's
// adversary written out for three samples: p the first of least current
// load x_p; sample q can be made to win when its past load is below x_p,
// or equal to it with q before p; the heaviest such, the first on a tie,
// starting from p. A sample travels as one key, its current load above
// its bin, so that one select moves both: loads below 2^32 (L = uint32;
// the 64-bit loops run the general loop).
func threeAdversarialSpan[L Load](loads, past []L, ring []uint32, s, inc uint64, maxLoad L) (int, uint64, L) {
	n := uint32(len(loads))
	past = past[:len(loads)]
	_, add3 := jumpAdds(inc)
	k := 0
	for ; k < len(ring); k++ {
		s1 := s*pcgMul + inc
		x0 := uint64(pcgOutput(s)) * uint64(n)
		x1 := uint64(pcgOutput(s1)) * uint64(n)
		x2 := uint64(pcgOutput(s1*pcgMul+inc)) * uint64(n)
		if min(uint32(x0), uint32(x1), uint32(x2)) < n {
			break
		}
		s = s*pcgMul3 + add3
		a, b, c := x0>>32, x1>>32, x2>>32
		la, lb, lc := uint64(loads[a]), uint64(loads[b]), uint64(loads[c])
		pa, pb, pc := uint64(past[a]), uint64(past[b]), uint64(past[c])
		ka, kb, kc := la<<32|a, lb<<32|b, lc<<32|c
		m := ltMask(lb, la)
		kp := pickMask(m, ka, kb)
		q2 := ltMask(lc, kp>>32) // p = 2
		kp = pickMask(q2, kp, kc)
		xp := kp >> 32
		// A sample before p is heavier than x_p, so it wins when its
		// past load is at most x_p: a iff pa ≤ x_p (when a is p,
		// la = x_p replaces nothing); b iff pb < x_p, or pb = x_p and
		// p = 2; c iff pc < x_p.
		best := pickMask(^ltMask(xp, pa)&ltMask(xp, la), kp, ka)
		best = pickMask(ltMask(pb, xp-q2)&ltMask(best>>32, lb), best, kb)
		best = pickMask(ltMask(pc, xp)&ltMask(best>>32, lc), best, kc)
		v := L(best>>32) + 1
		loads[uint32(best)] = v
		maxLoad = max(maxLoad, v)
		past[ring[k]]++
		ring[k] = uint32(best)
	}
	return k, s, maxLoad
}

// ltMask is all ones when a < b, else 0, for a, b below 2^63 (loads, bins
// and PCG words all are): a subtraction and a shift, where b2u and choose
// take a SETcc, a zero extension, a negation and three logic operations.
func ltMask(a, b uint64) uint64 { return uint64(int64(a-b) >> 63) }

// pickMask is b where the mask m is all ones, a where it is 0.
func pickMask(m, a, b uint64) uint64 { return a ^ (a^b)&m }

// twoFixedSpan: Two-Choice (tau-delay, d-choice d = 2), DelayFixed.
func twoFixedSpan[L Load](past []L, n uint32, ring []uint32, s, inc, _ uint64) (int, uint64) {
	past = past[:n]
	add2, _ := jumpAdds(inc)
	k := 0
	for ; k < len(ring); k++ {
		x0 := uint64(pcgOutput(s)) * uint64(n)
		x1 := uint64(pcgOutput(s*pcgMul+inc)) * uint64(n)
		if min(uint32(x0), uint32(x1)) < n {
			break
		}
		s = s*pcgMul2 + add2
		a, b := x0>>32, x1>>32
		best := uint32(pickMask(ltMask(uint64(past[b]), uint64(past[a])), a, b))
		past[ring[k]]++
		ring[k] = best
	}
	return k, s
}

// twoAdversarialSpan: Two-Choice, DelayAdversarial: the lighter sample
// shown now, the heavier as it was τ balls ago, equal loads as they are
// (TauDelay's selects).
func twoAdversarialSpan[L Load](loads, past []L, ring []uint32, s, inc uint64, maxLoad L) (int, uint64, L) {
	n := uint32(len(loads))
	past = past[:len(loads)]
	add2, _ := jumpAdds(inc)
	k := 0
	for ; k < len(ring); k++ {
		x0 := uint64(pcgOutput(s)) * uint64(n)
		x1 := uint64(pcgOutput(s*pcgMul+inc)) * uint64(n)
		if min(uint32(x0), uint32(x1)) < n {
			break
		}
		s = s*pcgMul2 + add2
		a, b := x0>>32, x1>>32
		la, lb := uint64(loads[a]), uint64(loads[b])
		ra, rb := pickMask(ltMask(lb, la), la, uint64(past[a])), pickMask(ltMask(la, lb), lb, uint64(past[b]))
		best := uint32(pickMask(ltMask(rb, ra), a, b))
		v := loads[best] + 1
		loads[best] = v
		maxLoad = max(maxLoad, v)
		past[ring[k]]++
		ring[k] = best
	}
	return k, s, maxLoad
}

// The thinning family, DelayFixed, one draw a sample, ball by ball. A
// rejected sample is a branch, as in delayedThinningFixed: the state must
// advance by the samples taken, and a select would put the read of the
// past load in the chain of states. These spans are the fallback now:
// two-thinning, k-thinning with two limits and threshold/adaptive (while
// they retry) run by windows of 64 draws without that branch
// (delay_thinwin.go), and come here for what a window cannot take. A ball
// any of whose draws falls on Lemire's slow path ends the span from its
// first draw's state.

// twoThinningSpan: Two-Thinning, the first sample kept when its past load
// is below limit (arg), else the second.
func twoThinningSpan[L Load](past []L, n uint32, ring []uint32, s, inc, limit uint64) (int, uint64) {
	past = past[:n]
	k := 0
	for ; k < len(ring); k++ {
		x := uint64(pcgOutput(s)) * uint64(n)
		if uint32(x) < n {
			break
		}
		next := s*pcgMul + inc
		if uint64(past[x>>32]) >= limit {
			x = uint64(pcgOutput(next)) * uint64(n)
			if uint32(x) < n {
				break
			}
			next = next*pcgMul + inc
		}
		s = next
		past[ring[k]]++
		ring[k] = uint32(x >> 32)
	}
	return k, s
}

// kThinningSpan: K-Thinning, sample j kept when its past load is below
// limits[j], the K-th kept.
func kThinningSpan[L Load](past []L, n uint32, ring []uint32, s, inc uint64, limits []uint64) (int, uint64) {
	past = past[:n]
	first := limits[0]
	k := 0
balls:
	for ; k < len(ring); k++ {
		x := uint64(pcgOutput(s)) * uint64(n)
		if uint32(x) < n {
			break
		}
		next := s*pcgMul + inc
		if uint64(past[x>>32]) >= first {
			for j := 1; ; j++ {
				x = uint64(pcgOutput(next)) * uint64(n)
				if uint32(x) < n {
					break balls
				}
				next = next*pcgMul + inc
				if j == len(limits) || uint64(past[x>>32]) < limits[j] {
					break
				}
			}
		}
		s = next
		past[ring[k]]++
		ring[k] = uint32(x >> 32)
	}
	return k, s
}

// retrySpan: Threshold and Adaptive, samples until one's past load is
// below limit, each counted in pr but the first of each ball placed (the
// caller counts those in bulk).
func retrySpan[L Load](past []L, n uint32, ring []uint32, s, inc, limit uint64, pr *Probes) (int, uint64) {
	past = past[:n]
	k := 0
	for ; k < len(ring); k++ {
		x := uint64(pcgOutput(s)) * uint64(n)
		if uint32(x) < n {
			break
		}
		next := s*pcgMul + inc
		if uint64(past[x>>32]) >= limit {
			p := uint64(1)
			for {
				x = uint64(pcgOutput(next)) * uint64(n)
				if uint32(x) < n {
					return k, s
				}
				next = next*pcgMul + inc
				p++
				if uint64(past[x>>32]) < limit {
					break
				}
			}
			pr.Total += p - 1
			pr.Max = max(pr.Max, p)
		}
		s = next
		past[ring[k]]++
		ring[k] = uint32(x >> 32)
	}
	return k, s
}

// twinningSpan: Twinning (pk 0) and Packing (pk 1), DelayFixed, from the
// step in progress (owed balls to bin) at t balls placed: a step samples a
// bin and reads its load x τ balls old against q = ⌈t/n⌉; x < q adds 2
// balls (Twinning) or q + 1 − x (Packing), else 1. It returns, beside the
// balls placed and the state, the step in progress and the samples taken.
func twinningSpan[L Load](past []L, n uint32, ring []uint32, s, inc, t, owed uint64, bin uint32, pk uint64) (int, uint64, uint64, uint32, uint64) {
	past = past[:n]
	n64 := uint64(n)
	q := ceilDiv(t, n64)
	rem := int64(q*n64 - t) // balls placed before q grows: t > q·n ⇔ rem < 0
	samples := uint64(0)
	k := 0
	for ; owed > 0 && k < len(ring); owed-- { // the step in progress
		past[ring[k]]++
		ring[k] = bin
		k++
		if rem--; rem < 0 {
			q++
			rem += int64(n64)
		}
	}
	// Whole steps while 4 slots remain.
	for owed == 0 && k+4 <= len(ring) {
		x := uint64(pcgOutput(s)) * n64
		if uint32(x) < n {
			return k, s, 0, bin, samples
		}
		s = s*pcgMul + inc
		samples++
		b := x >> 32
		v := uint64(past[b])
		lt := uint64(b2i(v < q))
		add := 1 + lt*(1+pk*(q-v-1)) // lt = 0 cancels the garbage of q − v − 1
		switch {
		case add <= 4:
			// Without a branch on the step's size (the old load decides
			// it: a coin flip for the predictor): 4 slots, those past
			// the step's balls rewritten with the bins they hold,
			// retiring nothing.
			r := ring[k : k+4 : k+4]
			o1, o2, o3 := uint64(r[1]), uint64(r[2]), uint64(r[3])
			m1, m2, m3 := ltMask(1, add), ltMask(2, add), ltMask(3, add)
			past[r[0]]++
			past[o1] += L(m1 & 1)
			past[o2] += L(m2 & 1)
			past[o3] += L(m3 & 1)
			r[0] = uint32(b)
			r[1], r[2], r[3] = uint32(pickMask(m1, o1, b)), uint32(pickMask(m2, o2, b)), uint32(pickMask(m3, o3, b))
		case k+int(add) <= len(ring): // Packing's bins far below the average
			r := ring[k : k+int(add)]
			for _, u := range r {
				past[u]++
			}
			for j := range r {
				r[j] = uint32(b)
			}
		default: // past the ring's end: ball by ball below
			bin, owed = uint32(b), add
			continue
		}
		k += int(add)
		for rem -= int64(add); rem < 0; rem += int64(n64) {
			q++
		}
	}
	for k < len(ring) { // the ring's last slots, ball by ball
		if owed == 0 {
			x := uint64(pcgOutput(s)) * n64
			if uint32(x) < n {
				break
			}
			s = s*pcgMul + inc
			samples++
			bin = uint32(x >> 32)
			v := uint64(past[bin])
			lt := uint64(b2i(v < q))
			owed = 1 + lt*(1+pk*(q-v-1))
		}
		owed--
		past[ring[k]]++
		ring[k] = bin
		k++
		if rem--; rem < 0 {
			q++
			rem += int64(n64)
		}
	}
	return k, s, owed, bin, samples
}

// quantileFixedSpan: Quantile(δ) without a coin, DelayFixed: the rank test
// on the old vector, whose counts q follows as each ball retires the ball
// in its slot (delayedQuantile's loop, its three draws jumped). A ball
// whose retirement would grow the counts' ring goes to the general loop.
func quantileFixedSpan[L Load](past []L, n uint32, ring []uint32, s, inc uint64, q *QuantileCounts) (int, uint64) {
	past = past[:n]
	k, b, above, lo := q.k, q.b, q.above, q.lo
	cnt, mask := q.cnt, q.mask
	atB := cnt[b&mask]
	_, add3 := jumpAdds(inc)
	r := 0
	for ; r < len(ring); r++ {
		u := ring[r]
		pv := uint64(past[u])
		if pv+1-lo > mask {
			break
		}
		s1 := s*pcgMul + inc
		xi := uint64(pcgOutput(s)) * uint64(n)
		xj := uint64(pcgOutput(s1)) * uint64(n)
		xx := uint64(pcgOutput(s1*pcgMul+inc)) * uint64(atB)
		if min(uint32(xi), uint32(xj)) < n || uint32(xx) < atB {
			break
		}
		s = s*pcgMul3 + add3
		i, j, x := uint32(xi>>32), uint32(xj>>32), uint32(xx>>32)
		v := uint64(past[i])
		gt := (b - v) >> 63
		d := v ^ b
		eq := 1 ^ (d|-d)>>63
		lt := (uint64(x) - (k - above)) >> 63
		i ^= (i ^ j) & uint32(-(gt | eq&lt))
		past[u] = L(pv + 1)
		cnt[pv&mask]--
		cnt[(pv+1)&mask]++
		d = pv ^ b
		left := 1 ^ (d|-d)>>63
		d = (pv + 1) ^ b
		atB += uint32(1^(d|-d)>>63) - uint32(left)
		if above += left; above == k {
			b++
			atB = cnt[b&mask]
			above = k - uint64(atB)
		}
		if pv == lo && cnt[pv&mask] == 0 {
			lo++
		}
		ring[r] = i
	}
	q.b, q.above, q.lo = b, above, lo
	return r, s
}
