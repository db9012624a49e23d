package kernels

import (
	"slices"
	"testing"
)

// twinningSpan places its balls in loads itself, a step in one add: after
// a span, loads gained exactly the bins the span wrote into the ring's
// slots (what addPlaced would have added), and the maximum is the loads'
// — from a step in progress of every length, including steps longer than
// the span's ring and steps of packing longer than four balls.
func TestTwinningSpanPlacesTheRingsBalls(t *testing.T) {
	const n = 23
	for _, pk := range []uint64{0, 1} {
		for _, owed := range []uint64{0, 1, 3, 9, 40} {
			for _, size := range []int{0, 1, 4, 5, 17, 200} {
				past := make([]uint32, n)
				loads := make([]uint32, n)
				for i := range past {
					past[i] = uint32(i*5%7) + 3
					loads[i] = past[i] + uint32(i%4) // the balls of the last τ on top
				}
				r := NewPCG32(uint64(size)+7*owed, pk+1)
				ring := make([]uint32, size)
				for j := range ring {
					ring[j] = uint32(r.Bounded(n))
				}
				before := slices.Clone(loads)
				t0 := uint64(n)*uint64(slices.Max(past)) + 5 // packing's steps long
				maxLoad := slices.Max(loads)
				k, _, _, _, _, got := twinningSpan(loads, past, n, ring, r.state, r.inc(), t0, owed, 3, pk, maxLoad)
				want := addPlaced(before, ring[:k], maxLoad)
				if !slices.Equal(loads, before) || got != want || got != slices.Max(loads) {
					t.Fatalf("pk=%d owed=%d size=%d: loads %v max %d, ring's balls give %v max %d", pk, owed, size, loads, got, before, want)
				}
			}
		}
	}
}
