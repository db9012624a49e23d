package kernels

import (
	"sort"
	"testing"
)

// The ring's bucket search finds, for every point, the first node at or
// after it (node 0 past the last), as a binary search over the sorted
// positions does: at points drawn uniformly, at every node's position and
// one either side, and at the ends of the ring; for rings of 1, 2, 7 and
// 10^5 nodes, the bucket table's sizes from one bucket a node to the
// rounding up to a power of two.
func TestRingSearch(t *testing.T) {
	for _, tc := range []struct{ n, v uint32 }{{1, 1}, {2, 1}, {7, 1}, {1000, 100}, {100_000, 1}} {
		st := TrialStream(3, 1, LaneStructure)
		g := NewRing(&st, tc.n, tc.v)
		pos, bin := g.Nodes()
		if len(pos) != int(tc.n*tc.v) || !sort.SliceIsSorted(pos, func(i, j int) bool { return pos[i] < pos[j] }) {
			t.Fatalf("n = %d, v = %d: %d nodes, sorted %v", tc.n, tc.v, len(pos), sort.SliceIsSorted(pos, func(i, j int) bool { return pos[i] < pos[j] }))
		}
		per := make([]int, tc.n)
		for _, b := range bin {
			per[b]++
		}
		for b, k := range per {
			if k != int(tc.v) {
				t.Fatalf("n = %d, v = %d: bin %d has %d nodes", tc.n, tc.v, b, k)
			}
		}
		points := []uint64{0, 1, 1<<64 - 1, 1 << 63}
		for _, p := range pos {
			points = append(points, p-1, p, p+1)
		}
		r := TrialStream(4, 1, LaneChoices)
		for range 100_000 {
			points = append(points, r.Uint64())
		}
		for _, u := range points {
			want := sort.Search(len(pos), func(i int) bool { return pos[i] >= u }) % len(pos)
			if got := g.first(u); got != want {
				t.Fatalf("n = %d, v = %d, point %#x: first node %d, want %d", tc.n, tc.v, u, got, want)
			}
		}
	}
}

// HashRing allocates nothing.
func TestHashRingAllocs(t *testing.T) {
	st := TrialStream(3, 1, LaneStructure)
	g := NewRing(&st, 100, 3)
	loads := make([]uint32, 100)
	r := TrialStream(3, 1, LaneChoices)
	cp := Capacity{Num: 5, Den: 400} // c = 1.25, n = 100
	var pr Probes
	t0 := uint64(1)
	if a := testing.AllocsPerRun(20, func() {
		cp.At(t0)
		HashRing(loads, g, &r, 1000, &cp, &pr, 0)
		t0 += 1000
	}); a != 0 {
		t.Errorf("HashRing: %v allocations a call", a)
	}
}
