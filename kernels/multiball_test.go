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

// refKDChoice is (k,d)-choice written from its definition: d bins drawn
// with replacement, the slots sorted stably by load (ties by position), one
// ball on each of the first k, the run stopping after m balls.
func refKDChoice[L Load](loads []L, r *PCG32, m uint64, k, d int) uint64 {
	n := uint32(len(loads))
	w, samples := uint64(0), uint64(0)
	for w < m {
		slots := make([]uint32, d)
		for j := range slots {
			slots[j] = r.Bounded(n)
		}
		samples += uint64(d)
		slices.SortStableFunc(slots, func(a, b uint32) int {
			switch {
			case loads[a] < loads[b]:
				return -1
			case loads[a] > loads[b]:
				return 1
			}
			return 0
		})
		for _, b := range slots[:k] {
			if w == m {
				break
			}
			loads[b]++
			w++
		}
	}
	return samples
}

// KDChoice against the literal loop, ball for ball, for k from 1 to d (both
// orderings: counted places, d ≤ 12, and insertion; d past the block of
// drawn-ahead samples), chunks that cut steps, 32- and 64-bit loads; and
// with k = 1 against DChoice itself, staged and interleaved.
func TestKDChoiceMatchesReference(t *testing.T) { withStaging(t, testKDChoice) }

func testKDChoice(t *testing.T) {
	for _, n := range []int{1, 2, 5, 50} {
		for _, kd := range [][2]int{{1, 1}, {1, 2}, {1, 3}, {2, 2}, {2, 3}, {3, 5}, {2, 7}, {5, 5}, {12, 12}, {1, 13}, {3, 13}, {13, 13}, {6, 20}, {2, 300}} {
			k, d := kd[0], kd[1]
			for _, chunk := range []uint64{1, 2, 3, 13, 1 << 20} {
				for _, m := range []uint64{1, 4, 37, 3000} {
					fast, slow := make([]uint32, n), make([]uint32, n)
					rf, rs := NewPCG32(uint64(n*100+k*10+d), chunk), NewPCG32(uint64(n*100+k*10+d), chunk)
					st := NewKDState(k, d)
					var maxLoad uint32
					for done := uint64(0); done < m; done += min(chunk, m-done) {
						maxLoad = KDChoice(fast, &rf, min(chunk, m-done), st, maxLoad)
					}
					samples := refKDChoice(slow, &rs, m, k, d)
					if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) || st.Samples != samples {
						t.Fatalf("n=%d k=%d d=%d chunk=%d m=%d: fast %v (%d samples), slow %v (%d)", n, k, d, chunk, m, fast, st.Samples, slow, samples)
					}
				}
			}
		}
	}
	fast, slow := make([]uint64, 10), make([]uint64, 10)
	rf, rs := NewPCG32(5, 6), NewPCG32(5, 6)
	KDChoice(fast, &rf, 20000, NewKDState(2, 3), 0)
	refKDChoice(slow, &rs, 20000, 2, 3)
	if !slices.Equal(fast, slow) || rf != rs {
		t.Fatalf("64-bit loads: fast %v, slow %v", fast, slow)
	}
	for _, d := range []int{1, 2, 3, 8, 16} {
		kd, dc := make([]uint32, 30), make([]uint32, 30)
		rk, rd := NewPCG32(uint64(d), 1), NewPCG32(uint64(d), 1)
		KDChoice(kd, &rk, 50000, NewKDState(1, d), 0)
		DChoice(dc, &rd, 50000, d, 0)
		if !slices.Equal(kd, dc) || rk != rd {
			t.Fatalf("k = 1, d = %d: kd-choice %v, d-choice %v", d, kd, dc)
		}
	}
}

// The comparison sees a wrong tie rule: the last least loaded slot kept on
// a tie instead of the first.
func TestKDChoiceReferenceSeesTies(t *testing.T) {
	fast, slow := make([]uint32, 5), make([]uint32, 5)
	rf, rs := NewPCG32(3, 3), NewPCG32(3, 3)
	st := NewKDState(1, 3)
	for range 50 {
		KDChoice(fast, &rf, 1, st, 0)
		best := rs.Bounded(5)
		for range 2 {
			if j := rs.Bounded(5); slow[j] <= slow[best] {
				best = j
			}
		}
		slow[best]++
		if !slices.Equal(fast, slow) {
			return
		}
	}
	t.Fatalf("kd-choice equals its last-on-ties variant for 50 balls: %v", fast)
}
