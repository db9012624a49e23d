package kernels

import (
	"slices"
	"testing"
)

// refQuantile is Quantile written from its definition: sort the loads to
// find the load b of the k-th heaviest bin, the bins above it and at it;
// draw the first bin, the second and the tie (every ball, as the fast loop
// documents); the first bin is heavy above b, light below, and at b heavy
// when its uniform position among the bins at b is among the k heaviest.
func refQuantile[L Load](loads []L, r *PCG32, count, k uint64, coin *Bernoulli) {
	n := uint32(len(loads))
	for range count {
		b, above, at := refBoundary(loads, k)
		use := coin == nil || coin.Flip(r)
		i, j, x := r.Bounded(n), r.Bounded(n), r.Bounded(uint32(at))
		if use && (loads[i] > b || (loads[i] == b && uint64(x) < k-above)) {
			i = j
		}
		loads[i]++
	}
}

// refBoundary finds, by sorting, the load b of the k-th heaviest bin and
// how many bins are above it and at it.
func refBoundary[L Load](loads []L, k uint64) (b L, above, at uint64) {
	sorted := slices.Clone(loads)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	b = sorted[k-1]
	for _, v := range loads {
		if v > b {
			above++
		} else if v == b {
			at++
		}
	}
	return b, above, at
}

// The fast loop against the literal one, ball for ball: same loads, same
// stream state, for every k from 1 to n, 32- and 64-bit loads, chunks that
// stop mid-stretch, and runs long enough for the ring of counts to grow.
func TestQuantileMatchesReference(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 50} {
		for _, k := range []uint64{1, 2, uint64(n) / 2, uint64(n) - 1, uint64(n)} {
			if k < 1 || k > uint64(n) {
				continue
			}
			for _, m := range []uint64{1, 37, 5000} {
				fast, slow := make([]uint32, n), make([]uint32, n)
				rf, rs := NewPCG32(uint64(n)*7+k, m), NewPCG32(uint64(n)*7+k, m)
				q := NewQuantileCounts(uint64(n), k)
				var maxLoad uint32
				for done := uint64(0); done < m; done += 13 {
					maxLoad = Quantile(fast, &rf, min(13, m-done), q, nil, maxLoad)
				}
				refQuantile(slow, &rs, m, k, nil)
				if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
					t.Fatalf("n=%d k=%d m=%d: fast %v, slow %v", n, k, m, fast, slow)
				}
			}
		}
	}
	fast, slow := make([]uint64, 10), make([]uint64, 10)
	rf, rs := NewPCG32(5, 6), NewPCG32(5, 6)
	Quantile(fast, &rf, 20000, NewQuantileCounts(10, 3), nil, 0)
	refQuantile(slow, &rs, 20000, 3, nil)
	if !slices.Equal(fast, slow) || rf != rs {
		t.Fatalf("64-bit loads: fast %v, slow %v", fast, slow)
	}
}

// One ball of Quantile with k heavy positions moves the bins past the
// ring's first size (64 loads): a single bin takes every ball when n = 1.
func TestQuantileRingGrows(t *testing.T) {
	loads := make([]uint32, 1)
	r := NewPCG32(1, 1)
	q := NewQuantileCounts(1, 1)
	if got := Quantile(loads, &r, 1000, q, nil, 0); got != 1000 || loads[0] != 1000 || q.b != 1000 || q.lo != 1000 {
		t.Fatalf("n=1: max %d, loads %v, b %d, lo %d", got, loads, q.b, q.lo)
	}
}

// LevelsQuantile against the literal rule on a sorted load vector: rank x
// from the least loaded, heavy when x ≥ n − k; the same stream, so the same
// histogram.
func TestLevelsQuantileMatchesSorted(t *testing.T) {
	for _, c := range []struct{ n, k, m uint64 }{{1, 1, 50}, {5, 2, 300}, {40, 13, 4000}, {40, 40, 2000}} {
		lv := NewLevels(c.n)
		r1, r2 := NewPCG32(c.n, c.k), NewPCG32(c.n, c.k)
		LevelsQuantile(lv, &r1, c.m, c.k, nil)
		sorted := make([]uint64, c.n) // ascending
		for range c.m {
			x, y := uint64(r2.Bounded(uint32(c.n))), uint64(r2.Bounded(uint32(c.n)))
			if x >= c.n-c.k {
				x = y
			}
			v := sorted[x]
			last := x
			for last+1 < c.n && sorted[last+1] == v {
				last++
			}
			sorted[last]++ // the last bin of the level moves up: still sorted
		}
		for i := range lv.Len() {
			want := uint64(0)
			for _, v := range sorted {
				if v == lv.Min()+uint64(i) {
					want++
				}
			}
			if lv.Count(i) != want {
				t.Fatalf("%+v: level %d holds %d bins, want %d (%v)", c, lv.Min()+uint64(i), lv.Count(i), want, sorted)
			}
		}
		if r1 != r2 {
			t.Fatalf("%+v: streams differ", c)
		}
	}
}

// Mixed-Quantile (a coin of η before each ball) against the literal loop.
func TestMixedQuantileMatchesReference(t *testing.T) {
	for _, eta := range []float64{0, 0.3, 1} {
		coin, err := NewBernoulli(eta)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{3, 40} {
			fast, slow := make([]uint32, n), make([]uint32, n)
			rf, rs := NewPCG32(9, uint64(n)), NewPCG32(9, uint64(n))
			k := uint64(n+1) / 2
			Quantile(fast, &rf, 3000, NewQuantileCounts(uint64(n), k), &coin, 0)
			refQuantile(slow, &rs, 3000, k, &coin)
			if !slices.Equal(fast, slow) || rf != rs {
				t.Fatalf("η=%v n=%d: fast %v, slow %v", eta, n, fast, slow)
			}
		}
	}
}
