package kernels

import (
	"slices"
	"testing"
)

// refBatchedSteps runs a rule of steps in the b-Batch setting literally:
// ball by ball, the frozen loads are a copy taken where a batch starts
// (t % b == 0); when no ball of a step is owed, the next step is decided
// by step on the frozen copy and w0 + t₀ (t₀ the balls placed at the
// batch's start) and returns its bins, one per ball, in order; a run stops
// at count balls, mid-step if it must.
func refBatchedSteps(loads []uint32, b, w0, count uint64, step func(frozen []uint32, t0 uint64) []uint32) {
	frozen := slices.Clone(loads)
	var owed []uint32
	for t := uint64(0); t < count; t++ {
		if t%b == 0 {
			copy(frozen, loads)
		}
		if len(owed) == 0 {
			owed = step(frozen, w0+t-t%b)
		}
		loads[owed[0]]++
		owed = owed[1:]
	}
}

// segments calls run for count balls in pieces that stop mid-batch (at
// most 777 balls) but never cross a batch end, t0 the balls placed at the
// piece's batch start, as core's steppers call the kernels.
func segments(b, count uint64, run func(t0, c uint64)) {
	for t := uint64(0); t < count; {
		c := min(777, count-t, b-t%b)
		run(t-t%b, c)
		t += c
	}
}

func startLoads(n int) []uint32 {
	x := make([]uint32, n)
	for i := range x {
		x[i] = uint32(i*7%5) + uint32(i%3)
	}
	return x
}

func sumLoads(x []uint32) uint64 {
	s := uint64(0)
	for _, v := range x {
		s += uint64(v)
	}
	return s
}

// The batched loops against the literal batched rules, ball for ball and
// draw for draw, from an unequal start, for batches smaller and larger
// than n, in calls that stop mid-batch.
func TestBatchedAnyMatchesReference(t *testing.T) {
	const m = 3000
	for _, n := range []int{1, 3, 17, 64} {
		for _, b := range []uint64{1, 2, 3, 50, 1000} {
			init := startLoads(n)
			w0 := sumLoads(init)
			check := func(name string, fast, slow []uint32, rf, rs PCG32, maxLoad uint32) {
				t.Helper()
				if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
					t.Fatalf("%s n=%d b=%d: fast %v, slow %v (max %d)", name, n, b, fast, slow, maxLoad)
				}
			}
			// K-Thinning with limits ⌈(w0 + t0)/n + θj⌉ (θ integer here).
			thetas := []uint64{0, 1, 3}
			limits := func(t0 uint64) []uint64 {
				l := make([]uint64, len(thetas))
				for j, th := range thetas {
					l[j] = ceilDiv(w0+t0, uint64(n)) + th
				}
				return l
			}
			{
				fast, slow := slices.Clone(init), slices.Clone(init)
				rf, rs := NewPCG32(uint64(n), b), NewPCG32(uint64(n), b)
				bt := NewBatch[uint32](n, b, false)
				bt.Start(fast)
				maxLoad := slices.Max(fast)
				segments(b, m, func(t0, c uint64) { maxLoad = BatchedKThinning(fast, &rf, c, limits(t0), bt, maxLoad) })
				refBatchedSteps(slow, b, w0, m, func(fr []uint32, t0 uint64) []uint32 {
					i := rs.Bounded(uint32(n))
					for _, lim := range limits(t0 - w0) {
						if uint64(fr[i]) < lim {
							break
						}
						i = rs.Bounded(uint32(n))
					}
					return []uint32{i}
				})
				check("k-thinning", fast, slow, rf, rs, maxLoad)
				ends, _ := bt.BatchEnds(n)
				if ends != m/b {
					t.Fatalf("k-thinning n=%d b=%d: %d batch ends, want %d", n, b, ends, m/b)
				}
			}
			// K-Thinning, quantile tests: k[j] heaviest positions.
			{
				ks := []uint64{uint64(n), uint64(max(1, n/2)), 1}
				fast, slow := slices.Clone(init), slices.Clone(init)
				rf, rs := NewPCG32(uint64(n)+1, b), NewPCG32(uint64(n)+1, b)
				bt := NewBatch[uint32](n, b, false)
				bt.Start(fast)
				kb := NewKThinningBatched(uint64(n), ks)
				StartKThinningBatched(kb, fast)
				maxLoad := slices.Max(fast)
				segments(b, m, func(_, c uint64) { maxLoad = BatchedKThinningQuantile(fast, &rf, c, kb, bt, maxLoad) })
				refBatchedSteps(slow, b, w0, m, func(fr []uint32, _ uint64) []uint32 {
					sorted := slices.Clone(fr)
					slices.Sort(sorted)
					i := rs.Bounded(uint32(n))
					for _, k := range ks {
						if fr[i] <= sorted[n-int(k)] {
							break
						}
						i = rs.Bounded(uint32(n))
					}
					return []uint32{i}
				})
				check("k-thinning quantile", fast, slow, rf, rs, maxLoad)
			}
			// Threshold (a fixed limit) and Adaptive (⌊(w0 + t0)/n⌋ + 2).
			for _, adaptive := range []bool{false, true} {
				limit := func(t0 uint64) uint64 {
					if adaptive {
						return (w0+t0)/uint64(n) + 2
					}
					return ceilDiv(w0+m, uint64(n)) + 1
				}
				fast, slow := slices.Clone(init), slices.Clone(init)
				rf, rs := NewPCG32(uint64(n)+2, b), NewPCG32(uint64(n)+2, b)
				bt := NewBatch[uint32](n, b, false)
				bt.Start(fast)
				var pf, ps Probes
				maxLoad := slices.Max(fast)
				segments(b, m, func(t0, c uint64) { maxLoad = BatchedRetry(fast, &rf, c, limit(t0), &pf, bt, maxLoad) })
				refBatchedSteps(slow, b, w0, m, func(fr []uint32, t0 uint64) []uint32 {
					p := uint64(1)
					i := rs.Bounded(uint32(n))
					for uint64(fr[i]) >= limit(t0-w0) {
						i = rs.Bounded(uint32(n))
						p++
					}
					ps.Total += p
					ps.Max = max(ps.Max, p)
					return []uint32{i}
				})
				check("retry", fast, slow, rf, rs, maxLoad)
				if pf != ps {
					t.Fatalf("retry n=%d b=%d adaptive=%v: probes %v, want %v", n, b, adaptive, pf, ps)
				}
			}
			// Twinning and Packing against the batch-start average.
			for _, packing := range []bool{false, true} {
				fast, slow := slices.Clone(init), slices.Clone(init)
				rf, rs := NewPCG32(uint64(n)+3, b), NewPCG32(uint64(n)+3, b)
				bt := NewBatch[uint32](n, b, false)
				bt.Start(fast)
				var st MultiStep
				maxLoad := slices.Max(fast)
				segments(b, m, func(t0, c uint64) {
					maxLoad = BatchedTwinning(fast, &rf, w0+t0, c, &st, packing, bt, maxLoad)
				})
				samples := uint64(0)
				refBatchedSteps(slow, b, w0, m, func(fr []uint32, t0 uint64) []uint32 {
					i := rs.Bounded(uint32(n))
					samples++
					q := ceilDiv(t0, uint64(n))
					a := uint64(1)
					if x := uint64(fr[i]); x < q {
						a = 2
						if packing {
							a = q + 1 - x
						}
					}
					return slices.Repeat([]uint32{i}, int(a))
				})
				check("twinning/packing", fast, slow, rf, rs, maxLoad)
				if st.Samples != samples {
					t.Fatalf("twinning n=%d b=%d: %d samples, want %d", n, b, st.Samples, samples)
				}
			}
			// (k,d)-choice: the k least of d slots by frozen load, stable.
			for _, kd := range [][2]int{{1, 1}, {2, 3}, {3, 5}, {4, 16}} {
				k, d := kd[0], kd[1]
				fast, slow := slices.Clone(init), slices.Clone(init)
				rf, rs := NewPCG32(uint64(n)+4, b), NewPCG32(uint64(n)+4, b)
				bt := NewBatch[uint32](n, b, false)
				bt.Start(fast)
				st := NewKDState(k, d)
				maxLoad := slices.Max(fast)
				segments(b, m, func(_, c uint64) { maxLoad = BatchedKDChoice(fast, &rf, c, st, bt, maxLoad) })
				refBatchedSteps(slow, b, w0, m, func(fr []uint32, _ uint64) []uint32 {
					slots := make([]uint32, d)
					for j := range slots {
						slots[j] = rs.Bounded(uint32(n))
					}
					slices.SortStableFunc(slots, func(x, y uint32) int { return int(fr[x]) - int(fr[y]) })
					return slots[:k]
				})
				check("kd-choice", fast, slow, rf, rs, maxLoad)
			}
		}
	}
}

// At b = 1 each batched loop is its process's own loop, draw for draw and
// ball for ball, in calls of any length (the unbatched loops' own chunks).
func TestBatchedAnyOneIsTheProcess(t *testing.T) {
	const m = 4000
	for _, n := range []int{1, 5, 64} {
		init := startLoads(n)
		w0 := sumLoads(init)
		same := func(name string, fast, slow []uint32, rf, rs PCG32, mf, ms uint32) {
			t.Helper()
			if !slices.Equal(fast, slow) || rf != rs || mf != ms {
				t.Fatalf("%s n=%d: batched b=1 %v, process %v", name, n, fast, slow)
			}
		}
		// K-Thinning: limits for each ball; the process's loop per ball.
		{
			lim := func(t uint64) []uint64 { return []uint64{ceilDiv(w0+t, uint64(n)), ceilDiv(w0+t, uint64(n)) + 2} }
			a, c := slices.Clone(init), slices.Clone(init)
			ra, rc := NewPCG32(9, 1), NewPCG32(9, 1)
			bt := NewBatch[uint32](n, 1, false)
			bt.Start(a)
			ma, mc := slices.Max(a), slices.Max(c)
			for t := range uint64(m) {
				ma = BatchedKThinning(a, &ra, 1, lim(t), bt, ma)
				mc = KThinning(c, &rc, 1, lim(t), mc)
			}
			same("k-thinning", a, c, ra, rc, ma, mc)
		}
		{
			ks := []uint64{uint64(n), 1}
			a, c := slices.Clone(init), slices.Clone(init)
			ra, rc := NewPCG32(10, 1), NewPCG32(10, 1)
			bt := NewBatch[uint32](n, 1, false)
			bt.Start(a)
			kb := NewKThinningBatched(uint64(n), ks)
			StartKThinningBatched(kb, a)
			qc := NewKThinningCounts(uint64(n), ks)
			StartKThinning(qc, c)
			ma := BatchedKThinningQuantile(a, &ra, m, kb, bt, slices.Max(a))
			mc := KThinningQuantile(c, &rc, m, qc, slices.Max(c))
			same("k-thinning quantile", a, c, ra, rc, ma, mc)
		}
		for _, packing := range []bool{false, true} {
			a, c := slices.Clone(init), slices.Clone(init)
			ra, rc := NewPCG32(11, 1), NewPCG32(11, 1)
			bt := NewBatch[uint32](n, 1, false)
			bt.Start(a)
			var sa, sc MultiStep
			ma, mc := slices.Max(a), slices.Max(c)
			for t := range uint64(m) {
				ma = BatchedTwinning(a, &ra, w0+t, 1, &sa, packing, bt, ma)
			}
			if packing {
				mc = Packing(c, &rc, w0, m, &sc, mc)
			} else {
				mc = Twinning(c, &rc, w0, m, &sc, mc)
			}
			same("twinning/packing", a, c, ra, rc, ma, mc)
			if sa.Samples != sc.Samples {
				t.Fatalf("twinning n=%d: samples %d, want %d", n, sa.Samples, sc.Samples)
			}
		}
		for _, adaptive := range []bool{false, true} {
			a, c := slices.Clone(init), slices.Clone(init)
			ra, rc := NewPCG32(12, 1), NewPCG32(12, 1)
			bt := NewBatch[uint32](n, 1, false)
			bt.Start(a)
			var pa, pc Probes
			ma, mc := slices.Max(a), slices.Max(c)
			for t := range uint64(m) {
				limit := ceilDiv(w0+m, uint64(n)) + 1
				if adaptive {
					limit = (w0+t)/uint64(n) + 2
				}
				ma = BatchedRetry(a, &ra, 1, limit, &pa, bt, ma)
				mc = Retry(c, &rc, 1, limit, &pc, mc)
			}
			same("retry", a, c, ra, rc, ma, mc)
			if pa != pc {
				t.Fatalf("retry n=%d: probes %v, want %v", n, pa, pc)
			}
		}
		for _, kd := range [][2]int{{2, 3}, {3, 14}} {
			if kd[1] > n {
				continue
			}
			a, c := slices.Clone(init), slices.Clone(init)
			ra, rc := NewPCG32(13, 1), NewPCG32(13, 1)
			bt := NewBatch[uint32](n, 1, false)
			bt.Start(a)
			sa, sc := NewKDState(kd[0], kd[1]), NewKDState(kd[0], kd[1])
			ma := BatchedKDChoice(a, &ra, m, sa, bt, slices.Max(a))
			mc := KDChoice(c, &rc, m, sc, slices.Max(c))
			same("kd-choice", a, c, ra, rc, ma, mc)
			if sa.Samples != sc.Samples {
				t.Fatalf("kd-choice n=%d: samples %d, want %d", n, sa.Samples, sc.Samples)
			}
		}
	}
}

// With one limit BatchedKThinning is BatchedTwoThinning, draw for draw.
func TestBatchedKThinningOneLimitIsTwoThinning(t *testing.T) {
	for _, b := range []uint64{1, 7, 100} {
		a, c := make([]uint32, 20), make([]uint32, 20)
		ra, rc := NewPCG32(3, b), NewPCG32(3, b)
		ba, bc := NewBatch[uint32](20, b, false), NewBatch[uint32](20, b, false)
		var ma, mc uint32
		segments(b, 5000, func(t0, k uint64) {
			lim := ceilDiv(t0, 20) + 1
			ma = BatchedKThinning(a, &ra, k, []uint64{lim}, ba, ma)
			mc = BatchedTwoThinning(c, &rc, k, lim, bc, mc)
		})
		if !slices.Equal(a, c) || ra != rc || ma != mc {
			t.Fatalf("b=%d: %v, want %v", b, a, c)
		}
	}
}

// refDelayedFixed runs a single-ball rule with every read τ balls old,
// literally: the loads after max(0, t − τ) balls, rebuilt from the history.
func refDelayedFixed(n int, tau, count uint64, rule func(old []uint32, t uint64) uint32) []uint32 {
	loads := make([]uint32, n)
	var hist []uint32
	for t := uint64(0); t < count; t++ {
		old := make([]uint32, n)
		for _, b := range hist[:t-min(t, tau)] {
			old[b]++
		}
		i := rule(old, t)
		hist = append(hist, i)
		loads[i]++
	}
	return loads
}

// K-Thinning with --tau T --delay fixed, limits and quantile tests,
// against the literal rule; with one limit it is DelayedTwoThinning.
func TestDelayedKThinningMatchesReference(t *testing.T) {
	const m = 1500
	for _, n := range []int{1, 4, 19} {
		for _, tau := range []uint64{1, 3, 40, 5000} {
			limits := func(t uint64) []uint64 {
				return []uint64{ceilDiv(t, uint64(n)), ceilDiv(t, uint64(n)) + 1, ceilDiv(t, uint64(n))}
			}
			fast := make([]uint32, n)
			rf, rs := NewPCG32(uint64(n), tau), NewPCG32(uint64(n), tau)
			dl := NewDelay[uint32](n, tau, DelayFixed, false, nil, m)
			var maxLoad uint32
			for t := range uint64(m) { // one ball a call: the limits change at every ball here
				maxLoad = DelayedKThinning(fast, &rf, 1, limits(t), dl, maxLoad)
			}
			slow := refDelayedFixed(n, tau, m, func(old []uint32, t uint64) uint32 {
				i := rs.Bounded(uint32(n))
				for _, lim := range limits(t) {
					if uint64(old[i]) < lim {
						break
					}
					i = rs.Bounded(uint32(n))
				}
				return i
			})
			if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
				t.Fatalf("limits n=%d τ=%d: fast %v, slow %v", n, tau, fast, slow)
			}

			ks := []uint64{uint64(n), uint64(max(1, n/2)), 1}
			fast = make([]uint32, n)
			rf, rs = NewPCG32(uint64(n)+1, tau), NewPCG32(uint64(n)+1, tau)
			dl = NewDelay[uint32](n, tau, DelayFixed, false, nil, m)
			q := NewKThinningCounts(uint64(n), ks)
			maxLoad = DelayedKThinningQuantile(fast, &rf, m/3, q, dl, 0)
			maxLoad = DelayedKThinningQuantile(fast, &rf, m-m/3, q, dl, maxLoad)
			slow = refDelayedFixed(n, tau, m, func(old []uint32, _ uint64) uint32 {
				sorted := slices.Clone(old)
				slices.Sort(sorted)
				i := rs.Bounded(uint32(n))
				for _, k := range ks {
					if old[i] <= sorted[n-int(k)] {
						break
					}
					i = rs.Bounded(uint32(n))
				}
				return i
			})
			if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
				t.Fatalf("quantile n=%d τ=%d: fast %v, slow %v", n, tau, fast, slow)
			}

			a, c := make([]uint32, n), make([]uint32, n)
			ra, rc := NewPCG32(7, tau), NewPCG32(7, tau)
			da := NewDelay[uint32](n, tau, DelayFixed, false, nil, m)
			dc := NewDelay[uint32](n, tau, DelayFixed, false, nil, m)
			noise := NewPCG32(0, 0)
			for t := range uint64(m) {
				lim := ceilDiv(t, uint64(n)) + 1
				DelayedKThinning(a, &ra, 1, []uint64{lim}, da, 0)
				DelayedTwoThinning(c, &rc, &noise, 1, lim, dc, nil, 0)
			}
			if !slices.Equal(a, c) || ra != rc {
				t.Fatalf("n=%d τ=%d: one limit %v, two-thinning %v", n, tau, a, c)
			}
		}
	}
}
