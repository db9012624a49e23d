package kernels

import (
	"fmt"
	"slices"
	"testing"
)

// refMemory is Memory written from its definition, one ball at a time with
// PCG32 methods: the d samples, the candidates (samples, then the cache),
// the first least loaded takes the ball; then the cache keeps the bin that
// took it (lastUsed), or each sample in turn, if not cached and lighter than
// the heaviest cached bin, takes that bin's slot. check, when set, is called
// after each ball with the candidates.
func refMemory[L Load](loads []L, r *PCG32, count uint64, d int, cache []uint32, lastUsed bool, check func(candidates []uint32)) {
	n := uint32(len(loads))
	for range count {
		samples := make([]uint32, d)
		for k := range samples {
			samples[k] = r.Bounded(n)
		}
		candidates := append(slices.Clone(samples), cache...)
		best := candidates[0]
		for _, j := range candidates {
			if loads[j] < loads[best] {
				best = j
			}
		}
		loads[best]++
		if lastUsed {
			cache[0] = best
		} else {
			for _, j := range samples {
				if slices.Contains(cache, j) {
					continue
				}
				heaviest := 0
				for q := range cache {
					if loads[cache[q]] > loads[cache[heaviest]] {
						heaviest = q
					}
				}
				if loads[j] < loads[cache[heaviest]] {
					cache[heaviest] = j
				}
			}
		}
		if check != nil {
			check(candidates)
		}
	}
}

// The fast loops against the literal one, ball for ball: same loads, same
// cache, same stream state, for d = 1, 2, 3 and K = 1, 2, 3 (both rules at
// K = 1), chunks that stop mid-run, 32- and 64-bit loads, staged and not.
func TestMemoryMatchesReference(t *testing.T) { withStaging(t, testMemoryMatchesReference) }

func testMemoryMatchesReference(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 50} {
		for _, d := range []int{1, 2, 3} {
			for _, k := range []int{1, 2, 3} {
				for _, lastUsed := range []bool{false, true} {
					if k > n || (lastUsed && k != 1) {
						continue
					}
					for _, m := range []uint64{1, 37, 5000} {
						name := fmt.Sprintf("n=%d d=%d K=%d lastUsed=%v m=%d", n, d, k, lastUsed, m)
						seed := uint64(n*100 + d*10 + k)
						cf, cs := make([]uint32, k), make([]uint32, k)
						init := NewPCG32(seed, 9)
						FirstCache(cf, uint32(n), &init)
						copy(cs, cf)
						fast, slow := make([]uint32, n), make([]uint32, n)
						rf, rs := NewPCG32(seed, m), NewPCG32(seed, m)
						scratch := make([]uint32, d)
						var maxLoad uint32
						for done := uint64(0); done < m; done += 13 {
							maxLoad = Memory(fast, &rf, min(13, m-done), d, cf, scratch, lastUsed, maxLoad)
						}
						refMemory(slow, &rs, m, d, cs, lastUsed, nil)
						if !slices.Equal(fast, slow) || !slices.Equal(cf, cs) || rf != rs || maxLoad != slices.Max(slow) {
							t.Fatalf("%s: fast %v cache %v, slow %v cache %v", name, fast, cf, slow, cs)
						}
					}
				}
			}
		}
	}
	for _, d := range []int{1, 2} {
		fast, slow := make([]uint64, 10), make([]uint64, 10)
		cf, cs := []uint32{4, 7}, []uint32{4, 7}
		if d == 1 {
			cf, cs = cf[:1], cs[:1]
		}
		rf, rs := NewPCG32(5, 6), NewPCG32(5, 6)
		Memory(fast, &rf, 20000, d, cf, make([]uint32, d), false, 0)
		refMemory(slow, &rs, 20000, d, cs, false, nil)
		if !slices.Equal(fast, slow) || !slices.Equal(cf, cs) || rf != rs {
			t.Fatalf("64-bit loads, d=%d: fast %v, slow %v", d, fast, slow)
		}
	}
}

// The literal update is the rule of Mitzenmacher, Prabhakar and Shah: after
// every ball the cache holds K distinct candidates, and none of the
// candidates left out is lighter than a cached one.
func TestMemoryCacheKeepsLeastLoaded(t *testing.T) {
	for _, c := range []struct{ n, d, k int }{{3, 1, 2}, {5, 2, 3}, {8, 3, 2}, {4, 1, 4}, {20, 4, 5}} {
		loads := make([]uint32, c.n)
		cache := make([]uint32, c.k)
		r := NewPCG32(uint64(c.n), uint64(c.k))
		FirstCache(cache, uint32(c.n), &r)
		balls := 0
		refMemory(loads, &r, 3000, c.d, cache, false, func(candidates []uint32) {
			balls++
			sorted := slices.Clone(cache)
			slices.Sort(sorted)
			if len(slices.Compact(sorted)) != c.k {
				t.Fatalf("%+v ball %d: cache %v is not %d distinct bins", c, balls, cache, c.k)
			}
			var heaviest uint32
			for _, j := range cache {
				if !slices.Contains(candidates, j) {
					t.Fatalf("%+v ball %d: cached %d was no candidate of %v", c, balls, j, candidates)
				}
				heaviest = max(heaviest, loads[j])
			}
			for _, j := range candidates {
				if !slices.Contains(cache, j) && loads[j] < heaviest {
					t.Fatalf("%+v ball %d: candidate %d (load %d) left out for a cached bin of load %d", c, balls, j, loads[j], heaviest)
				}
			}
		})
	}
}

// FirstCache's slots are a uniform ordered tuple of distinct bins: each of
// the 4·3 tuples of n = 4, K = 2 about 1/12 of the time (χ², 11 df, false
// alarm 1e-4: limit 35.6).
func TestFirstCacheIsUniform(t *testing.T) {
	const draws = 120000
	counts := map[[2]uint32]int{}
	r := NewPCG32(3, 4)
	cache := make([]uint32, 2)
	for range draws {
		FirstCache(cache, 4, &r)
		if cache[0] == cache[1] {
			t.Fatalf("repeated bin %v", cache)
		}
		counts[[2]uint32{cache[0], cache[1]}]++
	}
	e := float64(draws) / 12
	stat := 0.0
	for _, o := range counts {
		stat += (float64(o) - e) * (float64(o) - e) / e
	}
	if len(counts) != 12 || stat > 35.6 {
		t.Errorf("%d tuples, χ² = %.1f on 11 df > 35.6: %v", len(counts), stat, counts)
	}
}

// More cached bins than memoryOneSample keeps loads of (16): the wide
// loops against the literal one.
func TestMemoryWideCacheMatchesReference(t *testing.T) {
	for _, d := range []int{1, 2} {
		for _, k := range []int{16, 17, 40} {
			const n = 60
			cf := make([]uint32, k)
			init := NewPCG32(uint64(k), 1)
			FirstCache(cf, n, &init)
			cs := slices.Clone(cf)
			fast, slow := make([]uint32, n), make([]uint32, n)
			rf, rs := NewPCG32(uint64(d), uint64(k)), NewPCG32(uint64(d), uint64(k))
			var maxLoad uint32
			for done := 0; done < 6000; done += 999 {
				maxLoad = Memory(fast, &rf, uint64(min(999, 6000-done)), d, cf, make([]uint32, d), false, maxLoad)
			}
			refMemory(slow, &rs, 6000, d, cs, false, nil)
			if !slices.Equal(fast, slow) || !slices.Equal(cf, cs) || rf != rs || maxLoad != slices.Max(slow) {
				t.Fatalf("d=%d K=%d: fast %v cache %v, slow %v cache %v", d, k, fast, cf, slow, cs)
			}
		}
	}
}
