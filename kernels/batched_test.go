package kernels

import (
	"slices"
	"testing"
)

// refBatched runs any rule in the b-Batch setting literally: each ball
// decides on a copy of the loads taken at its batch's start.
func refBatched(loads []uint32, b, count uint64, decide func(frozen []uint32) uint32) {
	frozen := slices.Clone(loads)
	for t := uint64(0); t < count; t++ {
		if t%b == 0 {
			copy(frozen, loads)
		}
		loads[decide(frozen)]++
	}
}

// The batched d-choice and (1+β) loops against the literal batched rule,
// ball for ball, for batches smaller and larger than n, in calls that stop
// mid-batch; and d-choice with d = 2 is BBatch exactly.
func TestBatchedLoopsMatchReference(t *testing.T) {
	for _, n := range []int{1, 5, 64} {
		for _, b := range []uint64{1, 3, 64, 1000} {
			const m = 5000
			for _, d := range []int{1, 2, 3, 7} {
				fast, slow := make([]uint32, n), make([]uint32, n)
				rf, rs := NewPCG32(uint64(n), b*10+uint64(d)), NewPCG32(uint64(n), b*10+uint64(d))
				bt := NewBatch[uint32](n, b, false)
				var maxLoad uint32
				for done := uint64(0); done < m; done += 777 {
					maxLoad = BatchedDChoice(fast, &rf, min(777, m-done), d, bt, maxLoad)
				}
				refBatched(slow, b, m, func(fr []uint32) uint32 {
					best := rs.Bounded(uint32(n))
					for range d - 1 {
						if j := rs.Bounded(uint32(n)); fr[j] < fr[best] {
							best = j
						}
					}
					return best
				})
				if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
					t.Fatalf("d-choice n=%d b=%d d=%d: fast %v, slow %v", n, b, d, fast, slow)
				}
				if d == 2 {
					two := make([]uint32, n)
					r2 := NewPCG32(uint64(n), b*10+uint64(d))
					BBatch(two, &r2, m, NewBatch[uint32](n, b, false), 0)
					if !slices.Equal(two, fast) {
						t.Fatalf("n=%d b=%d: d-choice d=2 batched differs from BBatch", n, b)
					}
				}
			}
			for _, beta := range []float64{0, 0.3, 0.5, 1} {
				coin, err := NewBernoulli(beta)
				if err != nil {
					t.Fatal(err)
				}
				fast, slow := make([]uint32, n), make([]uint32, n)
				rf, rs := NewPCG32(uint64(n)+7, b), NewPCG32(uint64(n)+7, b)
				bt := NewBatch[uint32](n, b, false)
				BatchedOnePlusBeta(fast, &rf, m/2, &coin, bt, 0)
				BatchedOnePlusBeta(fast, &rf, m-m/2, &coin, bt, slices.Max(fast))
				refBatched(slow, b, m, func(fr []uint32) uint32 {
					two := coin.Flip(&rs)
					i, j := rs.Bounded(uint32(n)), rs.Bounded(uint32(n))
					if two && fr[j] < fr[i] {
						return j
					}
					return i
				})
				if !slices.Equal(fast, slow) || rf != rs {
					t.Fatalf("(1+β) n=%d b=%d β=%v: fast %v, slow %v", n, b, beta, fast, slow)
				}
			}
		}
	}
}

// At b = 1 the batched loops are the plain ones, ball for ball.
func TestBatchedAtOneIsPlain(t *testing.T) {
	a, b := make([]uint32, 100), make([]uint32, 100)
	r1, r2 := NewPCG32(3, 4), NewPCG32(3, 4)
	coin, _ := NewBernoulli(0.4)
	BatchedOnePlusBeta(a, &r1, 10000, &coin, NewBatch[uint32](100, 1, false), 0)
	OnePlusBeta(b, &r2, 10000, &coin, 0)
	if !slices.Equal(a, b) || r1 != r2 {
		t.Fatal("(1+β) batched at b = 1 differs from OnePlusBeta")
	}
	a, b = make([]uint32, 100), make([]uint32, 100)
	r1, r2 = NewPCG32(5, 6), NewPCG32(5, 6)
	BatchedDChoice(a, &r1, 10000, 3, NewBatch[uint32](100, 1, false), 0)
	DChoice(b, &r2, 10000, 3, 0)
	if !slices.Equal(a, b) || r1 != r2 {
		t.Fatal("d-choice batched at b = 1 differs from DChoice")
	}
}

// Quantile in batches against the literal rule on the frozen loads (the
// rank test of refQuantile, on the copy taken at the batch's start).
func TestBatchedQuantileMatchesReference(t *testing.T) {
	for _, n := range []int{1, 6, 40} {
		for _, k := range []uint64{1, uint64(n+1) / 2, uint64(n)} {
			for _, b := range []uint64{1, 5, 40, 300} {
				const m = 3000
				fast, slow := make([]uint32, n), make([]uint32, n)
				rf, rs := NewPCG32(uint64(n), k+b), NewPCG32(uint64(n), k+b)
				bt := NewBatch[uint32](n, b, false)
				q := NewQuantileCounts(uint64(n), k)
				var maxLoad uint32
				for done := uint64(0); done < m; done += 501 {
					maxLoad = BatchedQuantile(fast, &rf, min(501, m-done), q, nil, bt, maxLoad)
				}
				refBatched(slow, b, m, func(fr []uint32) uint32 {
					top, above, at := refBoundary(fr, k)
					i, j, x := rs.Bounded(uint32(n)), rs.Bounded(uint32(n)), rs.Bounded(uint32(at))
					if fr[i] > top || (fr[i] == top && uint64(x) < k-above) {
						return j
					}
					return i
				})
				if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
					t.Fatalf("n=%d k=%d b=%d: fast %v, slow %v", n, k, b, fast, slow)
				}
			}
		}
	}
}
