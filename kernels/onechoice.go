package kernels

import "unsafe"

// OneChoice throws count balls, each into a bin drawn uniformly at random,
// and returns the new maximum load (at least maxLoad).
//
// Stream: one PCG32.Bounded(n) per ball. 1 ≤ len(loads) ≤ MaxBins.
func OneChoice[L Load](loads []L, r *PCG32, count uint64, maxLoad L) L {
	if staged(len(loads) * int(unsafe.Sizeof(loads[0]))) {
		return oneChoiceStaged(loads, r, count, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	for ; count > 0; count-- {
		var i uint32
		s, i = boundedFast(s, inc, n)
		v := loads[i] + 1
		loads[i] = v
		maxLoad = max(maxLoad, v)
	}
	r.state = s
	return maxLoad
}

func oneChoiceStaged[L Load](loads []L, r *PCG32, count uint64, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	var idx [stageBalls]uint32
	for count > 0 {
		b := int(min(count, stageBalls))
		s = fillBounded(idx[:b], s, inc, n)
		prefetchLoads(loads, idx[:b])
		for _, i := range idx[:b] {
			v := loads[i] + 1
			loads[i] = v
			maxLoad = max(maxLoad, v)
		}
		count -= uint64(b)
	}
	r.state = s
	return maxLoad
}
