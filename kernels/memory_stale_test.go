package kernels

import (
	"fmt"
	"slices"
	"testing"
)

// refStaleMemory is StaleMemory written from its definition, one ball at a
// time with PCG32 methods and no shared state: the view is counted from
// the record of every ball's bin — in batches of b (b > 0) the loads at the
// batch's start, or (tau > 0) the loads after max(0, t − τ) balls. A ball's
// candidates are its distinct samples in draw order then the cached bins
// not sampled; the ball goes to the first least by view, or, when some tied
// bin is not settled (real load ≠ view), to the k-th tied for k =
// coins.Bounded(#tied). It is placed and recorded; then (lastUsed) the
// cache keeps its bin, or, by the view after the ball, memory's sequential
// rule, and when candidates outside tie with the heaviest kept and some
// such bin is not settled, the kept ones at that view are a Fisher–Yates
// draw among them written into those slots in slot order.
func refStaleMemory[L Load](loads []L, r, coins *PCG32, count uint64, d int, cache []uint32, lastUsed bool, b, tau uint64, hist *[]uint32) {
	n := uint32(len(loads))
	// view[i] counts the record's first upto entries equal to i; upto
	// never decreases, so the count is kept by adding the entries it
	// passes (recounting the whole record every ball made the reference
	// quadratic in m: most of the kernels tests' time).
	view, seen := make([]L, n), uint64(0)
	viewAt := func() []L {
		t := uint64(len(*hist))
		upto := t - min(t, tau) // balls τ ago
		if b > 0 {
			upto = t - t%b // balls at the batch's start
		}
		if upto < seen {
			panic("refStaleMemory: the view went back in time")
		}
		for ; seen < upto; seen++ {
			view[(*hist)[seen]]++
		}
		return view
	}
	for range count {
		view = viewAt()
		var cands []uint32
		for range d {
			if j := r.Bounded(n); !slices.Contains(cands, j) {
				cands = append(cands, j)
			}
		}
		samples := slices.Clone(cands)
		for _, c := range cache {
			if !slices.Contains(cands, c) {
				cands = append(cands, c)
			}
		}
		lo := view[cands[0]]
		for _, c := range cands {
			lo = min(lo, view[c])
		}
		var tied []uint32
		settled := true
		for _, c := range cands {
			if view[c] == lo {
				tied = append(tied, c)
				settled = settled && loads[c] == view[c]
			}
		}
		took := tied[0]
		if len(tied) > 1 && !settled {
			took = tied[coins.Bounded(uint32(len(tied)))]
		}
		loads[took]++
		*hist = append(*hist, took)
		if lastUsed {
			cache[0] = took
			continue
		}
		view = viewAt()
		for _, j := range samples {
			if slices.Contains(cache, j) {
				continue
			}
			heaviest := 0
			for q := range cache {
				if view[cache[q]] > view[cache[heaviest]] {
					heaviest = q
				}
			}
			if view[j] < view[cache[heaviest]] {
				cache[heaviest] = j
			}
		}
		vk := view[cache[0]]
		for _, c := range cache {
			vk = max(vk, view[c])
		}
		var boundary []uint32
		kept, settled := 0, true
		for _, c := range cands {
			if view[c] == vk {
				boundary = append(boundary, c)
				settled = settled && loads[c] == view[c]
				if slices.Contains(cache, c) {
					kept++
				}
			}
		}
		if kept == len(boundary) || settled {
			continue
		}
		for i := range kept {
			k := i + int(coins.Bounded(uint32(len(boundary)-i)))
			boundary[i], boundary[k] = boundary[k], boundary[i]
		}
		i := 0
		for q := range cache {
			if view[cache[q]] == vk {
				cache[q] = boundary[i]
				i++
			}
		}
	}
}

// The stale loops against the literal one, ball for ball — loads, cache,
// both streams — for batches and fixed delays, d = 1, 2, 3 and K = 1, 2, 3
// (both rules at K = 1), in chunks that stop mid-batch, max_gap at the
// batch ends included; and the coins are used (a run with them never drawn
// would not test them).
func TestStaleMemoryMatchesReference(t *testing.T) {
	coinsUsed := 0
	for _, n := range []int{1, 2, 3, 7, 50} {
		for _, d := range []int{1, 2, 3} {
			for _, k := range []int{1, 2, 3} {
				for _, lastUsed := range []bool{false, true} {
					if k > n || (lastUsed && k != 1) {
						continue
					}
					for _, st := range []struct{ b, tau uint64 }{{1, 0}, {2, 0}, {5, 0}, {uint64(n), 0}, {3 * uint64(n), 0}, {0, 1}, {0, 4}, {0, uint64(n)}, {0, 100000}} {
						name := fmt.Sprintf("n=%d d=%d K=%d lastUsed=%v b=%d τ=%d", n, d, k, lastUsed, st.b, st.tau)
						seed := uint64(n*100 + d*10 + k)
						const m = 3000
						cf, cs := make([]uint32, k), make([]uint32, k)
						init := NewPCG32(seed, 9)
						FirstCache(cf, uint32(n), &init)
						copy(cs, cf)
						fast, slow := make([]uint32, n), make([]uint32, n)
						rf, rs := NewPCG32(seed, 3), NewPCG32(seed, 3)
						nf, nsl := NewPCG32(seed, 4), NewPCG32(seed, 4)
						var bt *Batch[uint32]
						var dl *Delay[uint32]
						if st.b > 0 {
							bt = NewBatch[uint32](n, st.b, false)
						} else {
							dl = NewDelay[uint32](n, st.tau, DelayFixed, false, nil, m)
						}
						sc := NewMemoryScratch(d, k)
						var maxLoad uint32
						for done := uint64(0); done < m; done += 13 {
							maxLoad = StaleMemory(fast, &rf, &nf, min(13, m-done), d, cf, lastUsed, sc, bt, dl, maxLoad)
						}
						var hist []uint32
						refStaleMemory(slow, &rs, &nsl, m, d, cs, lastUsed, st.b, st.tau, &hist)
						if !slices.Equal(fast, slow) || !slices.Equal(cf, cs) || rf != rs || nf != nsl || maxLoad != slices.Max(slow) {
							t.Fatalf("%s: fast %v cache %v, slow %v cache %v", name, fast, cf, slow, cs)
						}
						if nf != NewPCG32(seed, 4) {
							coinsUsed++
						}
						if bt != nil { // max_gap: the largest gap at a batch end, from the record
							replay := make([]uint64, n)
							ends, best := uint64(0), uint64(0)
							for u, i := range hist {
								replay[i]++
								if uint64(u+1)%st.b == 0 {
									if v := slices.Max(replay)*uint64(n) - uint64(u+1); ends == 0 || v > best {
										best = v
									}
									ends++
								}
							}
							gotEnds, gotGap := bt.BatchEnds(n)
							if gotEnds != ends || (ends > 0 && gotGap != float64(best)/float64(n)) {
								t.Fatalf("%s: %d batch ends, max_gap %v; the record's %d, %v", name, gotEnds, gotGap, ends, float64(best)/float64(n))
							}
						}
					}
				}
			}
		}
	}
	if coinsUsed == 0 {
		t.Fatal("no run drew a coin")
	}
	t.Logf("%d runs drew coins", coinsUsed)
}

// At b = 1 every ball ends its batch: the view after each ball is the real
// loads, no bin is ever unsettled, and the batched loop is Memory draw for
// draw, coins never drawn.
func TestStaleMemoryBatchOneIsMemory(t *testing.T) {
	for _, c := range []struct{ n, d, k int }{{1, 1, 1}, {5, 1, 1}, {50, 1, 2}, {50, 1, 3}, {50, 2, 1}, {50, 2, 2}, {50, 3, 3}, {1000, 1, 20}} {
		for _, lastUsed := range []bool{false, true} {
			if lastUsed && c.k != 1 {
				continue
			}
			ca, cb := make([]uint32, c.k), make([]uint32, c.k)
			init := NewPCG32(uint64(c.n), 1)
			FirstCache(ca, uint32(c.n), &init)
			copy(cb, ca)
			a, b := make([]uint32, c.n), make([]uint32, c.n)
			ra, rb := NewPCG32(7, uint64(c.k)), NewPCG32(7, uint64(c.k))
			coins := NewPCG32(8, 8)
			bt := NewBatch[uint32](c.n, 1, false)
			ma := StaleMemory(a, &ra, &coins, 20000, c.d, ca, lastUsed, NewMemoryScratch(c.d, c.k), bt, nil, 0)
			mb := Memory(b, &rb, 20000, c.d, cb, make([]uint32, c.d), lastUsed, 0)
			if !slices.Equal(a, b) || !slices.Equal(ca, cb) || ra != rb || ma != mb || coins != NewPCG32(8, 8) {
				t.Fatalf("%+v lastUsed=%v: --batch 1 differs from memory", c, lastUsed)
			}
		}
	}
}
