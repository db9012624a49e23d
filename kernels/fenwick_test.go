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
				if got := fenwickPrefix(f, j); got != acc {
					t.Fatalf("n=%d: prefix(%d) = %d, want %d", n, j, got, acc)
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

// fenwickPrefix is the sum of counts [0, i) read from the tree, the oracle
// that checks the tree itself (the package only needs Add and Find).
func fenwickPrefix(f *Fenwick, i int) uint64 {
	s := uint64(0)
	for ; i > 0; i -= i & -i {
		s += f.tree[i]
	}
	return s
}
