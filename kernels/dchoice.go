package kernels

import "unsafe"

// Ties between equally loaded samples.
//
// The process breaks ties uniformly at random (README, Processes). The loops below keep the first
// of the least loaded samples instead, which gives the same process in law at
// no cost: the d samples are i.i.d., so their vector is exchangeable, and the
// first minimiser under a uniformly random relabelling of the positions is a
// uniformly random minimiser. The bin that receives the ball therefore has
// the same distribution given the current loads under either rule, and so
// does the whole load process (core's exact-enumeration test checks this
// against explicit random tie-breaking).

// TwoChoice throws count balls, each into the less loaded of two bins drawn
// uniformly with replacement, and returns the new maximum load.
//
// Stream: two PCG32.Bounded(n) per ball. 1 ≤ len(loads) ≤ MaxBins.
func TwoChoice[L Load](loads []L, r *PCG32, count uint64, maxLoad L) L {
	if staged(len(loads) * int(unsafe.Sizeof(loads[0]))) {
		return dChoiceStaged(loads, r, count, 2, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	n64 := uint64(n)
	for ; count > 0; count-- {
		s0 := s
		var m1, m2 uint64
		s, m1 = lemire(s, inc, n64)
		s, m2 = lemire(s, inc, n64)
		i, j := m1>>32, m2>>32
		if uint32(m1) < n || uint32(m2) < n {
			var x, y uint32
			s, x = bounded(s0, inc, n)
			s, y = bounded(s, inc, n)
			i, j = uint64(x), uint64(y)
		}
		li, lj := loads[i], loads[j]
		if lj < li {
			i, li = j, lj
		}
		li++
		loads[i] = li
		maxLoad = max(maxLoad, li)
	}
	r.state = s
	return maxLoad
}

// DChoice throws count balls, each into the least loaded of d bins drawn
// uniformly with replacement, and returns the new maximum load.
//
// Stream: d PCG32.Bounded(n) per ball. d ≥ 1, 1 ≤ len(loads) ≤ MaxBins.
func DChoice[L Load](loads []L, r *PCG32, count uint64, d int, maxLoad L) L {
	if staged(len(loads)*int(unsafe.Sizeof(loads[0]))) && d <= stageBalls {
		return dChoiceStaged(loads, r, count, d, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	n64 := uint64(n)
	for ; count > 0; count-- {
		s0 := s
		var m uint64
		s, m = lemire(s, inc, n64)
		low := uint32(m)
		best := m >> 32
		bl := loads[best]
		for k := 1; k < d; k++ {
			s, m = lemire(s, inc, n64)
			low = min(low, uint32(m))
			j := m >> 32
			if lj := loads[j]; lj < bl {
				best, bl = j, lj
			}
		}
		if low < n {
			s, best, bl = dChoiceSlow(loads, s0, inc, n, d)
		}
		bl++
		loads[best] = bl
		maxLoad = max(maxLoad, bl)
	}
	r.state = s
	return maxLoad
}

// dChoiceSlow redoes one d-choice ball from state s with exact bounded draws.
func dChoiceSlow[L loadValue](loads []L, s, inc uint64, n uint32, d int) (uint64, uint64, L) {
	var x uint32
	s, x = bounded(s, inc, n)
	best := uint64(x)
	bl := loads[best]
	for k := 1; k < d; k++ {
		s, x = bounded(s, inc, n)
		if lj := loads[x]; lj < bl {
			best, bl = uint64(x), lj
		}
	}
	return s, best, bl
}

// dChoiceStaged is DChoice drawing a block's samples ahead (see staging.go).
func dChoiceStaged[L Load](loads []L, r *PCG32, count uint64, d int, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	var idx [2 * stageBalls]uint32
	per := max(1, len(idx)/d) // balls per block
	for count > 0 {
		b := int(min(count, uint64(per)))
		s = fillBounded(idx[:b*d], s, inc, n)
		prefetchLoads(loads, idx[:b*d])
		if d == 2 {
			for k := 0; k < 2*b; k += 2 {
				i, j := idx[k], idx[k+1]
				li, lj := loads[i], loads[j]
				if lj < li {
					i, li = j, lj
				}
				li++
				loads[i] = li
				maxLoad = max(maxLoad, li)
			}
		} else {
			for k := 0; k < b*d; k += d {
				best := idx[k]
				bl := loads[best]
				for _, j := range idx[k+1 : k+d] {
					if lj := loads[j]; lj < bl {
						best, bl = j, lj
					}
				}
				bl++
				loads[best] = bl
				maxLoad = max(maxLoad, bl)
			}
		}
		count -= uint64(b)
	}
	r.state = s
	return maxLoad
}
