package kernels

import "slices"

// The memory process (Mitzenmacher, Prabhakar, Shah, "Load balancing with
// memory", FOCS 2002): each ball samples d bins uniformly with replacement
// and also sees the K bins of a cache; it goes to the least loaded of the
// d + K candidates, and the cache then keeps the K least loaded of the
// (distinct) candidates, loads read after the placement. With lastUsed the
// cache (K = 1) keeps the bin that received the ball instead (the "most
// recently used bin" of Los, Sauerwald, Sylvester, SODA 2022); the two
// differ only when the ball's bin tied with the other candidate's.
//
// Ties. The ball goes to the first least loaded candidate in the order
// samples (draw order), then cached bins (slot order). The cache update
// runs over the samples in draw order: a sample not yet cached and lighter
// (after the placement) than the heaviest cached bin takes that bin's slot
// (the first such slot). Both rules read positions, never bin names, so the
// process is equivariant under relabelling the bins; any two outcomes of a
// tie differ by swapping two bins of equal load that are both candidates,
// which is the same state up to names. So the law of the loads is that of
// uniformly random tie-breaking (core/engine/memory_test.go checks it
// against the Markov chain with random ties, cache included).
//
// The cache holds K distinct bins (the caller draws them before the first
// ball); a sample already cached is not added twice, so it stays distinct.

// Memory throws count balls by the memory process with d samples a ball and
// the cache cache (K = len(cache) ≥ 1 distinct bins, updated in place), and
// returns the new maximum load. samples is scratch for d indices (unused
// when d = 1 and K = 1). lastUsed needs K = 1.
//
// Stream: d PCG32.Bounded(n) per ball, nothing else.
// 1 ≤ len(loads) ≤ MaxBins, d ≥ 1.
func Memory[L Load](loads []L, r *PCG32, count uint64, d int, cache, samples []uint32, lastUsed bool, maxLoad L) L {
	switch {
	case d == 1 && len(cache) == 1:
		return memoryOne(loads, r, count, &cache[0], lastUsed, maxLoad)
	case d == 1:
		return memoryOneSample(loads, r, count, cache, maxLoad)
	}
	return memoryGeneral(loads, r, count, cache, samples[:d], lastUsed, maxLoad)
}

// memoryOneSample is Memory with one sample and K ≥ 2 cached bins (the
// least-loaded rule): one pass over the cache finds the lightest and
// whether the sample is cached, a second the heaviest after the ball.
func memoryOneSample[L Load](loads []L, r *PCG32, count uint64, cache []uint32, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	for ; count > 0; count-- {
		var j uint32
		s, j = boundedFast(s, inc, n)
		best, bl := j, loads[j]
		in := false
		for _, c := range cache {
			if c == j {
				in = true
			}
			if lc := loads[c]; lc < bl {
				best, bl = c, lc
			}
		}
		bl++
		loads[best] = bl
		maxLoad = max(maxLoad, bl)
		if in {
			continue
		}
		w, wl := 0, loads[cache[0]]
		for q := 1; q < len(cache); q++ {
			if lq := loads[cache[q]]; lq > wl {
				w, wl = q, lq
			}
		}
		x := cache[w]
		if loads[j] < wl {
			x = j
		}
		cache[w] = x
	}
	r.state = s
	return maxLoad
}

// memoryOne is Memory with one sample and one cached bin, the Memory
// process of the papers: the cached bin's load is kept in a register, and
// the choice and the update are conditional moves.
func memoryOne[L Load](loads []L, r *PCG32, count uint64, cached *uint32, lastUsed bool, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	c := *cached
	lc := loads[c]
	if lastUsed {
		for ; count > 0; count-- {
			var i uint32
			s, i = boundedFast(s, inc, n)
			li := loads[i]
			if lc < li {
				i, li = c, lc
			}
			li++
			loads[i] = li
			maxLoad = max(maxLoad, li)
			c, lc = i, li
		}
	} else {
		for ; count > 0; count-- {
			var i uint32
			s, i = boundedFast(s, inc, n)
			li := loads[i]
			t, lt := i, li
			if lc < li {
				t, lt = c, lc
			}
			lt++
			loads[t] = lt
			maxLoad = max(maxLoad, lt)
			if t == c { // the cached bin took the ball (or was the sample)
				lc = lt
			}
			if lt < lc { // the sample took it and is still the lighter
				c, lc = t, lt
			}
		}
	}
	*cached = c
	r.state = s
	return maxLoad
}

// memoryGeneral is Memory for any d and K: O(d·K) a ball.
func memoryGeneral[L Load](loads []L, r *PCG32, count uint64, cache, samples []uint32, lastUsed bool, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	for ; count > 0; count-- {
		for k := range samples {
			s, samples[k] = boundedFast(s, inc, n)
		}
		best := samples[0]
		bl := loads[best]
		for _, j := range samples[1:] {
			if lj := loads[j]; lj < bl {
				best, bl = j, lj
			}
		}
		for _, j := range cache {
			if lj := loads[j]; lj < bl {
				best, bl = j, lj
			}
		}
		bl++
		loads[best] = bl
		maxLoad = max(maxLoad, bl)
		if lastUsed {
			cache[0] = best
			continue
		}
		for _, j := range samples {
			w, wl := 0, loads[cache[0]]
			in := cache[0] == j
			for q := 1; q < len(cache); q++ {
				in = in || cache[q] == j
				if lq := loads[cache[q]]; lq > wl {
					w, wl = q, lq
				}
			}
			if !in && loads[j] < wl {
				cache[w] = j
			}
		}
	}
	r.state = s
	return maxLoad
}

// FirstCache fills cache with len(cache) distinct bins of [0, n), a
// uniformly random ordered tuple: each slot a uniform bin, redrawn while it
// is in an earlier slot. The order matters beside the set: the loops break
// ties by slot, so the slots must be exchangeable for the process to be
// (Floyd's algorithm, RandomSubsets, gives a uniform set in a biased order).
//
// Stream: PCG32.Bounded(n) draws until the slots are full (K at K = 1).
// len(cache) ≤ n.
func FirstCache(cache []uint32, n uint32, r *PCG32) {
	for i := range cache {
		x := r.Bounded(n)
		for slices.Contains(cache[:i], x) {
			x = r.Bounded(n)
		}
		cache[i] = x
	}
}
