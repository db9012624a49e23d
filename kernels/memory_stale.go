package kernels

// The memory process (memory.go) in b-Batch's setting (batch.go) and in
// τ-Delay's with --delay fixed (delay.go): every load the process reads —
// the candidates' loads the ball compares and the loads the cache rule
// compares — is the load it is allowed to see, the view: the
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
// Cost: O(1) a ball beside the setting's own (batch.go, delay.go). For
// d, K ≤ 3 the loop is generated from one template with d and K fixed
// (internal/genmemory, memory_stale_loops.go: the candidates in a stack
// array, the cache in registers, the slot rule unrolled); the rest run the
// general loop, O((d + K)·K) a ball. bench/memory_test.go and
// bench/memory_general_test.go measure them beside a naive loop at
// n = 10^4, b = τ = n (bench/README.md's table).

//go:generate go run ./internal/genmemory

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
	if m, ok := staleMemoryFixed(loads, r, coins, count, d, cache, lastUsed, bt, dl, maxLoad); ok {
		return m
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

// endBatch ends bt's batch after its last ball (bt.t counts it): the
// frozen loads become the loads and the gap is recorded, as placeBatch.
func endBatch[L Load](bt *Batch[L], loads []L, maxLoad L) L {
	bt.flush(loads)
	if v := uint64(maxLoad)*uint64(len(loads)) - bt.t; bt.ends == 1 || v > bt.bestUnit {
		bt.bestUnit = v
	}
	return maxLoad
}
