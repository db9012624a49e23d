package kernels

// The b-Batch setting (Berenbrink, Czumaj, Englert, Friedetzky, Nagel 2012;
// Los and Sauerwald, SPAA 2022; batch.go) for the processes whose decision
// reads loads beyond d-choice, (1+β), quantile and two-thinning:
// K-Thinning, Threshold and Adaptive, Twinning and Packing, and
// (k,d)-choice. Every load a ball's decision reads is its bin's load at the
// batch's start (bt's frozen loads); so is every count a rule reads (the
// average, ranks). core/process computes the limits that depend on the
// balls placed, for the batch's start, and cuts its calls at batch ends
// where a limit changes there.
//
// Steps of several balls (Twinning, Packing, (k,d)-choice): batches count
// balls, and a step is decided once, by the frozen loads of the batch in
// which its first ball lands; a step whose balls cross a batch end places
// its remaining balls first in the next batch (they are that batch's
// placements, published at its end), before any new sample — as a step cut
// by a chunk's end is finished in the next call (multiball.go).
//
// At b = 1 every ball starts a batch, the frozen loads are the loads, and
// each loop here is its process's own loop draw for draw (batch_steps_test.go).

// BatchedKThinning throws count balls by K-Thinning with fixed acceptance
// limits in the b-Batch setting: sample j < K is kept when its frozen load
// is below limits[j−1]. core passes the limits for the balls placed at the
// batch's start and never a count past the batch's end (the limits hold for
// one batch). With one limit it is BatchedTwoThinning, draw for draw.
//
// Stream: as KThinning, PCG32.Bounded(n) for each sample taken.
// 1 ≤ len(loads) ≤ MaxBins.
func BatchedKThinning[L Load](loads []L, r *PCG32, count uint64, limits []uint64, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	frozen := bt.frozen
	var chosen [2 * stageBalls]uint32
	for count > 0 {
		c := int(min(count, uint64(len(chosen)), bt.b-bt.t%bt.b))
		s = chooseThin(frozen, s, inc, limits, chosen[:c]) // by windows (thinwindow.go)
		maxLoad = placeBatch(bt, loads, chosen[:c], maxLoad)
		count -= uint64(c)
	}
	r.state = s
	return maxLoad
}

// KThinningBatched is K-Thinning's quantile tests in batches: the counts
// per load and the boundaries of KThinningCounts follow the current loads
// ball by ball (O(K) a ball, as KThinningQuantile's), and at each batch end,
// where the frozen loads become the current ones, the boundaries are copied
// to frozenB: the load of the k[j]-th heaviest bin of the batch-start
// vector, against which the batch's samples are tested.
type KThinningBatched struct {
	q       *KThinningCounts
	frozenB []uint64
}

// NewKThinningBatched is the state of n empty bins for the tests of k, as
// NewKThinningCounts.
func NewKThinningBatched(n uint64, k []uint64) *KThinningBatched {
	q := NewKThinningCounts(n, k)
	return &KThinningBatched{q: q, frozenB: make([]uint64, len(k))}
}

// StartKThinningBatched counts loads (an initial load vector) and freezes
// its boundaries for the first batch.
func StartKThinningBatched[L Load](kb *KThinningBatched, loads []L) {
	StartKThinning(kb.q, loads)
	copy(kb.frozenB, kb.q.b)
}

// countBall moves one bin from load v to v+1 in q's counts and boundaries,
// as KThinningQuantile does in its loop.
func (q *KThinningCounts) countBall(v uint64) {
	ring := q.ring
	if v+1-ring.lo > ring.mask {
		ring.grow(v + 1)
	}
	cnt, mask := ring.cnt, ring.mask
	cnt[v&mask]--
	cnt[(v+1)&mask]++
	for j, b := range q.b {
		if v == b {
			if q.above[j]++; q.above[j] == q.k[j] {
				q.b[j]++
				q.above[j] = q.k[j] - uint64(cnt[q.b[j]&mask])
			}
		}
	}
	if v == ring.lo && cnt[v&mask] == 0 {
		ring.lo++
	}
}

// BatchedKThinningQuantile throws count balls by K-Thinning with quantile
// tests in the b-Batch setting: sample j passes when its frozen load is at
// most the load at ascending position idx_j of the batch-start vector.
//
// Stream: as KThinningQuantile, PCG32.Bounded(n) for each sample taken.
// 1 ≤ len(loads) ≤ MaxBins.
func BatchedKThinningQuantile[L Load](loads []L, r *PCG32, count uint64, kb *KThinningBatched, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	frozen, fb, q := bt.frozen, kb.frozenB, kb.q
	var chosen [2 * stageBalls]uint32
	for count > 0 {
		c := int(min(count, uint64(len(chosen)), bt.b-bt.t%bt.b))
		for k := range c {
			var i uint32
			s, i = boundedFast(s, inc, n)
			for _, b := range fb {
				if uint64(frozen[i]) <= b {
					break
				}
				s, i = boundedFast(s, inc, n)
			}
			chosen[k] = i
			v := uint64(loads[i])
			q.countBall(v)
			loads[i] = L(v + 1)
		}
		// The balls are on loads already; placeBatch's increments are undone
		// first so that it records and ends the batch as for any rule.
		for _, i := range chosen[:c] {
			loads[i]--
		}
		ends := bt.ends
		maxLoad = placeBatch(bt, loads, chosen[:c], maxLoad)
		if bt.ends != ends {
			copy(fb, q.b)
		}
		count -= uint64(c)
	}
	r.state = s
	return maxLoad
}

// BatchedRetry throws count balls by Threshold or Adaptive in the b-Batch
// setting: uniform samples until one's frozen load is below limit, every
// sample counted in pr. core passes the limit for the batch's start and
// never a count past the batch's end. Some frozen load is below the limit
// (the least is at most the batch-start average, below core's limits), so
// every ball ends.
//
// Stream: as Retry, PCG32.Bounded(n) per sample. 1 ≤ len(loads) ≤ MaxBins.
func BatchedRetry[L Load](loads []L, r *PCG32, count, limit uint64, pr *Probes, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	frozen := bt.frozen
	total, most := pr.Total, pr.Max
	var chosen [2 * stageBalls]uint32
	windows := bt.retryWindows // calls end at batch ends: the choice carries over
	for count > 0 {
		c := int(min(count, uint64(len(chosen)), bt.b-bt.t%bt.b))
		// By windows (thinwindow.go) when the chunk before retried on at
		// least 1/8 of its balls, as Retry chooses.
		before := total
		if windows {
			pr.Total, pr.Max = total, most
			s = chooseRetry(frozen, s, inc, limit, pr, chosen[:c])
			total, most = pr.Total, pr.Max
		} else {
			for k := range c {
				var i uint32
				p := uint64(1)
				s, i = boundedFast(s, inc, n)
				for uint64(frozen[i]) >= limit {
					s, i = boundedFast(s, inc, n)
					p++
				}
				total += p
				most = max(most, p)
				chosen[k] = i
			}
		}
		windows = (total-before-uint64(c))*8 >= uint64(c)
		maxLoad = placeBatch(bt, loads, chosen[:c], maxLoad)
		count -= uint64(c)
	}
	bt.retryWindows = windows
	r.state = s
	pr.Total, pr.Max = total, most
	return maxLoad
}

// BatchedTwinning places count balls by Twinning (packing false) or Packing
// (packing true) in the b-Batch setting: a step samples a uniform bin and
// decides by its frozen load x against the batch-start average W₀/n
// (q = ⌈W₀/n⌉, W₀ = w the balls placed at the batch's start): Twinning 2
// balls if x < q, else 1; Packing q + 1 − x balls if x < q (the bin as the
// batch's start saw it raised to ⌈W₀/n⌉ + 1), else 1. A step's balls go to
// its bin; those past the batch's end are owed (st) and placed first in
// the next batch. core never passes a count past the batch's end.
//
// Stream: as Twinning and Packing, one PCG32.Bounded(n) per step.
// 1 ≤ len(loads) ≤ MaxBins.
func BatchedTwinning[L Load](loads []L, r *PCG32, w, count uint64, st *MultiStep, packing bool, bt *Batch[L], maxLoad L) L {
	if bt.pending == nil {
		return batchedTwinningWhole(loads, r, w, count, st, packing, bt, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	q := ceilDiv(w, uint64(n))
	frozen := bt.frozen
	samples, owed, bin := st.Samples, st.Owed, uint32(st.Bin)
	var chosen [2*stageBalls + 3]uint32 // three past the room: a step's first four written ahead
	for count > 0 {
		c := int(min(count, 2*stageBalls, bt.b-bt.t%bt.b))
		k := 0
		for ; owed > 0 && k < c; owed-- {
			chosen[k] = bin
			k++
		}
		for k < c {
			var i uint32
			s, i = boundedFast(s, inc, n)
			samples++
			x := uint64(frozen[i])
			// No branch on the test, a coin flip to the predictor: below
			// the average twinning adds 1 and packing q − x (wrapped, times 0
			// otherwise).
			lt := uint64(b2i(x < q))
			a := 1 + lt
			if packing {
				a = 1 + lt*(q-x)
			}
			chosen[k], chosen[k+1], chosen[k+2], chosen[k+3] = i, i, i, i
			take := min(a, uint64(c-k))
			for j := 4; j < int(take); j++ { // packing's steps of more than four balls
				chosen[k+j] = i
			}
			owed, bin = a-take, i
			k += int(take)
		}
		maxLoad = placeBatch(bt, loads, chosen[:c], maxLoad)
		count -= uint64(c)
	}
	st.Samples, st.Owed, st.Bin = samples, owed, uint64(bin)
	r.state = s
	return maxLoad
}

// batchedTwinningWhole is BatchedTwinning for b ≥ n, where the batch's
// bins are not listed (the frozen loads are a copy taken at its end): a
// step's balls are one add to its bin, not one entry each in a list of
// chosen bins, so a step costs the same whatever its length.
func batchedTwinningWhole[L Load](loads []L, r *PCG32, w, count uint64, st *MultiStep, packing bool, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	q := ceilDiv(w, uint64(n))
	frozen := bt.frozen
	samples, owed, bin := st.Samples, st.Owed, uint32(st.Bin)
	for count > 0 {
		left := bt.b - bt.t%bt.b
		c := min(count, left)
		placed := min(owed, c)
		if placed > 0 {
			v := loads[bin] + L(placed)
			loads[bin] = v
			maxLoad = max(maxLoad, v)
			owed -= placed
		}
		for placed < c {
			var i uint32
			s, i = boundedFast(s, inc, n)
			samples++
			x := uint64(frozen[i])
			lt := uint64(b2i(x < q)) // no branch, as BatchedTwinning
			a := 1 + lt
			if packing {
				a = 1 + lt*(q-x)
			}
			take := min(a, c-placed)
			v := loads[i] + L(take)
			loads[i] = v
			maxLoad = max(maxLoad, v)
			owed, bin = a-take, i
			placed += take
		}
		bt.t += c
		if c == left {
			maxLoad = endBatch(bt, loads, maxLoad)
		}
		count -= c
	}
	st.Samples, st.Owed, st.Bin = samples, owed, uint64(bin)
	r.state = s
	return maxLoad
}

// BatchedKDChoice places count balls by (k,d)-choice in the b-Batch
// setting: a step draws d uniform slots and ranks them by their frozen
// loads (ties by position, as KDChoice), one ball on each of the k first,
// in that order; balls past the batch's end are owed (pick[next:owe]) and
// placed first in the next batch.
//
// Stream: as KDChoice, d PCG32.Bounded(n) per step. 1 ≤ k ≤ d,
// 1 ≤ len(loads) ≤ MaxBins.
func BatchedKDChoice[L Load](loads []L, r *PCG32, count uint64, st *KDState, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	frozen := bt.frozen
	steps := uint64(0)
	var chosen [2 * stageBalls]uint32
	for count > 0 {
		c := int(min(count, uint64(len(chosen)), bt.b-bt.t%bt.b))
		for k := range c {
			if st.next == st.owe {
				s = fillBounded(st.idx, s, inc, n)
				steps++
				kdOrder(frozen, st.idx, st)
				st.next, st.owe = 0, st.k
			}
			chosen[k] = st.pick[st.next]
			st.next++
		}
		maxLoad = placeBatch(bt, loads, chosen[:c], maxLoad)
		count -= uint64(c)
	}
	st.Samples += steps * uint64(st.d)
	r.state = s
	return maxLoad
}

// DelayedKThinning throws count balls by K-Thinning with fixed acceptance
// limits (core's ⌈t/n + θj⌉ for the stretch, t the balls placed: the count
// is exact, only loads are old) in τ-Delay's setting, --delay fixed: every
// sample's load is read as it was τ balls ago (dl's past loads), as
// delayedThinningFixed reads two-thinning's first sample. With one limit it
// is DelayedTwoThinning in DelayFixed, draw for draw.
//
// Stream: as KThinning, PCG32.Bounded(n) for each sample taken. dl in
// DelayFixed; 1 ≤ len(loads) ≤ MaxBins.
func DelayedKThinning[L Load](loads []L, r *PCG32, count uint64, limits []uint64, dl *Delay[L], maxLoad L) L {
	general := func(c uint64, maxLoad L) L { return delayedKThinning(loads, r, c, limits, dl, maxLoad) }
	span := func(loads, past []L, ring []uint32, s, inc, _ uint64, maxLoad L) (int, uint64, L) {
		return kThinningWinSpan(loads, past, ring, s, inc, limits, maxLoad) // by windows (delay_thinwin.go)
	}
	return windowSpans(loads, r, count, dl, 0, maxLoad, span, general)
}

// delayedKThinning is DelayedKThinning's general loop (delay_spans.go runs
// the balls after the first τ).
func delayedKThinning[L Load](loads []L, r *PCG32, count uint64, limits []uint64, dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	tau, t, past, bins := dl.tau, dl.t, dl.past, dl.bins
	slot := t % tau
	for ; count > 0; count-- {
		var i uint32
		s, i = boundedFast(s, inc, n)
		for _, lim := range limits {
			if uint64(past[i]) < lim {
				break
			}
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

// DelayedKThinningQuantile throws count balls by K-Thinning with quantile
// tests in τ-Delay's setting, --delay fixed: every sample's load τ balls
// old is tested against the loads at the tests' positions in the vector of
// τ balls ago, whose counts and boundaries q follows (O(K) a ball, as a
// ball enters the old vector), as DelayedQuantile ranks quantile's.
//
// Stream: as KThinningQuantile. dl in DelayFixed, q from empty bins;
// 1 ≤ len(loads) ≤ MaxBins.
func DelayedKThinningQuantile[L Load](loads []L, r *PCG32, count uint64, q *KThinningCounts, dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	tau, t, past, bins := dl.tau, dl.t, dl.past, dl.bins
	slot := t % tau
	for ; count > 0; count-- {
		var i uint32
		s, i = boundedFast(s, inc, n)
		for _, b := range q.b {
			if uint64(past[i]) <= b {
				break
			}
			s, i = boundedFast(s, inc, n)
		}
		v := loads[i] + 1
		loads[i] = v
		maxLoad = max(maxLoad, v)
		if t >= tau {
			old := bins[slot]
			q.countBall(uint64(past[old]))
			past[old]++
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
