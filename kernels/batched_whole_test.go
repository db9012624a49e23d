package kernels

import (
	"slices"
	"testing"
)

// batchedTwinningWhole (b ≥ n: one add a step) ends its batches as
// placeBatch does: the batch count and the largest gap max·n − t at a
// batch end, taken here from the loads after each batch, from an unequal
// start, in calls that stop mid-batch and mid-step. Its balls are checked
// against the literal rule by TestBatchedAnyMatchesReference (b ≥ n there
// too).
func TestBatchedTwinningWholeBatchEnds(t *testing.T) {
	const m = 5000
	for _, n := range []int{1, 3, 17, 64} {
		for _, b := range []uint64{uint64(n), uint64(n) + 5, 1000} {
			for _, packing := range []bool{false, true} {
				loads := startLoads(n)
				w0 := sumLoads(loads)
				r := NewPCG32(uint64(n)+21, b)
				bt := NewBatch[uint32](n, b, false)
				if bt.pending != nil {
					t.Fatalf("n=%d b=%d: the batch's bins are listed; the test wants b ≥ n", n, b)
				}
				bt.Start(loads)
				var st MultiStep
				maxLoad := slices.Max(loads)
				ends, best := uint64(0), uint64(0)
				segments(b, m, func(t0, c uint64) {
					maxLoad = BatchedTwinning(loads, &r, w0+t0, c, &st, packing, bt, maxLoad)
					if bt.t%b == 0 {
						ends++
						if v := uint64(slices.Max(loads))*uint64(n) - bt.t; ends == 1 || v > best {
							best = v
						}
					}
				})
				if maxLoad != slices.Max(loads) {
					t.Fatalf("n=%d b=%d packing=%v: max %d, loads' %d", n, b, packing, maxLoad, slices.Max(loads))
				}
				gotEnds, gotGap := bt.BatchEnds(n)
				if gotEnds != ends || gotGap != float64(best)/float64(n) {
					t.Fatalf("n=%d b=%d packing=%v: %d ends, gap %v; want %d, %v", n, b, packing, gotEnds, gotGap, ends, float64(best)/float64(n))
				}
				if !slices.Equal(bt.frozen, loads) != (bt.t%b != 0) {
					t.Fatalf("n=%d b=%d packing=%v: frozen loads not the last batch end's", n, b, packing)
				}
			}
		}
	}
}
