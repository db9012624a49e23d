package kernels

import (
	"slices"
	"testing"
)

// refDelayedSteps is refDelayedFixed for rules that place a step of
// several balls: rule reads the loads τ balls ago (t − min(t, τ) balls)
// and t when no ball is owed, and returns the step's bins in order; every
// ball enters the record one by one.
func refDelayedSteps(n int, tau, count uint64, rule func(old []uint32, t uint64) []uint32) []uint32 {
	loads := make([]uint32, n)
	var hist, owed []uint32
	for t := uint64(0); t < count; t++ {
		if len(owed) == 0 {
			old := make([]uint32, n)
			for _, b := range hist[:t-min(t, tau)] {
				old[b]++
			}
			owed = rule(old, t)
		}
		i := owed[0]
		owed = owed[1:]
		hist = append(hist, i)
		loads[i]++
	}
	return loads
}

// chunks are the call sizes the fast loops are cut into: steps cross them.
var tau2Chunks = []uint64{1, 2, 7, 1, 300, 3, 1000}

// Threshold and Adaptive with --tau T --delay fixed against the literal
// rule: probes until one's load τ balls old is below the limit, probes
// counted.
func TestDelayedRetryMatchesReference(t *testing.T) {
	const m = 1500
	for _, n := range []int{1, 4, 19} {
		for _, tau := range []uint64{1, 3, 40, 5000} {
			for _, adaptive := range []bool{false, true} {
				limit := func(t uint64) uint64 {
					if adaptive {
						return t/uint64(n) + 2
					}
					return ceilDiv(m, uint64(n)) + 1
				}
				fast := make([]uint32, n)
				rf, rs := NewPCG32(uint64(n), tau), NewPCG32(uint64(n), tau)
				dl := NewDelay[uint32](n, tau, DelayFixed, false, nil, m)
				var pr Probes
				var maxLoad uint32
				for tt := range uint64(m) { // one ball a call: adaptive's limit moves
					maxLoad = DelayedRetry(fast, &rf, 1, limit(tt), &pr, dl, maxLoad)
				}
				var ps Probes
				slow := refDelayedFixed(n, tau, m, func(old []uint32, t uint64) uint32 {
					p := uint64(1)
					i := rs.Bounded(uint32(n))
					for uint64(old[i]) >= limit(t) {
						i = rs.Bounded(uint32(n))
						p++
					}
					ps.Total += p
					ps.Max = max(ps.Max, p)
					return i
				})
				if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) || pr != ps {
					t.Fatalf("n=%d τ=%d adaptive=%v: fast %v %v, slow %v %v", n, tau, adaptive, fast, pr, slow, ps)
				}
				if adaptive {
					continue
				}
				// threshold's fixed limit in chunks
				chunked := make([]uint32, n)
				rc := NewPCG32(uint64(n), tau)
				dc := NewDelay[uint32](n, tau, DelayFixed, false, nil, m)
				var pc Probes
				left := uint64(m)
				for k := 0; left > 0; k++ {
					c := min(left, tau2Chunks[k%len(tau2Chunks)])
					DelayedRetry(chunked, &rc, c, limit(0), &pc, dc, 0)
					left -= c
				}
				if !slices.Equal(chunked, slow) || rc != rs || pc != ps {
					t.Fatalf("n=%d τ=%d chunked: %v, slow %v", n, tau, chunked, slow)
				}
			}
		}
	}
}

// Twinning and Packing with --tau T --delay fixed against the literal
// rule, in chunks that cut steps: the sampled bin's load x τ balls old
// against the current average t/n; packing adds ⌈t/n⌉ + 1 − x balls.
func TestDelayedTwinningMatchesReference(t *testing.T) {
	const m = 1500
	for _, n := range []int{1, 4, 19} {
		for _, tau := range []uint64{1, 3, 40, 5000} {
			for _, packing := range []bool{false, true} {
				fast := make([]uint32, n)
				rf, rs := NewPCG32(uint64(n), tau+1), NewPCG32(uint64(n), tau+1)
				dl := NewDelay[uint32](n, tau, DelayFixed, false, nil, m)
				var st MultiStep
				var maxLoad uint32
				left := uint64(m)
				for k := 0; left > 0; k++ {
					c := min(left, tau2Chunks[k%len(tau2Chunks)])
					maxLoad = DelayedTwinning(fast, &rf, c, &st, packing, dl, maxLoad)
					left -= c
				}
				steps := uint64(0)
				slow := refDelayedSteps(n, tau, m, func(old []uint32, t uint64) []uint32 {
					i := rs.Bounded(uint32(n))
					steps++
					a := 1
					if x := uint64(old[i]); x*uint64(n) < t {
						a = 2
						if packing {
							a = int((t+uint64(n)-1)/uint64(n) + 1 - x)
						}
					}
					return slices.Repeat([]uint32{i}, a)
				})
				if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) || st.Samples != steps {
					t.Fatalf("n=%d τ=%d packing=%v: fast %v (%d samples), slow %v (%d)", n, tau, packing, fast, st.Samples, slow, steps)
				}
			}
		}
	}
}

// (k,d)-choice with --tau T --delay fixed against the literal rule, in
// chunks that cut steps: the d slots ranked stably by their loads τ balls
// ago, one ball on each of the k first; d above kdRanked keeps them by
// insertion.
func TestDelayedKDChoiceMatchesReference(t *testing.T) {
	const m = 1500
	for _, n := range []int{1, 4, 19} {
		for _, tau := range []uint64{1, 3, 40, 5000} {
			for _, kd := range [][2]int{{1, 2}, {2, 3}, {3, 5}, {4, 4}, {3, 14}} {
				k, d := kd[0], kd[1]
				fast := make([]uint32, n)
				rf, rs := NewPCG32(uint64(n), tau+2), NewPCG32(uint64(n), tau+2)
				dl := NewDelay[uint32](n, tau, DelayFixed, false, nil, m)
				st := NewKDState(k, d)
				var maxLoad uint32
				left := uint64(m)
				for c := 0; left > 0; c++ {
					x := min(left, tau2Chunks[c%len(tau2Chunks)])
					maxLoad = DelayedKDChoice(fast, &rf, x, st, dl, maxLoad)
					left -= x
				}
				steps := uint64(0)
				slow := refDelayedSteps(n, tau, m, func(old []uint32, _ uint64) []uint32 {
					slots := make([]uint32, d)
					for j := range slots {
						slots[j] = rs.Bounded(uint32(n))
					}
					steps++
					slices.SortStableFunc(slots, func(a, b uint32) int { return int(old[a]) - int(old[b]) })
					return slots[:k]
				})
				if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) || st.Samples != steps*uint64(d) {
					t.Fatalf("n=%d τ=%d k=%d d=%d: fast %v, slow %v", n, tau, k, d, fast, slow)
				}
			}
		}
	}
}
