package kernels

import (
	"fmt"
	"testing"
)

// QuantileCounts.Down against a recount: random moves up (Quantile's own
// loop) and down (a uniform non-empty bin), and after each the counts, the
// least load, the boundary b and the bins above it equal those recounted
// from the loads.
func TestQuantileCountsDown(t *testing.T) {
	for _, c := range []struct{ n, k uint64 }{{1, 1}, {3, 2}, {10, 1}, {10, 10}, {50, 17}} {
		t.Run(fmt.Sprintf("n=%d/k=%d", c.n, c.k), func(t *testing.T) {
			r := NewPCG32(3, 4)
			loads := make([]uint32, c.n)
			q := NewQuantileCounts(c.n, c.k)
			var maxLoad uint32
			for step := range 20000 {
				// Long stretches up then down, so the loads rise past the
				// ring's 64 and fall back to empty bins.
				if (step/500)%2 == 0 || r.Bounded(4) == 0 {
					maxLoad = Quantile(loads, &r, 1, q, nil, maxLoad)
				} else {
					i := r.Bounded(uint32(c.n))
					if loads[i] == 0 {
						continue
					}
					loads[i]--
					q.Down(uint64(loads[i]) + 1)
				}
				want := NewQuantileCounts(c.n, c.k)
				recount(want, loads)
				if q.lo != want.lo || q.b != want.b || q.above != want.above {
					t.Fatalf("step %d: lo, b, above = %d, %d, %d; recounted %d, %d, %d", step, q.lo, q.b, q.above, want.lo, want.b, want.above)
				}
				top := uint32(0)
				for _, l := range loads {
					top = max(top, l)
				}
				for v := want.lo; v <= uint64(top); v++ {
					if q.cnt[v&q.mask] != want.cnt[v&want.mask] {
						t.Fatalf("step %d: %d bins at load %d, recounted %d", step, q.cnt[v&q.mask], v, want.cnt[v&want.mask])
					}
				}
			}
		})
	}
}

// Down below the least load when the ring is full: loads 1 and 64 fill the
// 64 slots, and the bin at 1 moving to 0 would land on 64's slot.
func TestQuantileCountsDownGrows(t *testing.T) {
	loads := []uint32{1, 64}
	q := NewQuantileCounts(2, 1)
	StartQuantile(q, loads)
	if len(q.cnt) != 64 {
		t.Fatalf("ring of %d, want 64 for the case", len(q.cnt))
	}
	loads[0] = 0
	q.Down(1)
	want := NewQuantileCounts(2, 1)
	recount(want, loads)
	if q.lo != 0 || q.cnt[0&q.mask] != 1 || q.cnt[64&q.mask] != 1 || q.b != want.b || q.above != want.above {
		t.Errorf("lo %d, at 0: %d, at 64: %d, b %d above %d; want b %d above %d", q.lo, q.cnt[0&q.mask], q.cnt[64&q.mask], q.b, q.above, want.b, want.above)
	}
}
