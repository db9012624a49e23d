package kernels

import "unsafe"

// AlwaysGoLeft throws count balls by Vöcking's Always-Go-Left ("How
// Asymmetry Helps Load Balancing", JACM 2003): the n bins form d groups of
// g = n/d consecutive bins, a ball draws one bin uniformly from each group
// and goes to the least loaded, ties to the leftmost group (the lowest
// group index). The tie rule is part of the process, so it is kept literally.
//
// Stream: d PCG32.Bounded(g) per ball, group 0 first. len(loads) = d·g,
// 1 ≤ g ≤ MaxBins.
func AlwaysGoLeft[L Load](loads []L, r *PCG32, count uint64, d int, maxLoad L) L {
	if staged(len(loads)*int(unsafe.Sizeof(loads[0]))) && d <= stageBalls {
		return alwaysGoLeftStaged(loads, r, count, d, maxLoad)
	}
	s, inc := r.state, r.inc()
	g := uint32(len(loads) / d)
	g64 := uint64(g)
	for ; count > 0; count-- {
		s0 := s
		var m uint64
		s, m = lemire(s, inc, g64)
		low := uint32(m)
		best := m >> 32
		bl := loads[best]
		base := g64
		for k := 1; k < d; k++ {
			s, m = lemire(s, inc, g64)
			low = min(low, uint32(m))
			j := base + m>>32
			if lj := loads[j]; lj < bl { // strict: ties stay left
				best, bl = j, lj
			}
			base += g64
		}
		if low < g {
			s, best, bl = alwaysGoLeftSlow(loads, s0, inc, g, d)
		}
		bl++
		loads[best] = bl
		maxLoad = max(maxLoad, bl)
	}
	r.state = s
	return maxLoad
}

func alwaysGoLeftSlow[L Load](loads []L, s, inc uint64, g uint32, d int) (uint64, uint64, L) {
	var x uint32
	s, x = bounded(s, inc, g)
	best := uint64(x)
	bl := loads[best]
	for k := 1; k < d; k++ {
		s, x = bounded(s, inc, g)
		j := uint64(k)*uint64(g) + uint64(x)
		if lj := loads[j]; lj < bl {
			best, bl = j, lj
		}
	}
	return s, best, bl
}

// alwaysGoLeftStaged is AlwaysGoLeft drawing a block's samples ahead.
func alwaysGoLeftStaged[L Load](loads []L, r *PCG32, count uint64, d int, maxLoad L) L {
	s, inc := r.state, r.inc()
	g := uint32(len(loads) / d)
	var idx [2 * stageBalls]uint32
	per := len(idx) / d
	for count > 0 {
		b := int(min(count, uint64(per)))
		s = fillBounded(idx[:b*d], s, inc, g)
		for k := 0; k < b*d; k += d { // each sample's bin: group q starts at q·g
			for q := 1; q < d; q++ {
				idx[k+q] += uint32(q) * g
			}
		}
		prefetchLoads(loads, idx[:b*d])
		for k := 0; k < b*d; k += d {
			best := uint64(idx[k])
			bl := loads[best]
			for _, x := range idx[k+1 : k+d] {
				j := uint64(x)
				if lj := loads[j]; lj < bl {
					best, bl = j, lj
				}
			}
			bl++
			loads[best] = bl
			maxLoad = max(maxLoad, bl)
		}
		count -= uint64(b)
	}
	r.state = s
	return maxLoad
}
