package kernels

import (
	"slices"
	"unsafe"
)

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
// when d = 1). lastUsed needs K = 1.
//
// Stream: d PCG32.Bounded(n) per ball, nothing else.
// 1 ≤ len(loads) ≤ MaxBins, d ≥ 1.
func Memory[L Load](loads []L, r *PCG32, count uint64, d int, cache, samples []uint32, lastUsed bool, maxLoad L) L {
	switch {
	case d == 1 && len(cache) == 1:
		return memoryOne(loads, r, count, &cache[0], lastUsed, maxLoad)
	case d == 1 && len(cache) == 2:
		return memoryOneTwo(loads, r, count, (*[2]uint32)(cache), maxLoad)
	case d == 1 && len(cache) == 3:
		return memoryOneThree(loads, r, count, (*[3]uint32)(cache), maxLoad)
	case d == 1:
		return memoryOneSample(loads, r, count, cache, maxLoad)
	case len(cache) == 1:
		return memoryOneCached(loads, r, count, &cache[0], samples[:d], lastUsed, maxLoad)
	}
	if d == 2 && len(cache) == 2 {
		return memoryTwoTwo(loads, r, count, (*[2]uint32)(cache), maxLoad)
	}
	return memoryGeneral(loads, r, count, cache, samples[:d], maxLoad)
}

// memoryOneSample is Memory with one sample and K ≥ 2 cached bins (the
// least-loaded rule). Up to memoryRegs cached bins keep their loads in a
// stack array beside their names, so a pass over the cache reads no load
// array; beyond, the loads are read where they lie.
func memoryOneSample[L Load](loads []L, r *PCG32, count uint64, cache []uint32, maxLoad L) L {
	if len(cache) > memoryRegs {
		return memoryOneSampleWide(loads, r, count, cache, maxLoad)
	}
	var buf [memoryRegs]L
	cl := buf[:len(cache)]
	for q, c := range cache {
		cl[q] = loads[c]
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	for ; count > 0; count-- {
		var j uint32
		s, j = boundedFast(s, inc, n)
		lj := loads[j]
		qmin, lmin, qin := 0, cl[0], -1
		for q := range cl {
			if cache[q] == j {
				qin = q
			}
			if cl[q] < lmin {
				qmin, lmin = q, cl[q]
			}
		}
		if lmin < lj { // to the lightest cached bin
			lmin++
			loads[cache[qmin]] = lmin
			cl[qmin] = lmin
			maxLoad = max(maxLoad, lmin)
		} else { // to the sample
			lj++
			loads[j] = lj
			maxLoad = max(maxLoad, lj)
			if qin >= 0 {
				cl[qin] = lj
			}
		}
		if qin >= 0 {
			continue // the sample was cached already
		}
		w, wl := 0, cl[0]
		for q := 1; q < len(cl); q++ {
			if cl[q] > wl {
				w, wl = q, cl[q]
			}
		}
		if lj < wl {
			cache[w], cl[w] = j, lj
		}
	}
	r.state = s
	return maxLoad
}

// memoryOneTwo is Memory with one sample and two cached bins, both in
// registers: the (1, 2) scheme without the cache's round trip through
// memory that bounds memoryOneSample.
func memoryOneTwo[L Load](loads []L, r *PCG32, count uint64, cache *[2]uint32, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	c0, c1 := cache[0], cache[1]
	l0, l1 := loads[c0], loads[c1]
	for ; count > 0; count-- {
		var j uint32
		s, j = boundedFast(s, inc, n)
		lj := loads[j]
		tc, tl := c0, l0 // the lighter cached bin, slot 0 on a tie
		if l1 < l0 {
			tc, tl = c1, l1
		}
		t, v := j, lj
		if tl < lj {
			t, v = tc, tl
		}
		v++
		loads[t] = v
		maxLoad = max(maxLoad, v)
		if t == c0 {
			l0 = v
		}
		if t == c1 {
			l1 = v
		}
		if j == c0 || j == c1 {
			continue // the sample was cached already
		}
		if t == j {
			lj = v
		}
		if l1 > l0 { // the heavier cached bin is slot 1 (slot 0 on a tie)
			if lj < l1 {
				c1, l1 = j, lj
			}
		} else if lj < l0 {
			c0, l0 = j, lj
		}
	}
	cache[0], cache[1] = c0, c1
	r.state = s
	return maxLoad
}

// memoryOneThree is Memory with one sample and three cached bins, names and
// loads in registers: memoryOneSample's rule (the lightest cached bin, the
// first slot on a tie, against the sample, which wins ties; then the
// heaviest cached bin, the first slot on a tie, gives its slot to a sample
// strictly lighter and not cached) without its loops over the cache.
func memoryOneThree[L Load](loads []L, r *PCG32, count uint64, cache *[3]uint32, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	c0, c1, c2 := cache[0], cache[1], cache[2]
	l0, l1, l2 := loads[c0], loads[c1], loads[c2]
	for ; count > 0; count-- {
		var j uint32
		s, j = boundedFast(s, inc, n)
		lj := loads[j]
		tc, tl := c0, l0 // the lightest cached bin, the first slot on a tie
		if l1 < tl {
			tc, tl = c1, l1
		}
		if l2 < tl {
			tc, tl = c2, l2
		}
		t, v := j, lj
		if tl < lj {
			t, v = tc, tl
		}
		v++
		loads[t] = v
		maxLoad = max(maxLoad, v)
		// The bin raised, in whichever register holds it (the sample may be
		// a cached bin).
		if t == c0 {
			l0 = v
		}
		if t == c1 {
			l1 = v
		}
		if t == c2 {
			l2 = v
		}
		if j == c0 || j == c1 || j == c2 {
			continue // the sample was cached already
		}
		if t == j {
			lj = v
		}
		switch { // the heaviest cached bin, the first slot on a tie
		case l0 >= l1 && l0 >= l2:
			if lj < l0 {
				c0, l0 = j, lj
			}
		case l1 >= l2:
			if lj < l1 {
				c1, l1 = j, lj
			}
		default:
			if lj < l2 {
				c2, l2 = j, lj
			}
		}
	}
	cache[0], cache[1], cache[2] = c0, c1, c2
	r.state = s
	return maxLoad
}

// memoryTwoTwo is Memory with two samples and two cached bins, names and
// loads in registers: memoryGeneral's rule (the first least loaded of
// sample 0, sample 1, slot 0, slot 1; then each sample in draw order, not
// cached and strictly lighter than the heaviest cached bin, the first slot
// on a tie, takes that slot) without re-reading the loads.
func memoryTwoTwo[L Load](loads []L, r *PCG32, count uint64, cache *[2]uint32, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	c0, c1 := cache[0], cache[1]
	l0, l1 := loads[c0], loads[c1]
	for ; count > 0; count-- {
		var a, b uint32
		s, a = boundedFast(s, inc, n)
		s, b = boundedFast(s, inc, n)
		la, lb := loads[a], loads[b]
		t, v := a, la
		if lb < v {
			t, v = b, lb
		}
		if l0 < v {
			t, v = c0, l0
		}
		if l1 < v {
			t, v = c1, l1
		}
		v++
		loads[t] = v
		maxLoad = max(maxLoad, v)
		if t == a {
			la = v
		}
		if t == b {
			lb = v
		}
		if t == c0 {
			l0 = v
		}
		if t == c1 {
			l1 = v
		}
		if a != c0 && a != c1 {
			if l1 > l0 { // the heavier cached bin is slot 1 (slot 0 on a tie)
				if la < l1 {
					c1, l1 = a, la
				}
			} else if la < l0 {
				c0, l0 = a, la
			}
		}
		if b != c0 && b != c1 { // a, if now cached, counts as cached
			if l1 > l0 {
				if lb < l1 {
					c1, l1 = b, lb
				}
			} else if lb < l0 {
				c0, l0 = b, lb
			}
		}
	}
	cache[0], cache[1] = c0, c1
	r.state = s
	return maxLoad
}

// memoryRegs is the most cached bins memoryOneSample keeps loads of.
const memoryRegs = 16

// memoryOneSampleWide is memoryOneSample for more than memoryRegs cached
// bins: one pass over the cache finds the lightest and whether the sample
// is cached, a second the heaviest after the ball.
func memoryOneSampleWide[L Load](loads []L, r *PCG32, count uint64, cache []uint32, maxLoad L) L {
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
	if staged(len(loads) * int(unsafe.Sizeof(loads[0]))) {
		return memoryOneStaged(loads, r, count, cached, lastUsed, maxLoad)
	}
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

// memoryOneStaged is memoryOne drawing a block's samples ahead (see
// staging.go), so that their loads' cache misses overlap.
func memoryOneStaged[L Load](loads []L, r *PCG32, count uint64, cached *uint32, lastUsed bool, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	c := *cached
	lc := loads[c]
	var idx [stageBalls]uint32
	for count > 0 {
		b := int(min(count, stageBalls))
		s = fillBounded(idx[:b], s, inc, n)
		prefetchLoads(loads, idx[:b])
		for _, i := range idx[:b] {
			li := loads[i]
			t, lt := i, li
			if lc < li {
				t, lt = c, lc
			}
			lt++
			loads[t] = lt
			maxLoad = max(maxLoad, lt)
			if t == c {
				lc = lt
			}
			if lt < lc || lastUsed {
				c, lc = t, lt
			}
		}
		count -= uint64(b)
	}
	*cached = c
	r.state = s
	return maxLoad
}

// memoryOneCached is Memory with d ≥ 2 samples and one cached bin, whose
// load is kept in a register: each sample in turn, if lighter than the
// cached bin, takes its place (Memory's update at K = 1).
func memoryOneCached[L Load](loads []L, r *PCG32, count uint64, cached *uint32, samples []uint32, lastUsed bool, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	c := *cached
	lc := loads[c]
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
		if lc < bl {
			best, bl = c, lc
		}
		bl++
		loads[best] = bl
		maxLoad = max(maxLoad, bl)
		if best == c {
			lc = bl
		}
		if lastUsed {
			c, lc = best, bl
			continue
		}
		for _, j := range samples {
			if lj := loads[j]; lj < lc {
				c, lc = j, lj // j ≠ c: the cached bin is never lighter than itself
			}
		}
	}
	*cached = c
	r.state = s
	return maxLoad
}

// memoryGeneral is Memory for d ≥ 2 and K ≥ 2 (the least-loaded rule):
// O(d·K) a ball.
func memoryGeneral[L Load](loads []L, r *PCG32, count uint64, cache, samples []uint32, maxLoad L) L {
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

// The memory process on the histogram engine's levels. The process is
// exchangeable (its law does not change when bins are renamed), so the
// counts of bins per load together with the loads of the K cached bins are
// a Markov chain, and it is enough to run that chain. A ball's sample is a
// uniform rank; the bins are named by rank afresh before every ball, the
// cached bins of a level taking its lowest ranks (slot order), so a sample
// of rank r at level ℓ is a cached bin with probability (cached at
// ℓ)/count(ℓ), and two samples of one rank are one bin. Ties: as Memory's,
// by position (samples in draw order, then the cache); any tie rule gives
// the same law (see above).

// MemoryCandidate is one candidate bin of a ball on the levels: its rank in
// the order of loads (before the ball) and its load.
type MemoryCandidate struct{ rank, load uint64 }

// LevelsMemory throws count balls by the memory process with d samples a
// ball on lv. cache holds the loads of the K = len(cache) ≥ 1 cached bins
// (slot order; all 0 before the first ball, when any K bins are a uniform
// choice); cands is scratch for d + K candidates. lastUsed needs K = 1.
//
// Stream: d rank draws per ball (PCG32.Bounded(n), or Bounded64 when
// n > MaxBins), nothing else.
func LevelsMemory(lv *Levels, r *PCG32, count uint64, d int, cache []uint64, cands []MemoryCandidate, lastUsed bool) {
	n := lv.n
	if d == 1 && len(cache) == 1 && n <= MaxBins {
		levelsMemoryOne(lv, r, count, &cache[0], lastUsed)
		return
	}
	for ; count > 0; count-- {
		lo := lv.lo
		c := lv.view()
		cs := cands[:0]
		for q, l := range cache {
			i := int(l - lo)
			var rank uint64
			if i > 0 {
				rank = c[i-1]
			}
			for _, e := range cache[:q] {
				if e == l {
					rank++
				}
			}
			cs = append(cs, MemoryCandidate{rank, l})
		}
		k := len(cs)
	samples:
		for range d {
			var x uint64
			if n <= MaxBins {
				x = uint64(r.Bounded(uint32(n)))
			} else {
				x = r.Bounded64(n)
			}
			for _, e := range cs {
				if e.rank == x {
					continue samples // a cached bin, or a bin drawn before
				}
			}
			cs = append(cs, MemoryCandidate{x, lo + uint64(lv.Level(x))})
		}
		// The first least loaded, samples (in draw order) before the cache.
		best := k % len(cs)
		for j := range cs {
			jj := (k + j) % len(cs)
			if cs[jj].load < cs[best].load {
				best = jj
			}
		}
		lv.Move(int(cs[best].load - lo))
		cs[best].load++
		if lastUsed {
			cache[0] = cs[best].load
			continue
		}
		// The cache keeps the K least loaded candidates (selection).
		for q := range cache {
			m := q
			for j := q + 1; j < len(cs); j++ {
				if cs[j].load < cs[m].load {
					m = j
				}
			}
			cs[q], cs[m] = cs[m], cs[q]
			cache[q] = cs[q].load
		}
	}
}

// levelsMemoryOne is LevelsMemory with one sample and one cached bin, whose
// rank is the first of its level: the sample is the cached bin when its rank
// is that one.
func levelsMemoryOne(lv *Levels, r *PCG32, count uint64, cached *uint64, lastUsed bool) {
	n := uint32(lv.n)
	lc := *cached
	for ; count > 0; count-- {
		x := uint64(r.Bounded(n))
		lo := lv.lo
		i := lv.Level(x)
		ic := int(lc - lo)
		var first uint64
		if ic > 0 {
			first = lv.cum[lv.head+ic-1]
		}
		li := lo + uint64(i)
		switch {
		case i == ic && x == first, lc < li: // to the cached bin
			lv.Move(ic)
			lc++
		default: // to the sample, ties included (samples come first)
			lv.Move(i)
			if li+1 < lc || lastUsed {
				lc = li + 1
			}
		}
	}
	*cached = lc
}

// StartLevelsMemory sets the loads of the K = len(cache) cached bins before
// the first ball on lv, for a start that is not empty (--initial): the loads
// of K distinct uniform bins, drawn as K distinct uniform ranks (the bins'
// names are a uniform order within each level). Where every bin holds one
// load it is that load, and nothing is drawn (the empty start's stream).
func StartLevelsMemory(lv *Levels, r *PCG32, cache []uint64) {
	if lv.Len() == 1 {
		for q := range cache {
			cache[q] = lv.lo
		}
		return
	}
	n := lv.n
	ranks := make([]uint64, len(cache))
	for q := range cache {
		for {
			var x uint64
			if n <= MaxBins {
				x = uint64(r.Bounded(uint32(n)))
			} else {
				x = r.Bounded64(n)
			}
			if !slices.Contains(ranks[:q], x) {
				ranks[q] = x
				break
			}
		}
		cache[q] = lv.lo + uint64(lv.Level(ranks[q]))
	}
}
