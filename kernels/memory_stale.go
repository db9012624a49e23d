package kernels

// The memory process (memory.go) in b-Batch's setting (batch.go) and in
// τ-Delay's with --delay fixed (delay.go), issue 17 item 8: every load the
// process reads — the candidates' loads the ball compares and the loads the
// cache rule compares — is the load it is allowed to see, the view: the
// load at the batch's start (bt's frozen loads), or the load τ balls ago
// (dl's past loads, the loads after max(0, t − τ) of the t balls placed).
// The cache holds bins, not loads: a cached bin is read afresh, at its
// current view, by every ball. Placements go to the real loads.
//
// "The least loaded after placement" (Mitzenmacher, Prabhakar, Shah) reads
// the view as it is after the ball: the ball is published first (into the
// batch's pending list, ending the batch when it is full; into the delay's
// ring), then the cache keeps the K least loaded candidates by the view
// now — the view the next ball reads. So with --batch 1 and with --tau 0
// (no delay) the view after a ball is the real loads, and the process is
// memory itself, ball for ball (memory_stale_test.go); in a batch the
// cache sees no ball of its own batch.
//
// The other reading, not offered: the cache remembers the load value it
// saw when it took a bin (and, say, adds the balls the process itself sent
// there), comparing that remembered value instead of re-reading the bin.
// It mixes views of different moments in one comparison and has no source;
// under the papers' models, where what a ball can see is the delayed or
// frozen load vector, a remembered value older than the view is a read
// the model does not allow.
//
// Ties. Ties are uniformly random in law, for the ball and, independently,
// at the cache's boundary. Positions are not enough here: two bins with the
// same view can differ in real load (balls of this batch, or of the last τ,
// already sent there), and then sending the ball to the first of them is
// not a random choice in law. The loops break a tie by position (the rule
// of memory.go: samples in draw order, then cached slots; the sequential
// cache update) only when every tied bin is settled — its real load equals
// its view, so no ball sent there is pending — which makes the tied bins
// indistinguishable in every respect but name (same view, same real load,
// nothing in flight), and memory.go's argument applies: from an
// exchangeable start the law is that of random ties. Otherwise a coin from
// the noise stream decides: the ball's bin uniform among the tied
// candidates (one Bounded(|tied|)), or the bins kept at the cache's
// boundary a uniform subset of the tied ones (a partial Fisher–Yates, one
// Bounded a kept bin, written into the slots that held the boundary's
// load, in slot order). The exact-law tests (core/engine/memory_stale_test.go)
// enumerate the chain with explicit random ties and check this.
//
// lastUsed (K = 1) keeps the bin that took the ball, which reads no load.
//
// Cost: O(1) a ball beside the setting's own (batch.go, delay.go). (d, K) =
// (1, 1), (2, 1), (1, 2), (2, 2), (1, 3), (3, 1), (2, 3), (3, 2), (3, 3)
// keep their candidates in registers or a stack array (staleMemoryOne,
// …TwoOne, …OneTwo, …TwoTwo, …OneThree, …ThreeOne, …TwoThree, …ThreeTwo,
// …ThreeThree); the rest run the general loop, O((d + K)·K) a ball.
// bench/memory_test.go and bench/memory_general_test.go measure them
// beside a naive loop at n = 10^4, b = τ = n (bench/README.md's table).

// MemoryScratch is the per-trial scratch of the stale memory loops: one
// ball's candidates and the tied ones.
type MemoryScratch struct{ cands, tied []uint32 }

// NewMemoryScratch is the scratch for d samples and k cached bins.
func NewMemoryScratch(d, k int) *MemoryScratch {
	return &MemoryScratch{cands: make([]uint32, 0, d+k), tied: make([]uint32, 0, d+k)}
}

// StaleMemory throws count balls by the memory process with d samples a
// ball and the cache cache (K = len(cache) ≥ 1 distinct bins), reading the
// frozen loads of bt (bt non-nil: b-Batch) or the past loads of dl (dl
// non-nil, DelayFixed: τ-Delay), and returns the new maximum load.
//
// Stream: d PCG32.Bounded(n) per ball from r, as Memory; from coins one
// PCG32.Bounded per tie that needs a coin (none while every bin is settled,
// so at b = 1 the run is Memory's draw for draw). 1 ≤ len(loads) ≤ MaxBins.
func StaleMemory[L Load](loads []L, r, coins *PCG32, count uint64, d int, cache []uint32, lastUsed bool, sc *MemoryScratch, bt *Batch[L], dl *Delay[L], maxLoad L) L {
	switch {
	case d == 1 && len(cache) == 1:
		return staleMemoryOne(loads, r, coins, count, &cache[0], lastUsed, bt, dl, maxLoad)
	case d == 2 && len(cache) == 1:
		return staleMemoryTwoOne(loads, r, coins, count, &cache[0], lastUsed, bt, dl, maxLoad)
	case d == 1 && len(cache) == 2:
		return staleMemoryOneTwo(loads, r, coins, count, (*[2]uint32)(cache), bt, dl, maxLoad)
	case d == 2 && len(cache) == 2:
		return staleMemoryTwoTwo(loads, r, coins, count, (*[2]uint32)(cache), bt, dl, maxLoad)
	case d == 1 && len(cache) == 3:
		return staleMemoryOneThree(loads, r, coins, count, (*[3]uint32)(cache), bt, dl, maxLoad)
	case d == 3 && len(cache) == 1:
		return staleMemoryThreeOne(loads, r, coins, count, &cache[0], lastUsed, bt, dl, maxLoad)
	case d == 2 && len(cache) == 3:
		return staleMemoryTwoThree(loads, r, coins, count, (*[3]uint32)(cache), bt, dl, maxLoad)
	case d == 3 && len(cache) == 2:
		return staleMemoryThreeTwo(loads, r, coins, count, (*[2]uint32)(cache), bt, dl, maxLoad)
	case d == 3 && len(cache) == 3:
		return staleMemoryThreeThree(loads, r, coins, count, (*[3]uint32)(cache), bt, dl, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	var view []L
	var tau, t, slot, left uint64
	var pending []uint32
	if bt != nil {
		view, pending = bt.frozen, bt.pending
		left = bt.b - bt.t%bt.b
	} else {
		view, tau, t = dl.past, dl.tau, dl.t
		slot = t % tau
	}
	cands := sc.cands[:0]
	for ; count > 0; count-- {
		// The candidates: distinct samples in draw order, then the cached
		// bins not sampled, in slot order.
		cands = cands[:0]
	draw:
		for range d {
			var j uint32
			s, j = boundedFast(s, inc, n)
			for _, c := range cands {
				if c == j {
					continue draw
				}
			}
			cands = append(cands, j)
		}
		ns := len(cands)
	cached:
		for _, c := range cache {
			for _, j := range cands[:ns] {
				if c == j {
					continue cached
				}
			}
			cands = append(cands, c)
		}
		// The first least by view; a coin among the tied unless all settled.
		target, bv := cands[0], view[cands[0]]
		ties, loose := 1, loads[target] != bv
		for _, c := range cands[1:] {
			v := view[c]
			if v < bv {
				target, bv, ties, loose = c, v, 1, loads[c] != v
			} else if v == bv {
				ties++
				loose = loose || loads[c] != v
			}
		}
		if ties > 1 && loose {
			k := coins.Bounded(uint32(ties))
			for _, c := range cands {
				if view[c] == bv {
					if k == 0 {
						target = c
						break
					}
					k--
				}
			}
		}
		// Place and publish.
		v := loads[target] + 1
		loads[target] = v
		maxLoad = max(maxLoad, v)
		if bt != nil {
			if pending != nil {
				pending = append(pending, target)
			}
			bt.t++
			if left--; left == 0 {
				bt.pending = pending
				maxLoad = endBatch(bt, loads, maxLoad)
				pending = bt.pending
				left = bt.b
			}
		} else {
			t, slot = delayPush(view, dl.bins, target, t, tau, slot)
		}
		if lastUsed {
			cache[0] = target
			continue
		}
		memoryRecache(loads, view, cands, ns, cache, sc, coins)
	}
	sc.cands = cands
	if bt != nil {
		bt.pending = pending
	} else {
		dl.t = t
	}
	r.state = s
	return maxLoad
}

// memoryRecache updates cache to the K least of cands by view: memory.go's
// sequential rule (each sample in draw order, not cached and strictly
// lighter than the heaviest cached bin, the first slot on a tie, takes that
// slot), then, if bins outside tie with the heaviest kept and not all of
// those are settled, the kept ones at that view redrawn uniformly among
// them (coins).
func memoryRecache[L Load](loads, view []L, cands []uint32, ns int, cache []uint32, sc *MemoryScratch, coins *PCG32) {
	// Every sample heavier than every cached bin (the common case: the
	// cache holds the lightest) takes no slot and does not tie at the
	// boundary: the cache stays. A sample that is cached is not heavier.
	vm := view[cache[0]]
	for _, c := range cache[1:] {
		vm = max(vm, view[c])
	}
	heavier := true
	for _, j := range cands[:ns] {
		heavier = heavier && view[j] > vm
	}
	if heavier {
		return
	}
	for _, j := range cands[:ns] {
		w, wl, in := 0, view[cache[0]], cache[0] == j
		for q := 1; q < len(cache); q++ {
			in = in || cache[q] == j
			if lq := view[cache[q]]; lq > wl {
				w, wl = q, lq
			}
		}
		if !in && view[j] < wl {
			cache[w] = j
		}
	}
	vk := view[cache[0]]
	for _, c := range cache[1:] {
		vk = max(vk, view[c])
	}
	kept, out, loose := 0, 0, false
	for _, c := range cands {
		if view[c] != vk {
			continue
		}
		loose = loose || loads[c] != vk
		in := false
		for _, q := range cache {
			in = in || q == c
		}
		if in {
			kept++
		} else {
			out++
		}
	}
	if out == 0 || !loose {
		return
	}
	tied := sc.tied[:0]
	for _, c := range cands {
		if view[c] == vk {
			tied = append(tied, c)
		}
	}
	for i := range kept {
		k := i + int(coins.Bounded(uint32(len(tied)-i)))
		tied[i], tied[k] = tied[k], tied[i]
	}
	i := 0
	for q, c := range cache {
		if view[c] == vk {
			cache[q] = tied[i]
			i++
		}
	}
	sc.tied = tied
}

// staleMemoryOne is StaleMemory with one sample and one cached bin, the
// papers' Memory: the same rule and streams without the candidate lists —
// the sample j against the cached bin c (j first on a tie by position), a
// coin of Bounded(2) (0: j) when they tie and one is not settled; then the
// cache, by the view after the ball, takes j if lighter, and on a tie with
// one of them not settled a coin of Bounded(2) (0: j) again.
func staleMemoryOne[L Load](loads []L, r, coins *PCG32, count uint64, cached *uint32, lastUsed bool, bt *Batch[L], dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	cs, cinc := coins.state, coins.inc()
	n := uint32(len(loads))
	c := *cached
	var view []L
	var tau, t, slot, left uint64
	var bins, pending []uint32
	if bt != nil {
		view, pending = bt.frozen, bt.pending
		left = bt.b - bt.t%bt.b
	} else {
		view, tau, t, bins = dl.past, dl.tau, dl.t, dl.bins
		slot = t % tau
	}
	for ; count > 0; count-- {
		var j uint32
		s, j = boundedFast(s, inc, n)
		target := c
		if j != c {
			vj, vc := view[j], view[c]
			switch {
			case vj < vc:
				target = j
			case vj == vc:
				target = j
				if loads[j] != vj || loads[c] != vc {
					var k uint32
					cs, k = boundedFast(cs, cinc, 2)
					if k == 1 {
						target = c
					}
				}
			}
		}
		v := loads[target] + 1
		loads[target] = v
		maxLoad = max(maxLoad, v)
		if bt != nil {
			if pending != nil {
				pending = append(pending, target)
			}
			bt.t++
			if left--; left == 0 {
				bt.pending = pending
				maxLoad = endBatch(bt, loads, maxLoad)
				pending = bt.pending
				left = bt.b
			}
		} else {
			if t >= tau {
				view[bins[slot]]++
			}
			bins[slot] = target
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		switch {
		case lastUsed:
			c = target
		case j == c:
		case view[j] < view[c]:
			c = j
		case view[j] == view[c] && (loads[j] != view[j] || loads[c] != view[c]):
			var k uint32
			cs, k = boundedFast(cs, cinc, 2)
			if k == 0 {
				c = j
			}
		}
	}
	if bt != nil {
		bt.pending = pending
	} else {
		dl.t = t
	}
	*cached = c
	r.state, coins.state = s, cs
	return maxLoad
}

// endBatch ends bt's batch after its last ball (bt.t counts it): the
// frozen loads become the loads and the gap is recorded, as placeBatch.
func endBatch[L Load](bt *Batch[L], loads []L, maxLoad L) L {
	bt.flush(loads)
	if v := uint64(maxLoad)*uint64(len(loads)) - bt.t; bt.ends == 1 || v > bt.bestUnit {
		bt.bestUnit = v
	}
	return maxLoad
}

// staleMemoryTwoOne is StaleMemory with two samples and one cached bin:
// the candidates a, b (when b ≠ a), c (when not sampled) in registers, the
// same rule and streams as the general loop.
func staleMemoryTwoOne[L Load](loads []L, r, coins *PCG32, count uint64, cached *uint32, lastUsed bool, bt *Batch[L], dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	cs, cinc := coins.state, coins.inc()
	n := uint32(len(loads))
	c := *cached
	var view []L
	var tau, t, slot, left uint64
	var bins, pending []uint32
	if bt != nil {
		view, pending = bt.frozen, bt.pending
		left = bt.b - bt.t%bt.b
	} else {
		view, tau, t, bins = dl.past, dl.tau, dl.t, dl.bins
		slot = t % tau
	}
	for ; count > 0; count-- {
		var a, b uint32
		s, a = boundedFast(s, inc, n)
		s, b = boundedFast(s, inc, n)
		hasB, hasC := b != a, c != a && c != b
		va, vb, vc := view[a], view[b], view[c]
		target, vt := a, va
		ties, loose := 1, loads[a] != va
		if hasB {
			if vb < vt {
				target, vt, ties, loose = b, vb, 1, loads[b] != vb
			} else if vb == vt {
				ties++
				loose = loose || loads[b] != vb
			}
		}
		if hasC {
			if vc < vt {
				target, vt, ties, loose = c, vc, 1, loads[c] != vc
			} else if vc == vt {
				ties++
				loose = loose || loads[c] != vc
			}
		}
		if ties > 1 && loose { // the k-th tied of a, b, c
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(ties))
			target = a
			if va == vt {
				if k == 0 {
					goto chosen
				}
				k--
			}
			if hasB && vb == vt {
				target = b
				if k == 0 {
					goto chosen
				}
			}
			target = c
		}
	chosen:
		v := loads[target] + 1
		loads[target] = v
		maxLoad = max(maxLoad, v)
		if bt != nil {
			if pending != nil {
				pending = append(pending, target)
			}
			bt.t++
			if left--; left == 0 {
				bt.pending = pending
				maxLoad = endBatch(bt, loads, maxLoad)
				pending = bt.pending
				left = bt.b
			}
		} else {
			if t >= tau {
				view[bins[slot]]++
			}
			bins[slot] = target
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		if lastUsed {
			c = target
			continue
		}
		// The cache by the view now: the sequential rule, then the boundary.
		va, vb, vc = view[a], view[b], view[c]
		nc, vn := c, vc
		if a != nc && va < vn {
			nc, vn = a, va
		}
		if hasB && b != nc && vb < vn {
			nc, vn = b, vb
		}
		tied, loose := 0, false
		if va == vn {
			tied++
			loose = loads[a] != va
		}
		if hasB && vb == vn {
			tied++
			loose = loose || loads[b] != vb
		}
		if hasC && vc == vn {
			tied++
			loose = loose || loads[c] != vc
		}
		if tied > 1 && loose { // the k-th of a, b, c at the boundary's view
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(tied))
			nc = a
			if va == vn {
				if k == 0 {
					goto cachedBin
				}
				k--
			}
			if hasB && vb == vn {
				nc = b
				if k == 0 {
					goto cachedBin
				}
			}
			nc = c
		}
	cachedBin:
		c = nc
	}
	if bt != nil {
		bt.pending = pending
	} else {
		dl.t = t
	}
	*cached = c
	r.state, coins.state = s, cs
	return maxLoad
}

// staleMemoryOneTwo is StaleMemory with one sample and two cached bins
// (least-loaded): the candidates j, c0, c1 (the cached bins not sampled)
// in registers, the same rule and streams as the general loop.
func staleMemoryOneTwo[L Load](loads []L, r, coins *PCG32, count uint64, cache *[2]uint32, bt *Batch[L], dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	cs, cinc := coins.state, coins.inc()
	n := uint32(len(loads))
	c0, c1 := cache[0], cache[1]
	var view []L
	var tau, t, slot, left uint64
	var bins, pending []uint32
	if bt != nil {
		view, pending = bt.frozen, bt.pending
		left = bt.b - bt.t%bt.b
	} else {
		view, tau, t, bins = dl.past, dl.tau, dl.t, dl.bins
		slot = t % tau
	}
	for ; count > 0; count-- {
		var j uint32
		s, j = boundedFast(s, inc, n)
		// The candidates in order: j, then the cached bins not sampled.
		var cand [3]uint32
		cand[0], cand[1], cand[2] = j, c0, c1
		nc := 3
		switch j {
		case c0:
			cand[1], nc = c1, 2
		case c1:
			nc = 2
		}
		target, vt := j, view[j]
		ties, loose := 1, loads[j] != vt
		for _, x := range cand[1:nc] {
			if vx := view[x]; vx < vt {
				target, vt, ties, loose = x, vx, 1, loads[x] != vx
			} else if vx == vt {
				ties++
				loose = loose || loads[x] != vx
			}
		}
		if ties > 1 && loose {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(ties))
			for _, x := range cand[:nc] {
				if view[x] == vt {
					if k == 0 {
						target = x
						break
					}
					k--
				}
			}
		}
		v := loads[target] + 1
		loads[target] = v
		maxLoad = max(maxLoad, v)
		if bt != nil {
			if pending != nil {
				pending = append(pending, target)
			}
			bt.t++
			if left--; left == 0 {
				bt.pending = pending
				maxLoad = endBatch(bt, loads, maxLoad)
				pending = bt.pending
				left = bt.b
			}
		} else {
			if t >= tau {
				view[bins[slot]]++
			}
			bins[slot] = target
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		if nc == 2 {
			continue // the sample was cached: the cache is every candidate
		}
		// The cache by the view now: j takes the heavier slot (slot 0 on a
		// tie) if strictly lighter; then the boundary.
		vj, v0, v1 := view[j], view[c0], view[c1]
		if vj > max(v0, v1) {
			continue // j takes no slot and does not tie at the boundary
		}
		if v1 > v0 {
			if vj < v1 {
				c1, v1 = j, vj
			}
		} else if vj < v0 {
			c0, v0 = j, vj
		}
		vk := max(v0, v1)
		var tied [3]uint32
		nt, loose := 0, false
		for _, x := range cand {
			if view[x] == vk {
				tied[nt] = x
				nt++
				loose = loose || loads[x] != vk
			}
		}
		kept := b2i(v0 == vk) + b2i(v1 == vk)
		if nt == kept || !loose {
			continue
		}
		for i := range kept {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(nt-i))
			k += uint32(i)
			tied[i], tied[k] = tied[k], tied[i]
		}
		i := 0
		if v0 == vk {
			c0 = tied[i]
			i++
		}
		if v1 == vk {
			c1 = tied[i]
		}
	}
	if bt != nil {
		bt.pending = pending
	} else {
		dl.t = t
	}
	cache[0], cache[1] = c0, c1
	r.state, coins.state = s, cs
	return maxLoad
}

// staleMemoryTwoTwo is StaleMemory with two samples and two cached bins
// (least-loaded): the up to four candidates in a stack array, the same rule
// and streams as the general loop.
func staleMemoryTwoTwo[L Load](loads []L, r, coins *PCG32, count uint64, cache *[2]uint32, bt *Batch[L], dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	cs, cinc := coins.state, coins.inc()
	n := uint32(len(loads))
	c0, c1 := cache[0], cache[1]
	var view []L
	var tau, t, slot, left uint64
	var bins, pending []uint32
	if bt != nil {
		view, pending = bt.frozen, bt.pending
		left = bt.b - bt.t%bt.b
	} else {
		view, tau, t, bins = dl.past, dl.tau, dl.t, dl.bins
		slot = t % tau
	}
	for ; count > 0; count-- {
		var a, b uint32
		s, a = boundedFast(s, inc, n)
		s, b = boundedFast(s, inc, n)
		// The candidates in order: the distinct samples, then the cached
		// bins not sampled.
		var cand [4]uint32
		cand[0] = a
		nc := 1
		if b != a {
			cand[1] = b
			nc = 2
		}
		ns := nc
		if c0 != a && c0 != b {
			cand[nc] = c0
			nc++
		}
		if c1 != a && c1 != b {
			cand[nc] = c1
			nc++
		}
		target, vt := a, view[a]
		ties, loose := 1, loads[a] != vt
		for _, x := range cand[1:nc] {
			if vx := view[x]; vx < vt {
				target, vt, ties, loose = x, vx, 1, loads[x] != vx
			} else if vx == vt {
				ties++
				loose = loose || loads[x] != vx
			}
		}
		if ties > 1 && loose {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(ties))
			for _, x := range cand[:nc] {
				if view[x] == vt {
					if k == 0 {
						target = x
						break
					}
					k--
				}
			}
		}
		v := loads[target] + 1
		loads[target] = v
		maxLoad = max(maxLoad, v)
		if bt != nil {
			if pending != nil {
				pending = append(pending, target)
			}
			bt.t++
			if left--; left == 0 {
				bt.pending = pending
				maxLoad = endBatch(bt, loads, maxLoad)
				pending = bt.pending
				left = bt.b
			}
		} else {
			if t >= tau {
				view[bins[slot]]++
			}
			bins[slot] = target
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		if nc == 2 {
			continue // every candidate is cached
		}
		// The cache by the view now: each sample in draw order, not cached
		// and strictly lighter than the heavier slot (slot 0 on a tie),
		// takes that slot; then the boundary.
		v0, v1 := view[c0], view[c1]
		if vm := max(v0, v1); view[a] > vm && view[b] > vm {
			continue // no sample takes a slot or ties at the boundary
		}
		for _, j := range cand[:ns] {
			if j == c0 || j == c1 {
				continue
			}
			vj := view[j]
			if v1 > v0 {
				if vj < v1 {
					c1, v1 = j, vj
				}
			} else if vj < v0 {
				c0, v0 = j, vj
			}
		}
		vk := max(v0, v1)
		var tied [4]uint32
		nt, loose := 0, false
		for _, x := range cand[:nc] {
			if view[x] == vk {
				tied[nt] = x
				nt++
				loose = loose || loads[x] != vk
			}
		}
		kept := b2i(v0 == vk) + b2i(v1 == vk)
		if nt == kept || !loose {
			continue
		}
		for i := range kept {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(nt-i))
			k += uint32(i)
			tied[i], tied[k] = tied[k], tied[i]
		}
		i := 0
		if v0 == vk {
			c0 = tied[i]
			i++
		}
		if v1 == vk {
			c1 = tied[i]
		}
	}
	if bt != nil {
		bt.pending = pending
	} else {
		dl.t = t
	}
	cache[0], cache[1] = c0, c1
	r.state, coins.state = s, cs
	return maxLoad
}

// staleMemoryOneThree is StaleMemory with one sample and three cached bins
// (least-loaded): the candidates j, c0, c1, c2 (the cached bins not
// sampled) and the cached bins' views in registers, the same rule and
// streams as the general loop.
func staleMemoryOneThree[L Load](loads []L, r, coins *PCG32, count uint64, cache *[3]uint32, bt *Batch[L], dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	cs, cinc := coins.state, coins.inc()
	n := uint32(len(loads))
	c0, c1, c2 := cache[0], cache[1], cache[2]
	var view []L
	var tau, t, slot, left uint64
	var bins, pending []uint32
	if bt != nil {
		view, pending = bt.frozen, bt.pending
		left = bt.b - bt.t%bt.b
	} else {
		view, tau, t, bins = dl.past, dl.tau, dl.t, dl.bins
		slot = t % tau
	}
	for ; count > 0; count-- {
		var j uint32
		s, j = boundedFast(s, inc, n)
		// The candidates in order: j, then the cached bins not sampled.
		var cand [4]uint32
		cand[0], cand[1], cand[2], cand[3] = j, c0, c1, c2
		nc := 4
		switch j {
		case c0:
			cand[1], cand[2], nc = c1, c2, 3
		case c1:
			cand[2], nc = c2, 3
		case c2:
			nc = 3
		}
		target, vt := j, view[j]
		ties, loose := 1, loads[j] != vt
		for _, x := range cand[1:nc] {
			if vx := view[x]; vx < vt {
				target, vt, ties, loose = x, vx, 1, loads[x] != vx
			} else if vx == vt {
				ties++
				loose = loose || loads[x] != vx
			}
		}
		if ties > 1 && loose {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(ties))
			for _, x := range cand[:nc] {
				if view[x] == vt {
					if k == 0 {
						target = x
						break
					}
					k--
				}
			}
		}
		v := loads[target] + 1
		loads[target] = v
		maxLoad = max(maxLoad, v)
		if bt != nil {
			if pending != nil {
				pending = append(pending, target)
			}
			bt.t++
			if left--; left == 0 {
				bt.pending = pending
				maxLoad = endBatch(bt, loads, maxLoad)
				pending = bt.pending
				left = bt.b
			}
		} else {
			if t >= tau {
				view[bins[slot]]++
			}
			bins[slot] = target
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		if nc == 3 {
			continue // the sample was cached: the cache is every candidate
		}
		// The cache by the view now: j takes the heaviest slot (the first
		// on a tie) if strictly lighter; then the boundary.
		vj, v0, v1, v2 := view[j], view[c0], view[c1], view[c2]
		if vj > max(v0, v1, v2) {
			continue // j takes no slot and does not tie at the boundary
		}
		switch {
		case v2 > max(v0, v1):
			if vj < v2 {
				c2, v2 = j, vj
			}
		case v1 > v0:
			if vj < v1 {
				c1, v1 = j, vj
			}
		default:
			if vj < v0 {
				c0, v0 = j, vj
			}
		}
		vk := max(v0, v1, v2)
		var tied [4]uint32
		nt, loose := 0, false
		for _, x := range cand {
			if view[x] == vk {
				tied[nt] = x
				nt++
				loose = loose || loads[x] != vk
			}
		}
		kept := b2i(v0 == vk) + b2i(v1 == vk) + b2i(v2 == vk)
		if nt == kept || !loose {
			continue
		}
		for i := range kept {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(nt-i))
			k += uint32(i)
			tied[i], tied[k] = tied[k], tied[i]
		}
		i := 0
		if v0 == vk {
			c0 = tied[i]
			i++
		}
		if v1 == vk {
			c1 = tied[i]
			i++
		}
		if v2 == vk {
			c2 = tied[i]
		}
	}
	if bt != nil {
		bt.pending = pending
	} else {
		dl.t = t
	}
	cache[0], cache[1], cache[2] = c0, c1, c2
	r.state, coins.state = s, cs
	return maxLoad
}

// staleMemoryThreeOne is StaleMemory with three samples and one cached bin:
// the up to four candidates in a stack array, the same rule and streams as
// the general loop.
func staleMemoryThreeOne[L Load](loads []L, r, coins *PCG32, count uint64, cached *uint32, lastUsed bool, bt *Batch[L], dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	cs, cinc := coins.state, coins.inc()
	n := uint32(len(loads))
	c := *cached
	var view []L
	var tau, t, slot, left uint64
	var bins, pending []uint32
	if bt != nil {
		view, pending = bt.frozen, bt.pending
		left = bt.b - bt.t%bt.b
	} else {
		view, tau, t, bins = dl.past, dl.tau, dl.t, dl.bins
		slot = t % tau
	}
	for ; count > 0; count-- {
		var a, b, e uint32
		s, a = boundedFast(s, inc, n)
		s, b = boundedFast(s, inc, n)
		s, e = boundedFast(s, inc, n)
		// The candidates in order: the distinct samples, then the cached
		// bin if not sampled.
		var cand [4]uint32
		cand[0], cand[1] = a, b
		nc := 1 + b2i(b != a)
		cand[nc] = e
		nc += b2i(e != a && e != b)
		ns := nc
		cand[nc&3] = c
		nc += b2i(c != a && c != b && c != e)
		target, vt := a, view[a]
		ties, loose := 1, loads[a] != vt
		for _, x := range cand[1:nc] {
			if vx := view[x]; vx < vt {
				target, vt, ties, loose = x, vx, 1, loads[x] != vx
			} else if vx == vt {
				ties++
				loose = loose || loads[x] != vx
			}
		}
		if ties > 1 && loose {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(ties))
			for _, x := range cand[:nc] {
				if view[x] == vt {
					if k == 0 {
						target = x
						break
					}
					k--
				}
			}
		}
		v := loads[target] + 1
		loads[target] = v
		maxLoad = max(maxLoad, v)
		if bt != nil {
			if pending != nil {
				pending = append(pending, target)
			}
			bt.t++
			if left--; left == 0 {
				bt.pending = pending
				maxLoad = endBatch(bt, loads, maxLoad)
				pending = bt.pending
				left = bt.b
			}
		} else {
			if t >= tau {
				view[bins[slot]]++
			}
			bins[slot] = target
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		if lastUsed {
			c = target
			continue
		}
		// The cache by the view now: each sample in draw order, not the
		// cached bin and strictly lighter, takes its place; then the
		// boundary, one coin among the bins at the cached bin's view.
		vc := view[c]
		for _, j := range cand[:ns] {
			if vj := view[j]; j != c && vj < vc {
				c, vc = j, vj
			}
		}
		var tied [4]uint32
		nt, tloose := 0, false
		for _, x := range cand[:nc] {
			if view[x] == vc {
				tied[nt] = x
				nt++
				tloose = tloose || loads[x] != vc
			}
		}
		if nt == 1 || !tloose {
			continue
		}
		var k uint32
		cs, k = boundedFast(cs, cinc, uint32(nt))
		c = tied[k&3]
	}
	if bt != nil {
		bt.pending = pending
	} else {
		dl.t = t
	}
	*cached = c
	r.state, coins.state = s, cs
	return maxLoad
}

// staleMemoryTwoThree is StaleMemory with two samples and three cached bins
// (least-loaded): the up to five candidates in a stack array, the cached
// bins in registers, the same rule and streams as the general loop.
func staleMemoryTwoThree[L Load](loads []L, r, coins *PCG32, count uint64, cache *[3]uint32, bt *Batch[L], dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	cs, cinc := coins.state, coins.inc()
	n := uint32(len(loads))
	c0, c1, c2 := cache[0], cache[1], cache[2]
	var view []L
	var tau, t, slot, left uint64
	var bins, pending []uint32
	if bt != nil {
		view, pending = bt.frozen, bt.pending
		left = bt.b - bt.t%bt.b
	} else {
		view, tau, t, bins = dl.past, dl.tau, dl.t, dl.bins
		slot = t % tau
	}
	for ; count > 0; count-- {
		var a, b uint32
		s, a = boundedFast(s, inc, n)
		s, b = boundedFast(s, inc, n)
		// The candidates in order: the distinct samples, then the cached
		// bins not sampled.
		var cand [5]uint32
		cand[0], cand[1] = a, b
		nc := 1 + b2i(b != a)
		ns := nc
		cand[nc] = c0
		nc += b2i(c0 != a && c0 != b)
		cand[nc] = c1
		nc += b2i(c1 != a && c1 != b)
		cand[nc] = c2
		nc += b2i(c2 != a && c2 != b)
		target, vt := a, view[a]
		ties, loose := 1, loads[a] != vt
		for _, x := range cand[1:nc] {
			if vx := view[x]; vx < vt {
				target, vt, ties, loose = x, vx, 1, loads[x] != vx
			} else if vx == vt {
				ties++
				loose = loose || loads[x] != vx
			}
		}
		if ties > 1 && loose {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(ties))
			for _, x := range cand[:nc] {
				if view[x] == vt {
					if k == 0 {
						target = x
						break
					}
					k--
				}
			}
		}
		v := loads[target] + 1
		loads[target] = v
		maxLoad = max(maxLoad, v)
		if bt != nil {
			if pending != nil {
				pending = append(pending, target)
			}
			bt.t++
			if left--; left == 0 {
				bt.pending = pending
				maxLoad = endBatch(bt, loads, maxLoad)
				pending = bt.pending
				left = bt.b
			}
		} else {
			if t >= tau {
				view[bins[slot]]++
			}
			bins[slot] = target
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		if nc == 3 {
			continue // every candidate is cached
		}
		// The cache by the view now: each sample in draw order, not cached
		// and strictly lighter than the heaviest slot (the first on a
		// tie), takes that slot; then the boundary.
		v0, v1, v2 := view[c0], view[c1], view[c2]
		if vm := max(v0, v1, v2); view[a] > vm && view[b] > vm {
			continue // no sample takes a slot or ties at the boundary
		}
		for _, j := range cand[:ns] {
			if j == c0 || j == c1 || j == c2 {
				continue
			}
			vj := view[j]
			switch {
			case v2 > max(v0, v1):
				if vj < v2 {
					c2, v2 = j, vj
				}
			case v1 > v0:
				if vj < v1 {
					c1, v1 = j, vj
				}
			default:
				if vj < v0 {
					c0, v0 = j, vj
				}
			}
		}
		vk := max(v0, v1, v2)
		var tied [5]uint32
		nt, loose := 0, false
		for _, x := range cand[:nc] {
			if view[x] == vk {
				tied[nt] = x
				nt++
				loose = loose || loads[x] != vk
			}
		}
		kept := b2i(v0 == vk) + b2i(v1 == vk) + b2i(v2 == vk)
		if nt == kept || !loose {
			continue
		}
		for i := range kept {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(nt-i))
			k += uint32(i)
			tied[i], tied[k] = tied[k], tied[i]
		}
		i := 0
		if v0 == vk {
			c0 = tied[i]
			i++
		}
		if v1 == vk {
			c1 = tied[i]
			i++
		}
		if v2 == vk {
			c2 = tied[i]
		}
	}
	if bt != nil {
		bt.pending = pending
	} else {
		dl.t = t
	}
	cache[0], cache[1], cache[2] = c0, c1, c2
	r.state, coins.state = s, cs
	return maxLoad
}

// staleMemoryThreeTwo is StaleMemory with three samples and two cached bins
// (least-loaded): staleMemoryTwoTwo's loop with a third sample, the up to
// five candidates in a stack array, the same rule and streams as the
// general loop.
func staleMemoryThreeTwo[L Load](loads []L, r, coins *PCG32, count uint64, cache *[2]uint32, bt *Batch[L], dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	cs, cinc := coins.state, coins.inc()
	n := uint32(len(loads))
	c0, c1 := cache[0], cache[1]
	var view []L
	var tau, t, slot, left uint64
	var bins, pending []uint32
	if bt != nil {
		view, pending = bt.frozen, bt.pending
		left = bt.b - bt.t%bt.b
	} else {
		view, tau, t, bins = dl.past, dl.tau, dl.t, dl.bins
		slot = t % tau
	}
	for ; count > 0; count-- {
		var a, b, e uint32
		s, a = boundedFast(s, inc, n)
		s, b = boundedFast(s, inc, n)
		s, e = boundedFast(s, inc, n)
		// The candidates in order: the distinct samples, then the cached
		// bins not sampled.
		var cand [5]uint32
		cand[0], cand[1] = a, b
		nc := 1 + b2i(b != a)
		cand[nc] = e
		nc += b2i(e != a && e != b)
		ns := nc
		cand[nc] = c0
		nc += b2i(c0 != a && c0 != b && c0 != e)
		cand[nc] = c1
		nc += b2i(c1 != a && c1 != b && c1 != e)
		target, vt := a, view[a]
		ties, loose := 1, loads[a] != vt
		for _, x := range cand[1:nc] {
			if vx := view[x]; vx < vt {
				target, vt, ties, loose = x, vx, 1, loads[x] != vx
			} else if vx == vt {
				ties++
				loose = loose || loads[x] != vx
			}
		}
		if ties > 1 && loose {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(ties))
			for _, x := range cand[:nc] {
				if view[x] == vt {
					if k == 0 {
						target = x
						break
					}
					k--
				}
			}
		}
		v := loads[target] + 1
		loads[target] = v
		maxLoad = max(maxLoad, v)
		if bt != nil {
			if pending != nil {
				pending = append(pending, target)
			}
			bt.t++
			if left--; left == 0 {
				bt.pending = pending
				maxLoad = endBatch(bt, loads, maxLoad)
				pending = bt.pending
				left = bt.b
			}
		} else {
			if t >= tau {
				view[bins[slot]]++
			}
			bins[slot] = target
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		if nc == 2 {
			continue // every candidate is cached
		}
		// The cache by the view now: each sample in draw order, not cached
		// and strictly lighter than the heavier slot (slot 0 on a tie),
		// takes that slot; then the boundary.
		v0, v1 := view[c0], view[c1]
		if vm := max(v0, v1); view[a] > vm && view[b] > vm && view[e] > vm {
			continue // no sample takes a slot or ties at the boundary
		}
		for _, j := range cand[:ns] {
			if j == c0 || j == c1 {
				continue
			}
			vj := view[j]
			if v1 > v0 {
				if vj < v1 {
					c1, v1 = j, vj
				}
			} else if vj < v0 {
				c0, v0 = j, vj
			}
		}
		vk := max(v0, v1)
		var tied [5]uint32
		nt, loose := 0, false
		for _, x := range cand[:nc] {
			if view[x] == vk {
				tied[nt] = x
				nt++
				loose = loose || loads[x] != vk
			}
		}
		kept := b2i(v0 == vk) + b2i(v1 == vk)
		if nt == kept || !loose {
			continue
		}
		for i := range kept {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(nt-i))
			k += uint32(i)
			tied[i], tied[k] = tied[k], tied[i]
		}
		i := 0
		if v0 == vk {
			c0 = tied[i]
			i++
		}
		if v1 == vk {
			c1 = tied[i]
		}
	}
	if bt != nil {
		bt.pending = pending
	} else {
		dl.t = t
	}
	cache[0], cache[1] = c0, c1
	r.state, coins.state = s, cs
	return maxLoad
}

// staleMemoryThreeThree is StaleMemory with three samples and three cached
// bins (least-loaded): staleMemoryTwoThree's loop with a third sample, the
// up to six candidates in a stack array, the same rule and streams as the
// general loop.
func staleMemoryThreeThree[L Load](loads []L, r, coins *PCG32, count uint64, cache *[3]uint32, bt *Batch[L], dl *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	cs, cinc := coins.state, coins.inc()
	n := uint32(len(loads))
	c0, c1, c2 := cache[0], cache[1], cache[2]
	var view []L
	var tau, t, slot, left uint64
	var bins, pending []uint32
	if bt != nil {
		view, pending = bt.frozen, bt.pending
		left = bt.b - bt.t%bt.b
	} else {
		view, tau, t, bins = dl.past, dl.tau, dl.t, dl.bins
		slot = t % tau
	}
	for ; count > 0; count-- {
		var a, b, e uint32
		s, a = boundedFast(s, inc, n)
		s, b = boundedFast(s, inc, n)
		s, e = boundedFast(s, inc, n)
		// The candidates in order: the distinct samples, then the cached
		// bins not sampled.
		var cand [6]uint32
		cand[0], cand[1] = a, b
		nc := 1 + b2i(b != a)
		cand[nc] = e
		nc += b2i(e != a && e != b)
		ns := nc
		cand[nc] = c0
		nc += b2i(c0 != a && c0 != b && c0 != e)
		cand[nc] = c1
		nc += b2i(c1 != a && c1 != b && c1 != e)
		cand[nc] = c2
		nc += b2i(c2 != a && c2 != b && c2 != e)
		target, vt := a, view[a]
		ties, loose := 1, loads[a] != vt
		for _, x := range cand[1:nc] {
			if vx := view[x]; vx < vt {
				target, vt, ties, loose = x, vx, 1, loads[x] != vx
			} else if vx == vt {
				ties++
				loose = loose || loads[x] != vx
			}
		}
		if ties > 1 && loose {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(ties))
			for _, x := range cand[:nc] {
				if view[x] == vt {
					if k == 0 {
						target = x
						break
					}
					k--
				}
			}
		}
		v := loads[target] + 1
		loads[target] = v
		maxLoad = max(maxLoad, v)
		if bt != nil {
			if pending != nil {
				pending = append(pending, target)
			}
			bt.t++
			if left--; left == 0 {
				bt.pending = pending
				maxLoad = endBatch(bt, loads, maxLoad)
				pending = bt.pending
				left = bt.b
			}
		} else {
			if t >= tau {
				view[bins[slot]]++
			}
			bins[slot] = target
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		if nc == 3 {
			continue // every candidate is cached
		}
		// The cache by the view now: each sample in draw order, not cached
		// and strictly lighter than the heaviest slot (the first on a
		// tie), takes that slot; then the boundary.
		v0, v1, v2 := view[c0], view[c1], view[c2]
		if vm := max(v0, v1, v2); view[a] > vm && view[b] > vm && view[e] > vm {
			continue // no sample takes a slot or ties at the boundary
		}
		for _, j := range cand[:ns] {
			if j == c0 || j == c1 || j == c2 {
				continue
			}
			vj := view[j]
			switch {
			case v2 > max(v0, v1):
				if vj < v2 {
					c2, v2 = j, vj
				}
			case v1 > v0:
				if vj < v1 {
					c1, v1 = j, vj
				}
			default:
				if vj < v0 {
					c0, v0 = j, vj
				}
			}
		}
		vk := max(v0, v1, v2)
		var tied [6]uint32
		nt, loose := 0, false
		for _, x := range cand[:nc] {
			if view[x] == vk {
				tied[nt] = x
				nt++
				loose = loose || loads[x] != vk
			}
		}
		kept := b2i(v0 == vk) + b2i(v1 == vk) + b2i(v2 == vk)
		if nt == kept || !loose {
			continue
		}
		for i := range kept {
			var k uint32
			cs, k = boundedFast(cs, cinc, uint32(nt-i))
			k += uint32(i)
			tied[i], tied[k] = tied[k], tied[i]
		}
		i := 0
		if v0 == vk {
			c0 = tied[i]
			i++
		}
		if v1 == vk {
			c1 = tied[i]
			i++
		}
		if v2 == vk {
			c2 = tied[i]
		}
	}
	if bt != nil {
		bt.pending = pending
	} else {
		dl.t = t
	}
	cache[0], cache[1], cache[2] = c0, c1, c2
	r.state, coins.state = s, cs
	return maxLoad
}
