package kernels

import (
	"fmt"
	"slices"
	"testing"
)

// oldDelayedPacking is DelayedTwinning's packing before the runs
// (packing_runs.go): delayedSpans over the ring's slots by packingSpan,
// the general loop delayedTwinning. The tests run it beside the runs,
// chunk by chunk, and the benchmark against them.
func oldDelayedPacking[L Load](loads []L, r *PCG32, count uint64, st *MultiStep, dl *Delay[L], maxLoad L) L {
	general := func(c uint64, maxLoad L) L { return delayedTwinning(loads, r, c, st, true, dl, maxLoad) }
	past := dl.past[:len(loads)]
	n := uint32(len(loads))
	return delayedSpans(dl, count, maxLoad, func(ring []uint32, maxLoad L) (int, L) {
		k, s, owed, bin, samples, m := packingSpan(loads, past, n, ring, r.state, r.inc(), dl.t, st.Owed, uint32(st.Bin), 1, maxLoad)
		r.state, st.Owed, st.Bin = s, owed, uint64(bin)
		st.Samples += samples
		return k, m
	}, general)
}

// refStepStarts runs refWideTwinning's rule on a copy of r and returns,
// for each step, the balls placed before it, and the steps whose draw
// takes Lemire's slow path.
func refStepStarts(n int, r PCG32, count uint64, packing bool, tau uint64) (starts, slow []uint64) {
	h := newTimeline(n)
	n64 := uint64(n)
	for h.t < count {
		if uint32(uint64(pcgOutput(r.state))*n64) < uint32(n) {
			slow = append(slow, h.t)
		}
		starts = append(starts, h.t)
		i := r.Bounded(uint32(n))
		x, q := h.loadAt(i, tau), (h.t+n64-1)/n64
		add := uint64(1)
		if x < q {
			add = 2
			if packing {
				add = q + 1 - x
			}
		}
		for ; add > 0 && h.t < count; add-- {
			h.add(i)
		}
	}
	return starts, slow
}

// Packing (and Twinning, pk 0, on the same runs) with --tau T --delay
// fixed, the runs against the literal loop (refWideTwinning) and, call by
// call, against the ring's loop they replace (oldDelayedPacking: loads,
// state, step in progress and its bin, samples, maximum; the loads every
// 512th call at n = 10^6), the run cut at awkward
// points: at a step's start and one ball into it, before and after each
// draw on Lemire's slow path (n = 10^6), at the ring's wrap (multiples
// of τ and one ball either side), and in calls of 1 to min(2τ + 3, m/50)
// balls; and on 64-bit loads in one call.
func TestPackingRunsCutsMatchReference(t *testing.T) {
	cases := []struct {
		n   int
		tau uint64
		m   uint64
	}{
		{1_000_000, 1000, 300_000}, {1_000_000, 1, 200_000}, {1_000_000, 70_000, 300_000},
		{19, 40, 20_000}, {7, 3, 20_000}, {1000, 1000, 60_000}, {1, 5, 2000}, {4, 1 << 20, 5000},
	}
	for _, c := range cases {
		for _, pk := range []uint64{0, 1} {
			name := fmt.Sprintf("n=%d/tau=%d/pk=%d", c.n, c.tau, pk)
			seed := TrialStream(41, 0, LaneChoices)
			starts, slow := refStepStarts(c.n, seed, c.m, pk == 1, c.tau)
			if c.n >= 1e6 && len(slow) < 20 {
				t.Fatalf("%s: %d steps on Lemire's slow path; pick another seed", name, len(slow))
			}
			cuts := map[uint64]bool{}
			for _, u := range slow {
				cuts[u], cuts[u+1] = true, true
			}
			for k := 0; k < len(starts); k += 97 {
				cuts[starts[k]], cuts[starts[k]+1] = true, true
			}
			for u := c.tau; u < c.m; u += c.tau * max(1, 5000/c.tau) {
				cuts[u-1], cuts[u], cuts[u+1] = true, true, true
			}
			sizes := NewPCG32(uint64(c.n), c.tau)
			for u := uint64(0); u < c.m; u += 1 + uint64(sizes.Bounded(uint32(min(2*c.tau+3, c.m/50)))) {
				cuts[u] = true
			}
			points := []uint64{}
			for u := range cuts {
				if u > 0 && u < c.m {
					points = append(points, u)
				}
			}
			slices.Sort(points)
			points = append(points, c.m)

			a, b, ref := make([]uint32, c.n), make([]uint32, c.n), make([]uint32, c.n)
			ra, rb, rr := seed, seed, seed
			da := NewDelay[uint32](c.n, c.tau, DelayFixed, false, nil, c.m)
			db := NewDelay[uint32](c.n, c.tau, DelayFixed, false, nil, c.m)
			var sa, sb MultiStep
			var ma, mb uint32
			done := uint64(0)
			for j, u := range points {
				ma = delayedPacking(a, &ra, u-done, &sa, pk, da, ma)
				if pk == 1 {
					mb = oldDelayedPacking(b, &rb, u-done, &sb, db, mb)
				} else {
					mb = DelayedTwinning(b, &rb, u-done, &sb, false, db, mb)
				}
				done = u
				if (c.n <= 1000 || j%512 == 0) && !slices.Equal(a, b) || ra != rb || sa.Owed != sb.Owed || sa.Samples != sb.Samples || sa.Owed > 0 && sa.Bin != sb.Bin || ma != mb || da.t != db.t {
					t.Fatalf("%s: after %d balls the runs and the ring's loop differ: loads %v r %v st %+v %+v max %d %d t %d %d", name, u, slices.Equal(a, b), ra == rb, sa, sb, ma, mb, da.t, db.t)
				}
			}
			// 64-bit loads, in one call: the runs' balls are the same.
			wide, rw := make([]uint64, c.n), seed
			var sw MultiStep
			mw := delayedPacking(wide, &rw, c.m, &sw, pk, NewDelay[uint64](c.n, c.tau, DelayFixed, false, nil, c.m), 0)
			for i := range wide {
				if wide[i] != uint64(a[i]) || rw != ra || sw.Samples != sa.Samples || sw.Owed != sa.Owed || mw != uint64(ma) {
					t.Fatalf("%s: 64-bit loads differ at bin %d", name, i)
				}
			}
			want := refWideTwinning(ref, newTimeline(c.n), &rr, c.m, pk == 1, c.tau)
			if !slices.Equal(a, ref) || ra != rr || sa.Samples != want || ma != slices.Max(ref) {
				t.Fatalf("%s: the runs and the literal loop differ (%d samples, literal %d)", name, sa.Samples, want)
			}
			if len(points) < 50 {
				t.Fatalf("%s: %d cuts", name, len(points))
			}
		}
	}
}

// The runs against the ring's loop, in calls of 2^14 balls, n = τ = 10^4,
// for Packing and for Twinning (which the runs do not speed up: it stays
// on twinningSpan). Run the binary several times to interleave them.
//
//	go test -c -o /tmp/k.test ./kernels
//	for i in 1 2 3 4 5; do /tmp/k.test -test.run '^$' -test.bench PackingRuns -test.benchtime 0.3s; done
func BenchmarkPackingRuns(b *testing.B) {
	const n, tau = 10_000, 10_000
	for _, name := range []string{"old", "new", "twinning-old", "twinning-new"} {
		b.Run(name, func(b *testing.B) {
			loads := make([]uint32, n)
			r := TrialStream(1, 0, LaneChoices)
			dl := NewDelay[uint32](n, tau, DelayFixed, false, nil, uint64(b.N))
			var st MultiStep
			var maxLoad uint32
			for left := uint64(b.N); left > 0; {
				c := min(left, 1<<14)
				switch name {
				case "old":
					maxLoad = oldDelayedPacking(loads, &r, c, &st, dl, maxLoad)
				case "new":
					maxLoad = delayedPacking(loads, &r, c, &st, 1, dl, maxLoad)
				case "twinning-old":
					maxLoad = DelayedTwinning(loads, &r, c, &st, false, dl, maxLoad)
				case "twinning-new":
					maxLoad = delayedPacking(loads, &r, c, &st, 0, dl, maxLoad)
				}
				left -= c
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mballs/s")
		})
	}
}

// packingSpan (the loop before packing_runs.go; oldDelayedPacking runs it)
// is twinningSpan for Packing (pk 1; pk 0 runs Twinning, as
// the test does) placing its balls in loads itself, a step's balls in one
// add: a step of packing is often long, and one add a step, not one a
// ball after the span, took packing's span from 3.6 to 4.4 times its naive
// loop. Twinning keeps twinningSpan, which this costs 3–6% (its steps are
// 1 or 2 balls). Twinning (pk 0) and Packing (pk 1), DelayFixed, from the
// step in progress (owed balls to bin) at t balls placed: a step samples a
// bin and reads its load x τ balls old against q = ⌈t/n⌉; x < q adds 2
// balls (Twinning) or q + 1 − x (Packing), else 1. It returns, beside the
// balls placed and the state, the step in progress, the samples taken and
// the new maximum.
func packingSpan[L Load](loads, past []L, n uint32, ring []uint32, s, inc, t, owed uint64, bin uint32, pk uint64, maxLoad L) (int, uint64, uint64, uint32, uint64, L) {
	past = past[:n]
	loads = loads[:n]
	n64 := uint64(n)
	q := ceilDiv(t, n64)
	rem := int64(q*n64 - t) // balls placed before q grows: t > q·n ⇔ rem < 0
	samples := uint64(0)
	k := 0
	if owed > 0 && len(ring) > 0 { // the step in progress
		c := min(owed, uint64(len(ring)))
		v := loads[bin] + L(c)
		loads[bin] = v
		maxLoad = max(maxLoad, v)
		for ; owed > 0 && k < len(ring); owed-- {
			past[ring[k]]++
			ring[k] = bin
			k++
			if rem--; rem < 0 {
				q++
				rem += int64(n64)
			}
		}
	}
	// Whole steps while 4 slots remain.
	for owed == 0 && k+4 <= len(ring) {
		x := uint64(pcgOutput(s)) * n64
		if uint32(x) < n {
			return k, s, 0, bin, samples, maxLoad
		}
		s = s*pcgMul + inc
		samples++
		b := x >> 32
		v := uint64(past[b])
		lt := uint64(b2i(v < q))
		add := 1 + lt*(1+pk*(q-v-1)) // lt = 0 cancels the garbage of q − v − 1
		switch {
		case add <= 4:
			// Without a branch on the step's size (the old load decides
			// it: a coin flip for the predictor): 4 slots, those past
			// the step's balls rewritten with the bins they hold,
			// retiring nothing.
			r := ring[k : k+4 : k+4]
			o1, o2, o3 := uint64(r[1]), uint64(r[2]), uint64(r[3])
			m1, m2, m3 := ltMask(1, add), ltMask(2, add), ltMask(3, add)
			past[r[0]]++
			past[o1] += L(m1 & 1)
			past[o2] += L(m2 & 1)
			past[o3] += L(m3 & 1)
			r[0] = uint32(b)
			r[1], r[2], r[3] = uint32(pickMask(m1, o1, b)), uint32(pickMask(m2, o2, b)), uint32(pickMask(m3, o3, b))
		case k+int(add) <= len(ring): // Packing's bins far below the average
			r := ring[k : k+int(add)]
			for j, u := range r {
				past[u]++
				r[j] = uint32(b)
			}
		default: // past the ring's end: ball by ball below
			bin, owed = uint32(b), add
			continue
		}
		w := loads[b] + L(add)
		loads[b] = w
		maxLoad = max(maxLoad, w)
		k += int(add)
		for rem -= int64(add); rem < 0; rem += int64(n64) {
			q++
		}
	}
	for k < len(ring) { // the ring's last slots, ball by ball
		if owed == 0 {
			x := uint64(pcgOutput(s)) * n64
			if uint32(x) < n {
				break
			}
			s = s*pcgMul + inc
			samples++
			bin = uint32(x >> 32)
			v := uint64(past[bin])
			lt := uint64(b2i(v < q))
			owed = 1 + lt*(1+pk*(q-v-1))
		}
		owed--
		w := loads[bin] + 1
		loads[bin] = w
		maxLoad = max(maxLoad, w)
		past[ring[k]]++
		ring[k] = bin
		k++
		if rem--; rem < 0 {
			q++
			rem += int64(n64)
		}
	}
	return k, s, owed, bin, samples, maxLoad
}
