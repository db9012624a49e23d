package kernels

import (
	"fmt"
	"slices"
	"testing"
)

// refKThinning is K-Thinning with limits written out: up to K = len(limits)+1
// samples, one PCG32.Bounded each, sample j kept when its load is below
// limits[j−1], the K-th kept whatever its load.
func refKThinning[L Load](loads []L, r *PCG32, count uint64, limits []uint64) {
	n := uint32(len(loads))
	for range count {
		var i uint32
		for j := 0; ; j++ {
			i = r.Bounded(n)
			if j == len(limits) || uint64(loads[i]) < limits[j] {
				break
			}
		}
		loads[i]++
	}
}

// refKThinningQuantile is the dissertation's rule written out: sample j
// (choices left c = K − j + 1) is kept when its load is at most
// sorted(loads)[idx[j−1]], the loads sorted in ascending order afresh for
// every sample; the K-th is kept whatever its load.
func refKThinningQuantile[L Load](loads []L, r *PCG32, count uint64, idx []uint64) {
	n := uint32(len(loads))
	for range count {
		var i uint32
		for j := 0; ; j++ {
			i = r.Bounded(n)
			if j == len(idx) {
				break
			}
			sorted := slices.Clone(loads)
			slices.Sort(sorted)
			if loads[i] <= sorted[idx[j]] {
				break
			}
		}
		loads[i]++
	}
}

// The limits loop against the literal one, ball for ball (same loads, same
// stream state), in chunks; and with one limit it is TwoThinning.
func TestKThinningMatchesReference(t *testing.T) {
	for _, n := range []int{1, 2, 5, 64} {
		for _, limits := range [][]uint64{{0}, {3}, {1, 2}, {5, 0, 9}, {40, 40, 40, 40}, {2, 4, 6, 8, 10, 12, 1 << 40}} {
			name := fmt.Sprintf("n=%d/limits=%v", n, limits)
			fast, slow := make([]uint32, n), make([]uint32, n)
			rf, rs := NewPCG32(uint64(n), 9), NewPCG32(uint64(n), 9)
			var maxLoad uint32
			for done := uint64(0); done < 3000; done += 17 {
				maxLoad = KThinning(fast, &rf, min(17, 3000-done), limits, maxLoad)
			}
			refKThinning(slow, &rs, 3000, limits)
			if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
				t.Fatalf("%s: fast %v, slow %v", name, fast, slow)
			}
			if len(limits) == 1 {
				two := make([]uint32, n)
				rt, rk := NewPCG32(3, uint64(n)), NewPCG32(3, uint64(n))
				TwoThinning(two, &rt, 3000, limits[0], 0)
				k := make([]uint32, n)
				KThinning(k, &rk, 3000, limits, 0)
				if !slices.Equal(two, k) || rt != rk {
					t.Fatalf("%s: K = 2 differs from TwoThinning", name)
				}
			}
		}
	}
	fast, slow := make([]uint64, 9), make([]uint64, 9)
	rf, rs := NewPCG32(1, 2), NewPCG32(1, 2)
	KThinning(fast, &rf, 5000, []uint64{300, 200}, 0)
	refKThinning(slow, &rs, 5000, []uint64{300, 200})
	if !slices.Equal(fast, slow) || rf != rs {
		t.Fatalf("64-bit loads: fast %v, slow %v", fast, slow)
	}
}

// The quantile loop against sorting for every sample, ball for ball, with
// boundaries from the least to the heaviest position, repeated ones, runs
// long enough for the ring to grow, and chunks that stop anywhere.
func TestKThinningQuantileMatchesReference(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 50} {
		for _, idx := range [][]uint64{{0}, {n / 2}, {n - 1}, {n / 3, 0}, {n - 1, n / 2, 0}, {1 % n, 1 % n, n / 4}} {
			for _, m := range []uint64{1, 40, 4000} {
				k := make([]uint64, len(idx))
				for j, p := range idx {
					k[j] = n - p
				}
				fast, slow := make([]uint32, n), make([]uint32, n)
				rf, rs := NewPCG32(n, m), NewPCG32(n, m)
				q := NewKThinningCounts(n, k)
				var maxLoad uint32
				for done := uint64(0); done < m; done += 11 {
					maxLoad = KThinningQuantile(fast, &rf, min(11, m-done), q, maxLoad)
				}
				refKThinningQuantile(slow, &rs, m, idx)
				if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
					t.Fatalf("n=%d idx=%v m=%d: fast %v, slow %v", n, idx, m, fast, slow)
				}
			}
		}
	}
	loads := make([]uint64, 1) // one bin takes every ball: the ring grows past 64 loads
	r := NewPCG32(1, 1)
	if got := KThinningQuantile(loads, &r, 1000, NewKThinningCounts(1, []uint64{1, 1}), 0); got != 1000 || loads[0] != 1000 {
		t.Fatalf("n=1: max %d, loads %v", got, loads)
	}
}

// From a non-empty start (--initial), StartKThinning sets the boundaries
// the tests need: the fast loop against the literal one, which sorts the
// current loads every sample.
func TestKThinningQuantileFromInitialLoads(t *testing.T) {
	for _, n := range []uint64{1, 3, 7, 50} {
		for _, idx := range [][]uint64{{0}, {n / 2}, {n - 1}, {n - 1, n / 2, 0}} {
			k := make([]uint64, len(idx))
			for j, p := range idx {
				k[j] = n - p
			}
			start := make([]uint32, n)
			g := NewPCG32(7, n)
			for i := range start {
				start[i] = g.Bounded(5) * g.Bounded(4)
			}
			start[0] += 9 // a spike
			fast, slow := slices.Clone(start), slices.Clone(start)
			rf, rs := NewPCG32(n, 3), NewPCG32(n, 3)
			q := NewKThinningCounts(n, k)
			StartKThinning(q, fast)
			maxLoad := slices.Max(fast)
			for done := uint64(0); done < 3000; done += 13 {
				maxLoad = KThinningQuantile(fast, &rf, min(13, 3000-done), q, maxLoad)
			}
			refKThinningQuantile(slow, &rs, 3000, idx)
			if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
				t.Fatalf("n=%d idx=%v: fast %v, slow %v", n, idx, fast, slow)
			}
		}
	}
}

// sortedAfter runs K-Thinning's rule on a sorted vector of ranks: pass(j,
// sorted, x) says whether rank x passes test j; the bin that takes the ball
// is the last of its level, so the vector stays sorted.
func sortedAfter(n, m uint64, r *PCG32, tests int, pass func(j int, sorted []uint64, x uint64) bool) []uint64 {
	sorted := make([]uint64, n)
	for range m {
		var x uint64
		for j := 0; ; j++ {
			x = uint64(r.Bounded(uint32(n)))
			if j == tests || pass(j, sorted, x) {
				break
			}
		}
		last := x
		for last+1 < n && sorted[last+1] == sorted[x] {
			last++
		}
		sorted[last]++
	}
	return sorted
}

func levelsEqual(t *testing.T, what string, lv *Levels, sorted []uint64) {
	t.Helper()
	for i := range lv.Len() {
		want := uint64(0)
		for _, v := range sorted {
			if v == lv.Min()+uint64(i) {
				want++
			}
		}
		if lv.Count(i) != want {
			t.Fatalf("%s: level %d holds %d bins, want %d (%v)", what, lv.Min()+uint64(i), lv.Count(i), want, sorted)
		}
	}
}

// The histogram loops against the literal rules on a sorted load vector,
// the same stream; with one limit LevelsKThinning is LevelsTwoThinning.
func TestLevelsKThinningMatchesSorted(t *testing.T) {
	for _, c := range []struct {
		n, m   uint64
		limits []uint64
		idx    []uint64
	}{{1, 50, []uint64{3}, []uint64{0}}, {5, 300, []uint64{30, 10}, []uint64{2, 1}}, {40, 4000, []uint64{100, 101, 99}, []uint64{11, 0, 39}}, {7, 700, []uint64{101}, []uint64{3}}} {
		what := fmt.Sprintf("%+v", c)
		lv := NewLevels(c.n)
		r1, r2 := NewPCG32(c.n, 1), NewPCG32(c.n, 1)
		LevelsKThinning(lv, &r1, c.m, c.limits)
		levelsEqual(t, what+" limits", lv, sortedAfter(c.n, c.m, &r2, len(c.limits), func(j int, s []uint64, x uint64) bool { return s[x] < c.limits[j] }))
		if r1 != r2 {
			t.Fatalf("%s: streams differ", what)
		}
		lv = NewLevels(c.n)
		r1, r2 = NewPCG32(c.n, 2), NewPCG32(c.n, 2)
		LevelsKThinningQuantile(lv, &r1, c.m, c.idx)
		levelsEqual(t, what+" quantile", lv, sortedAfter(c.n, c.m, &r2, len(c.idx), func(j int, s []uint64, x uint64) bool { return s[x] <= s[c.idx[j]] }))
		if r1 != r2 {
			t.Fatalf("%s: streams differ", what)
		}
		if len(c.limits) == 1 {
			a, b := NewLevels(c.n), NewLevels(c.n)
			ra, rb := NewPCG32(4, 4), NewPCG32(4, 4)
			LevelsKThinning(a, &ra, c.m, c.limits)
			LevelsTwoThinning(b, &rb, c.m, c.limits[0])
			if ra != rb || a.Len() != b.Len() || a.Min() != b.Min() {
				t.Fatalf("%s: K = 2 differs from LevelsTwoThinning", what)
			}
			for i := range a.Len() {
				if a.Count(i) != b.Count(i) {
					t.Fatalf("%s: K = 2 differs from LevelsTwoThinning", what)
				}
			}
		}
	}
}
