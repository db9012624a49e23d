package kernels

// Replay of an age sequence in τ-Delay: ball t (0-based, in placement order)
// reads both of its bins as they were after max(0, t − ages[t]) balls. A
// concurrent run whose schedule does not depend on the bins chosen (an
// emulated one) is such a process driven by the ages it measured, so the
// replay reproduces its law of loads, where ages drawn i.i.d. from the same
// marginal do not (bursts of old reads are what raise the gap).
//
// The state is a Delay in mode DelayReplay: the last τ balls' arrivals by
// bin, as for DelayUniform (delay_arrivals.go); a read at age a costs
// O(log(1 + a/n)) expected.

// NewReplay returns the state for n bins replaying ages no larger than tau.
func NewReplay[L Load](n int, tau uint64) *Delay[L] {
	ring := max(tau, 1) // a ring slot is needed even when every age is 0
	return &Delay[L]{tau: ring, mode: DelayReplay, arr: newArrivals(n, ring, ring, false)}
}

// ReplayMemory is the bytes NewReplay allocates per bin and per unit of τ;
// the ages themselves take 4 bytes a ball more.
func ReplayMemory() (perBin, perTau int) { return arrivalsMemory(false) }

// TauDelayReplay throws len(ages) balls by τ-Delay, ball k reading both its
// bins at age ages[k], with state d from NewReplay (ages[k] ≤ its τ), and
// returns the new maximum load.
//
// Stream: two PCG32.Bounded(n) per ball from r, as TauDelay (so constant
// ages τ give TauDelay's DelayFixed run exactly, and zero ages two-choice).
func TauDelayReplay[L Load](loads []L, r *PCG32, ages []uint32, d *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	tau, t := d.tau, d.t
	var idx [2 * stageBalls]uint32
	slot := t % tau
	for len(ages) > 0 {
		b := min(len(ages), stageBalls)
		s = fillBounded(idx[:2*b], s, inc, n)
		prefetchLoads(loads, idx[:2*b])
		for k, a := range ages[:b] {
			i, j := idx[2*k], idx[2*k+1]
			li, lj := loads[i], loads[j]
			ri, rj := li, lj
			if back, span, ok := d.arr.within(t, i, a); ok {
				if d.arr.walk { // the same branch every read
					ri -= L(d.arr.chainCount(back, span, slot))
				} else {
					ri -= L(d.arr.count(i, back, span, t, slot))
				}
			}
			if back, span, ok := d.arr.within(t, j, a); ok {
				if d.arr.walk { // the same branch every read
					rj -= L(d.arr.chainCount(back, span, slot))
				} else {
					rj -= L(d.arr.count(j, back, span, t, slot))
				}
			}
			c := b2u(rj < ri)
			i, li = choose(c, i, j), choose(c, li, lj)
			li++
			loads[i] = li
			maxLoad = max(maxLoad, li)
			if d.arr.walk { // the same branch every ball
				d.arr.chainAdd(i, t, slot)
			} else {
				d.arr.add(i, t, slot)
			}
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		ages = ages[b:]
	}
	d.t = t
	r.state = s
	return maxLoad
}
