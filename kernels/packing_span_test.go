package kernels

import (
	"slices"
	"testing"
)

// packingSpan places its balls in loads itself, a step in one add: after
// a span, loads gained exactly the bins the span wrote into the ring's
// slots (what addPlaced would have added), and the maximum is the loads'
// — from a step in progress of every length, including steps longer than
// the span's ring and steps of packing longer than four balls — and the
// rest (ring, past loads, state, step in progress, samples) is
// twinningSpan's.
func TestPackingSpanPlacesTheRingsBalls(t *testing.T) {
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
				past2, ring2 := slices.Clone(past), slices.Clone(ring)
				t0 := uint64(n)*uint64(slices.Max(past)) + 5 // packing's steps long
				maxLoad := slices.Max(loads)
				k, s, ow, bin, smp, got := packingSpan(loads, past, n, ring, r.state, r.inc(), t0, owed, 3, pk, maxLoad)
				k2, s2, ow2, bin2, smp2 := twinningSpan(past2, n, ring2, r.state, r.inc(), t0, owed, 3, pk)
				want := addPlaced(before, ring2[:k2], maxLoad)
				if !slices.Equal(loads, before) || got != want || got != slices.Max(loads) {
					t.Fatalf("pk=%d owed=%d size=%d: loads %v max %d, ring's balls give %v max %d", pk, owed, size, loads, got, before, want)
				}
				if k != k2 || s != s2 || ow != ow2 || bin != bin2 || smp != smp2 || !slices.Equal(ring, ring2) || !slices.Equal(past, past2) {
					t.Fatalf("pk=%d owed=%d size=%d: packingSpan's ring, past or step differ from twinningSpan's", pk, owed, size)
				}
			}
		}
	}
}
