package kernels

// τ-Delay's setting, --delay fixed, for Threshold and Adaptive, Twinning and
// Packing, and (k,d)-choice, as DelayedKThinning is K-Thinning's
// (batch_steps.go): every load a decision reads is its bin's load
// τ balls ago (dl's past loads, the loads after max(0, t − τ) balls); every
// count a rule reads is exact (core passes the limits for the balls placed;
// Twinning's and Packing's average is t/n for the t balls placed before the
// step). Every ball placed enters dl's record one by one, the balls of a
// step too. A step cut by count's end is finished first in the next call
// (st), as multiball.go's loops do. At τ = 0 core runs the processes' own
// loops.

// delayPush records ball t on bin i in the fixed delay's ring: the ball
// that leaves the window, τ balls before, enters past.
func delayPush[L Load](past []L, bins []uint32, i uint32, t, tau, slot uint64) (uint64, uint64) {
	if t >= tau {
		past[bins[slot]]++
	}
	bins[slot] = i
	if slot++; slot == tau {
		slot = 0
	}
	return t + 1, slot
}

// DelayedRetry throws count balls by Threshold or Adaptive in τ-Delay's
// setting, --delay fixed: uniform samples until one's load τ balls old is
// below limit, every sample counted in pr. core passes the limit for the
// balls placed (adaptive's holds up to the next multiple of n). Some old
// load is below it (the old loads sum to t − min(t, τ) ≤ t, so the least is
// at most ⌊t/n⌋, below both limits), so every ball ends.
//
// Stream: as Retry, PCG32.Bounded(n) per sample. dl in DelayFixed;
// 1 ≤ len(loads) ≤ MaxBins.
func DelayedRetry[L Load](loads []L, r *PCG32, count, limit uint64, pr *Probes, dl *Delay[L], maxLoad L) L {
	general := func(c uint64, maxLoad L) L { return delayedRetry(loads, r, c, limit, pr, dl, maxLoad) }
	// By windows (delay_thinwin.go) while at least 1/8 of the balls retry,
	// as Retry chooses (threshold.go): with fewer the plain span's branch
	// is predicted, and it is faster. The first span decides by the
	// probes so far.
	windows := (pr.Total-min(pr.Total, dl.t))*8 >= dl.t
	span := func(loads, past []L, ring []uint32, s, inc, _ uint64, maxLoad L) (int, uint64, L) {
		var k int
		before := pr.Total
		if windows {
			k, s, maxLoad = retryWinSpan(loads, past, ring, s, inc, limit, pr, maxLoad)
		} else {
			k, s = retrySpan(past, uint32(len(loads)), ring, s, inc, limit, pr)
			maxLoad = addPlaced(loads, ring[:k], maxLoad)
		}
		windows = (pr.Total-before)*8 >= uint64(k) // retries of this span's balls
		if k > 0 {
			pr.Total += uint64(k) // each ball's first probe
			pr.Max = max(pr.Max, 1)
		}
		return k, s, maxLoad
	}
	return windowSpans(loads, r, count, dl, 0, maxLoad, span, general)
}

// delayedRetry is DelayedRetry's general loop (delay_spans.go runs the
// balls after the first τ).
func delayedRetry[L Load](loads []L, r *PCG32, count, limit uint64, pr *Probes, dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	tau, t, past, bins := dl.tau, dl.t, dl.past, dl.bins
	slot := t % tau
	total, most := pr.Total, pr.Max
	for ; count > 0; count-- {
		var i uint32
		p := uint64(1)
		s, i = boundedFast(s, inc, n)
		for uint64(past[i]) >= limit {
			s, i = boundedFast(s, inc, n)
			p++
		}
		total += p
		most = max(most, p)
		v := loads[i] + 1
		loads[i] = v
		maxLoad = max(maxLoad, v)
		t, slot = delayPush(past, bins, i, t, tau, slot)
	}
	dl.t = t
	r.state = s
	pr.Total, pr.Max = total, most
	return maxLoad
}

// DelayedTwinning places count balls by Twinning (packing false) or Packing
// (packing true) in τ-Delay's setting, --delay fixed: a step samples a
// uniform bin and reads its load x as it was τ balls ago, against the
// current average t/n (q = ⌈t/n⌉, t the balls placed before the step):
// Twinning 2 balls if x < q, else 1; Packing q + 1 − x balls if x < q,
// else 1 — the count is computed from the old load (the bin as the read
// saw it raised to ⌈t/n⌉ + 1; its current load may be higher), as the
// batches compute it from the frozen load (BatchedTwinning).
//
// Packing runs on runs of the last τ balls (packing_runs.go), Twinning,
// whose steps are 1 or 2 balls, on the ring's slots (twinningSpan).
//
// Stream: as Twinning and Packing, one PCG32.Bounded(n) per step. dl in
// DelayFixed; 1 ≤ len(loads) ≤ MaxBins.
func DelayedTwinning[L Load](loads []L, r *PCG32, count uint64, st *MultiStep, packing bool, dl *Delay[L], maxLoad L) L {
	if packing {
		return delayedPacking(loads, r, count, st, 1, dl, maxLoad)
	}
	general := func(c uint64, maxLoad L) L { return delayedTwinning(loads, r, c, st, false, dl, maxLoad) }
	past := dl.past[:len(loads)]
	n := uint32(len(loads))
	return delayedSpans(dl, count, maxLoad, func(ring []uint32, maxLoad L) (int, L) {
		k, s, owed, bin, samples := twinningSpan(past, n, ring, r.state, r.inc(), dl.t, st.Owed, uint32(st.Bin), 0)
		r.state, st.Owed, st.Bin = s, owed, uint64(bin)
		st.Samples += samples
		return k, addPlaced(loads, ring[:k], maxLoad)
	}, general)
}

// delayedTwinning is DelayedTwinning's general loop (delay_spans.go runs
// the balls after the first τ).
func delayedTwinning[L Load](loads []L, r *PCG32, count uint64, st *MultiStep, packing bool, dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	n64 := uint64(n)
	tau, t, past, bins := dl.tau, dl.t, dl.past, dl.bins
	slot := t % tau
	q := ceilDiv(t, n64)
	qn := q * n64
	samples, owed, bin := st.Samples, st.Owed, uint32(st.Bin)
	for ; count > 0; count-- {
		if owed == 0 {
			s, bin = boundedFast(s, inc, n)
			samples++
			x := uint64(past[bin])
			lt := uint64(b2i(x < q))
			owed = 1 + lt
			if packing {
				owed = 1 + lt*(q-x)
			}
		}
		v := loads[bin] + 1
		loads[bin] = v
		maxLoad = max(maxLoad, v)
		owed--
		t, slot = delayPush(past, bins, bin, t, tau, slot)
		if t > qn {
			q++
			qn += n64
		}
	}
	dl.t = t
	st.Samples, st.Owed, st.Bin = samples, owed, uint64(bin)
	r.state = s
	return maxLoad
}

// DelayedKDChoice places count balls by (k,d)-choice in τ-Delay's setting,
// --delay fixed: a step draws d uniform slots and ranks them by their loads
// τ balls ago (ties by position, as KDChoice), one ball on each of the k
// first, in that order; balls past count's end are owed (pick[next:owe]).
// With k = 1 it is d-choice reading every sample τ balls old.
//
// Stream: as KDChoice, d PCG32.Bounded(n) per step. dl in DelayFixed;
// 1 ≤ k ≤ d, 1 ≤ len(loads) ≤ MaxBins.
func DelayedKDChoice[L Load](loads []L, r *PCG32, count uint64, st *KDState, dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	tau, t, past, bins := dl.tau, dl.t, dl.past, dl.bins
	slot := t % tau
	steps := uint64(0)
	for ; count > 0; count-- {
		if st.next == st.owe {
			s = fillBounded(st.idx, s, inc, n)
			steps++
			kdOrder(past, st.idx, st)
			st.next, st.owe = 0, st.k
		}
		b := st.pick[st.next]
		st.next++
		v := loads[b] + 1
		loads[b] = v
		maxLoad = max(maxLoad, v)
		t, slot = delayPush(past, bins, b, t, tau, slot)
	}
	dl.t = t
	st.Samples += steps * uint64(st.d)
	r.state = s
	return maxLoad
}
