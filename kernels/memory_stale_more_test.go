package kernels

import (
	"fmt"
	"slices"
	"testing"
)

// The (d, K) pairs with a generated loop past d, K ≤ 2 —
// staleMemoryD1K3, staleMemoryD3K1, … — and pairs of the general loop
// (memoryRecache's exit when every sample is heavier) against the
// literal loop, ball for ball, cache and both streams, over more seeds and
// balls, for batches and fixed delays, in chunks that stop mid-batch; each
// pair must draw coins in some run (the coins' stream moved), or the tie
// paths went untested.
func TestStaleMemoryOwnLoopsMatchReference(t *testing.T) {
	seeds := uint64(3)
	if testing.Short() {
		seeds = 1
	}
	for _, dk := range [][2]int{{1, 3}, {3, 1}, {2, 3}, {3, 2}, {3, 3}, {1, 4}, {4, 4}, {2, 6}, {5, 1}} {
		d, k := dk[0], dk[1]
		coinsUsed := 0
		rules := []bool{false} // lastUsed; K = 1 also keeps the last bin used
		if k == 1 {
			rules = append(rules, true)
		}
		for _, lastUsed := range rules {
			for _, n := range []int{3, 4, 6, 11, 200} {
				if n < k {
					continue
				}
				for _, st := range []struct{ b, tau uint64 }{{1, 0}, {4, 0}, {uint64(n), 0}, {2*uint64(n) + 1, 0}, {0, 1}, {0, 5}, {0, uint64(n)}, {0, 3 * uint64(n)}} {
					for seed := range seeds {
						name := fmt.Sprintf("d=%d K=%d lastUsed=%v n=%d b=%d τ=%d seed=%d", d, k, lastUsed, n, st.b, st.tau, seed)
						const m = 5000
						cf, cs := make([]uint32, k), make([]uint32, k)
						init := NewPCG32(seed, 19)
						FirstCache(cf, uint32(n), &init)
						copy(cs, cf)
						fast, slow := make([]uint32, n), make([]uint32, n)
						rf, rs := NewPCG32(seed, 13), NewPCG32(seed, 13)
						nf, nsl := NewPCG32(seed, 14), NewPCG32(seed, 14)
						var bt *Batch[uint32]
						var dl *Delay[uint32]
						if st.b > 0 {
							bt = NewBatch[uint32](n, st.b, false)
						} else {
							dl = NewDelay[uint32](n, st.tau, DelayFixed, false, nil, m)
						}
						sc := NewMemoryScratch(d, k)
						var maxLoad uint32
						for done := uint64(0); done < m; done += 37 {
							maxLoad = StaleMemory(fast, &rf, &nf, min(37, m-done), d, cf, lastUsed, sc, bt, dl, maxLoad)
						}
						var hist []uint32
						refStaleMemory(slow, &rs, &nsl, m, d, cs, lastUsed, st.b, st.tau, &hist)
						if !slices.Equal(fast, slow) || !slices.Equal(cf, cs) || rf != rs || nf != nsl || maxLoad != slices.Max(slow) {
							t.Fatalf("%s: fast %v cache %v, slow %v cache %v", name, fast, cf, slow, cs)
						}
						if nf != NewPCG32(seed, 14) {
							coinsUsed++
						}
					}
				}
			}
		}
		if coinsUsed == 0 {
			t.Fatalf("d=%d K=%d: no run drew a coin", d, k)
		}
	}
}
