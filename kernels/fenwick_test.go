package kernels

import "testing"

func TestFenwickAgainstSlices(t *testing.T) {
	r := TrialStream(1, 0, LaneChoices)
	for _, n := range []int{1, 2, 3, 7, 64, 100} {
		counts := make([]uint64, n)
		for i := range counts {
			counts[i] = uint64(r.Bounded(5))
		}
		counts[n-1]++ // a positive total
		f := NewFenwick(counts)
		for range 500 {
			i := int(r.Bounded(uint32(n)))
			if counts[i] > 0 && r.Bounded(2) == 0 {
				counts[i]--
				f.Add(i, ^uint64(0))
			} else {
				counts[i]++
				f.Add(i, 1)
			}
			total, acc := uint64(0), uint64(0)
			for _, c := range counts {
				total += c
			}
			if total == 0 {
				continue
			}
			for j := range n {
				if got := f.Prefix(j); got != acc {
					t.Fatalf("n=%d: Prefix(%d) = %d, want %d", n, j, got, acc)
				}
				acc += counts[j]
			}
			rank := uint64(r.Bounded(uint32(total)))
			want, acc := 0, uint64(0)
			for acc+counts[want] <= rank {
				acc += counts[want]
				want++
			}
			if got := f.Find(rank); got != want {
				t.Fatalf("n=%d: Find(%d) = %d, want %d (counts %v)", n, rank, got, want, counts)
			}
		}
	}
}

func TestLevelsMoves(t *testing.T) {
	lv := NewLevels(5)
	// Put balls on level indices and check counts against a slow histogram.
	loads := make([]uint64, 5)
	r := TrialStream(2, 0, LaneChoices)
	for range 2000 {
		b := r.Bounded(5)
		// the level index of bin b's load
		k := loads[b]
		lv.Move(int(k - lv.Min()))
		loads[b]++
		// compare
		lo, hi := loads[0], loads[0]
		for _, x := range loads {
			lo, hi = min(lo, x), max(hi, x)
		}
		if lv.Min() != lo || lv.Max() != hi {
			t.Fatalf("levels span [%d, %d], loads [%d, %d]", lv.Min(), lv.Max(), lo, hi)
		}
		for i := range lv.Len() {
			c := uint64(0)
			for _, x := range loads {
				if x == lv.Min()+uint64(i) {
					c++
				}
			}
			if lv.Count(i) != c {
				t.Fatalf("level %d holds %d bins, loads say %d", lv.Min()+uint64(i), lv.Count(i), c)
			}
		}
		for rk := range uint64(5) {
			// rank rk in load order
			want := 0
			acc := uint64(0)
			for i := range lv.Len() {
				acc += lv.Count(i)
				if rk < acc {
					want = i
					break
				}
			}
			if got := lv.Level(rk); got != want {
				t.Fatalf("Level(%d) = %d, want %d", rk, got, want)
			}
		}
	}
}

// levelOf (both its linear and its binary-search forms) against a scan.
func TestLevelOf(t *testing.T) {
	r := TrialStream(3, 0, LaneChoices)
	for _, L := range []int{1, 2, 5, 31, 32, 33, 64, 100, 1000} {
		cum := make([]uint64, L)
		acc := uint64(0)
		for i := range cum {
			acc += uint64(r.Bounded(4)) // empty levels inside the window too
			cum[i] = acc
		}
		cum[L-1]++
		n := cum[L-1]
		for rk := range n {
			want := 0
			for rk >= cum[want] {
				want++
			}
			if got := levelOf(cum, rk); got != want {
				t.Fatalf("L = %d: levelOf(%d) = %d, want %d", L, rk, got, want)
			}
		}
	}
}
