package kernels

import (
	"slices"
	"testing"
)

// refTwinning is Twinning and Packing written from their definitions (Los,
// Sauerwald and Sylvester, SODA 2022): W balls placed, a step samples a bin
// i; x_i < W/n (as x_i·n < W) adds 2 balls (twinning) or raises x_i to
// ⌈W/n⌉ + 1 (packing); else 1 ball. The step's balls are a list, and the
// run stops after m balls, mid-step if it must. It returns the samples.
func refTwinning[L Load](loads []L, r *PCG32, m uint64, packing bool) uint64 {
	n := uint64(len(loads))
	w, samples := uint64(0), uint64(0)
	for w < m {
		i := r.Bounded(uint32(n))
		samples++
		add := uint64(1)
		if x := uint64(loads[i]); x*n < w {
			add = 2
			if packing {
				add = (w+n-1)/n + 1 - x
			}
		}
		for range add {
			if w == m {
				break
			}
			loads[i]++
			w++
		}
	}
	return samples
}

// The fast loops against the literal one, ball for ball: same loads, same
// stream state, same samples, for chunks that cut steps (1, 2, 3, 13
// balls: owed balls across calls), 32- and 64-bit loads, n = 1 (every step
// sees the bin at the average) to 50.
func TestTwinningPackingMatchReference(t *testing.T) {
	for _, packing := range []bool{false, true} {
		for _, n := range []int{1, 2, 3, 7, 50} {
			for _, chunk := range []uint64{1, 2, 3, 13, 1 << 20} {
				for _, m := range []uint64{1, 2, 37, 5000} {
					fast, slow := make([]uint32, n), make([]uint32, n)
					rf, rs := NewPCG32(uint64(n)*11+chunk, m), NewPCG32(uint64(n)*11+chunk, m)
					var st MultiStep
					var maxLoad uint32
					for done := uint64(0); done < m; done += min(chunk, m-done) {
						c := min(chunk, m-done)
						if packing {
							maxLoad = Packing(fast, &rf, done, c, &st, maxLoad)
						} else {
							maxLoad = Twinning(fast, &rf, done, c, &st, maxLoad)
						}
					}
					samples := refTwinning(slow, &rs, m, packing)
					if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) || st.Samples != samples {
						t.Fatalf("packing=%v n=%d chunk=%d m=%d: fast %v (%d samples), slow %v (%d)", packing, n, chunk, m, fast, st.Samples, slow, samples)
					}
				}
			}
		}
		fast, slow := make([]uint64, 10), make([]uint64, 10)
		rf, rs := NewPCG32(5, 6), NewPCG32(5, 6)
		var st MultiStep
		if packing {
			Packing(fast, &rf, 0, 20000, &st, 0)
		} else {
			Twinning(fast, &rf, 0, 20000, &st, 0)
		}
		refTwinning(slow, &rs, 20000, packing)
		if !slices.Equal(fast, slow) || rf != rs {
			t.Fatalf("packing=%v, 64-bit loads: fast %v, slow %v", packing, fast, slow)
		}
	}
}

// A slightly wrong rule fails the comparison: "at or below the average"
// (x·n ≤ W) instead of below it.
func TestTwinningReferenceSeesTheStrictRule(t *testing.T) {
	fast, slow := make([]uint32, 4), make([]uint32, 4)
	rf, rs := NewPCG32(9, 9), NewPCG32(9, 9)
	var st MultiStep
	Twinning(fast, &rf, 0, 200, &st, 0)
	n, w := uint64(4), uint64(0)
	for w < 200 {
		i := rs.Bounded(4)
		add := uint64(1)
		if uint64(slow[i])*n <= w {
			add = 2
		}
		add = min(add, 200-w)
		slow[i] += uint32(add)
		w += add
	}
	if slices.Equal(fast, slow) {
		t.Fatalf("twinning equals its ≤ variant: %v", fast)
	}
}
