package kernels

import (
	"slices"
	"testing"
)

// RBBRelease against the authors' phase 1 (Dim131/RBB nextRound): every
// non-empty bin loses one ball; the count and the maximum after, literally.
func TestRBBReleaseMatchesLiteral(t *testing.T) {
	r := PCG32{}
	r.Seed(5, 7)
	for trial := range 300 {
		n := 1 + int(r.Bounded(40))
		loads := make([]uint32, n)
		for i := range loads {
			switch {
			case trial%3 == 0: // loads about 2^31 and 2^32 − 1: the SWAR lanes' top bits
				loads[i] = [4]uint32{0, 1, 1 << 31, 1<<32 - 1}[r.Bounded(4)]
			case r.Bounded(3) > 0:
				loads[i] = r.Bounded(uint32(1 + trial%9))
			}
		}
		want := slices.Clone(loads)
		k, top := uint64(0), uint32(0)
		for i := range want {
			if want[i] > 0 {
				want[i]--
				k++
			}
			top = max(top, want[i])
		}
		wide := make([]uint64, n)
		for i, v := range loads {
			wide[i] = uint64(v)
		}
		gotK, gotTop := RBBRelease(loads, slices.Max(loads))
		if !slices.Equal(loads, want) || gotK != k || gotTop != top {
			t.Fatalf("trial %d: released %d max %d loads %v, literal %d %d %v", trial, gotK, gotTop, loads, k, top, want)
		}
		wk, wtop := RBBRelease(wide, slices.Max(wide))
		for i := range wide {
			if wide[i] != uint64(want[i]) || wk != k || wtop != uint64(top) {
				t.Fatalf("trial %d, 64-bit loads: bin %d holds %d, literal %d", trial, i, wide[i], want[i])
			}
		}
	}
}

// Levels.Release against the level counts of the literally released vector,
// with every rank's level (the guide table) checked, on vectors with and
// without empty bins, and interleaved with moves so the guide is exercised
// after both.
func TestLevelsReleaseMatchesLiteral(t *testing.T) {
	r := PCG32{}
	r.Seed(11, 3)
	for trial := range 100 {
		n := 1 + uint64(r.Bounded(300))
		loads := make([]uint64, n)
		base := uint64(r.Bounded(3)) // loads from 0, 1 or 2 up: lo > 0 sometimes
		for i := range loads {
			loads[i] = base + uint64(r.Bounded(6))
		}
		lv := NewLevels(n)
		lo := slices.Min(loads)
		counts := make([]uint64, slices.Max(loads)-lo+1)
		for _, v := range loads {
			counts[v-lo]++
		}
		lv.SetCounts(lo, counts)
		for round := range 12 {
			k := lv.Release()
			want := uint64(0)
			for i := range loads {
				if loads[i] > 0 {
					loads[i]--
					want++
				}
			}
			if k != want {
				t.Fatalf("trial %d round %d: released %d, literal %d", trial, round, k, want)
			}
			// a few one-choice moves on ranks, mirrored on the sorted vector
			sorted := slices.Clone(loads)
			slices.Sort(sorted)
			for range r.Bounded(4) {
				x := r.Bounded64(n)
				lv.Move(lv.Level(x))
				// the bin of rank x in sorted order: its level's last rank moves up
				v := sorted[x]
				j, _ := slices.BinarySearch(sorted, v+1)
				sorted[j-1]++
			}
			copy(loads, sorted)
			checkLevels(t, lv, sorted) // dynamic_test.go: ranks and counts against sorted loads
		}
	}
}
