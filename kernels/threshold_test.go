package kernels

import (
	"fmt"
	"slices"
	"testing"
)

// refRetry is the retry rule written out: PCG32.Bounded until the load is
// below limit, each sample a probe.
func refRetry[L Load](loads []L, r *PCG32, count, limit uint64, pr *Probes) {
	n := uint32(len(loads))
	for range count {
		k := uint64(0)
		for {
			i := r.Bounded(n)
			k++
			if uint64(loads[i]) < limit {
				loads[i]++
				break
			}
		}
		pr.Total += k
		pr.Max = max(pr.Max, k)
	}
}

// Retry against the literal loop, ball for ball: loads, stream state and
// probes, with the limit raised as Adaptive's is (⌊t/n⌋ + 2) and held as
// Threshold's is (⌈m/n⌉ + 1), in chunks.
func TestRetryMatchesReference(t *testing.T) {
	for _, n := range []int{1, 2, 7, 100} {
		for _, adaptive := range []bool{false, true} {
			name := fmt.Sprintf("n=%d adaptive=%v", n, adaptive)
			const m = 5000
			fast, slow := make([]uint32, n), make([]uint32, n)
			rf, rs := NewPCG32(uint64(n), 3), NewPCG32(uint64(n), 3)
			var pf, ps Probes
			var maxLoad uint32
			for done := uint64(0); done < m; {
				limit, c := uint64((m+n-1)/n+1), min(uint64(13), m-done)
				if adaptive {
					q := done / uint64(n)
					limit, c = q+2, min(c, (q+1)*uint64(n)-done)
				}
				maxLoad = Retry(fast, &rf, c, limit, &pf, maxLoad)
				refRetry(slow, &rs, c, limit, &ps)
				done += c
			}
			if !slices.Equal(fast, slow) || rf != rs || pf != ps || maxLoad != slices.Max(slow) {
				t.Fatalf("%s: fast %v %+v, slow %v %+v", name, fast, pf, slow, ps)
			}
			if pf.Total < m || (n > 1 && pf.Max < 2) {
				t.Fatalf("%s: probes %+v for %d balls", name, pf, m)
			}
		}
	}
}

// LevelsRetry against the literal rule on a sorted load vector, the same
// stream and the same probes.
func TestLevelsRetryMatchesSorted(t *testing.T) {
	for _, c := range []struct{ n, m, limit uint64 }{{1, 50, 51}, {5, 300, 61}, {40, 4000, 101}, {40, 3999, 101}} {
		lv := NewLevels(c.n)
		r1, r2 := NewPCG32(c.n, 5), NewPCG32(c.n, 5)
		var p1, p2 Probes
		LevelsRetry(lv, &r1, c.m, c.limit, &p1)
		sorted := make([]uint64, c.n)
		for range c.m {
			k := uint64(1)
			x := uint64(r2.Bounded(uint32(c.n)))
			for sorted[x] >= c.limit {
				x = uint64(r2.Bounded(uint32(c.n)))
				k++
			}
			p2.Total += k
			p2.Max = max(p2.Max, k)
			last := x
			for last+1 < c.n && sorted[last+1] == sorted[x] {
				last++
			}
			sorted[last]++
		}
		levelsEqual(t, fmt.Sprintf("%+v", c), lv, sorted)
		if r1 != r2 || p1 != p2 {
			t.Fatalf("%+v: streams or probes differ: %+v vs %+v", c, p1, p2)
		}
	}
}
