package kernels

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// walkTauDelay is tauDelay as it was before the arrivals record, line for
// line (uniform and empirical reads walking their bin's chain one ball at
// a time, literalRecent; past for the fixed modes, unused here): the
// baseline of BenchmarkTauDelayUniform.
func walkTauDelay(loads []uint32, r, noise *PCG32, count uint64, d *literalDelay, past []uint32, maxLoad uint32) uint32 {
	s, inc := r.state, r.inc()
	ns, ninc := noise.state, noise.inc()
	n := uint32(len(loads))
	tau, t := d.tau, d.t
	var idx [2 * stageBalls]uint32
	var ages [2 * stageBalls]uint32
	slot := t % tau
	for count > 0 {
		b := int(min(count, stageBalls))
		s = fillBounded(idx[:2*b], s, inc, n)
		switch d.mode {
		case DelayUniform:
			ns = fillBounded(ages[:2*b], ns, ninc, uint32(tau+1))
		case DelayEmpirical:
			ns = d.ages.fill(ages[:2*b], ns, ninc)
		}
		for k := range b {
			i, j := idx[2*k], idx[2*k+1]
			li, lj := loads[i], loads[j]
			var ri, rj uint32 // the loads as read
			switch d.mode {
			case DelayFixed:
				ri, rj = past[i], past[j]
			case DelayAdversarial:
				pi, pj := past[i], past[j]
				ri, rj = choose(b2u(lj < li), li, pi), choose(b2u(li < lj), lj, pj)
			case DelayUniform, DelayEmpirical:
				ri = li - uint32(literalRecent(d.last, d.prev, tau, t, i, ages[2*k]))
				rj = lj - uint32(literalRecent(d.last, d.prev, tau, t, j, ages[2*k+1]))
			}
			c := b2u(rj < ri)
			i, li = choose(c, i, j), choose(c, li, lj)
			li++
			loads[i] = li
			maxLoad = max(maxLoad, li)
			if d.prev != nil {
				d.prev[slot] = d.last[i]
				d.last[i] = int64(t)
			}
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		count -= uint64(b)
	}
	d.t = t
	r.state, noise.state = s, ns
	return maxLoad
}

// warmDelay places τ balls by two-choice (fresh loads: no delayed read, so
// the O(τ) warm-up costs the walk no more than the record) into both
// states, so that a benchmark starts from a full window; ratio is
// walkRatio for the record (which of the two it keeps).
func warmDelay(n int, tau uint64, ratio [2]uint64) ([]uint32, *Delay[uint32], *literalDelay) {
	defer func(r [2]uint64) { walkRatio = r }(walkRatio)
	walkRatio = ratio
	loads := make([]uint32, n)
	d := NewDelay[uint32](n, tau, DelayUniform, false, nil, math.MaxUint64)
	lit := newLiteralDelay(n, tau, DelayUniform, nil, math.MaxUint64)
	r := TrialStream(1, uint64(n), LaneChoices)
	for u := range tau {
		i, j := r.Bounded(uint32(n)), r.Bounded(uint32(n))
		if loads[j] < loads[i] {
			i = j
		}
		loads[i]++
		if d.arr.walk {
			d.arr.chainAdd(i, u, u%tau)
		} else {
			d.arr.add(i, u, u%tau)
		}
		lit.prev[u%tau] = lit.last[i]
		lit.last[i] = int64(u)
	}
	d.t, lit.t = tau, tau
	return loads, d, lit
}

// τ-Delay with uniform ages at n ∈ {2, 64, 10^3, 10^5} × τ ∈ {0, n, 4n,
// 16n, 100n, 10^5}, from a full window: walk is the loop before the
// arrivals record (literal, its int64 chain); chain and jumps are TauDelay
// with each record forced; arrivals is TauDelay as it chooses (walkRatio).
// τ = 0 is two-choice (what core runs at delay 0), the ceiling. The walks
// cost O(τ/n) a read; the jumps O(log).
//
//	go test -run '^$' -bench TauDelayUniform -benchtime 1s -count 2 ./kernels
func BenchmarkTauDelayUniform(b *testing.B) {
	for _, n := range []int{2, 64, 1000, 100000} {
		N := uint64(n)
		taus := []uint64{0, N, 4 * N, 8 * N, 16 * N, 100 * N}
		if !slices.Contains(taus, 100000) {
			taus = append(taus, 100000)
		}
		for _, tau := range taus {
			if tau == 0 {
				b.Run(fmt.Sprintf("n=%d/tau=0/two-choice", n), func(b *testing.B) {
					loads := make([]uint32, n)
					r := TrialStream(2, 0, LaneChoices)
					b.ResetTimer()
					TwoChoice(loads, &r, uint64(b.N), 0)
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "balls/s")
				})
				continue
			}
			for _, how := range []string{"walk", "chain", "jumps", "arrivals"} {
				ratio := walkRatio // walk, arrivals
				switch how {
				case "chain":
					ratio = [2]uint64{math.MaxUint32, math.MaxUint32}
				case "jumps":
					ratio = [2]uint64{0, 0}
				}
				b.Run(fmt.Sprintf("n=%d/tau=%d/%s", n, tau, how), func(b *testing.B) {
					loads, d, lit := warmDelay(n, tau, ratio)
					r, z := TrialStream(2, 0, LaneChoices), TrialStream(2, 0, LaneNoise)
					b.ResetTimer()
					if how == "walk" {
						walkTauDelay(loads, &r, &z, uint64(b.N), lit, make([]uint32, n), 0)
					} else {
						TauDelay(loads, &r, &z, uint64(b.N), d, 0)
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "balls/s")
				})
			}
		}
	}
}
