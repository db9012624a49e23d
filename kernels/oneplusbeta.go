package kernels

// OnePlusBeta throws count balls by the (1+β) process (Peres, Talwar, Wieder
// 2015): with probability β a ball goes to the less loaded of two uniform
// bins, otherwise to one uniform bin. coin holds β; ties as in TwoChoice.
//
// Stream per ball: the coin (Bernoulli.Flip), then one or two
// PCG32.Bounded(n). 1 ≤ len(loads) ≤ MaxBins.
func OnePlusBeta[L Load](loads []L, r *PCG32, count uint64, coin *Bernoulli, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	n64 := uint64(n)
	hi := coin.hi
	for ; count > 0; count-- {
		var c uint32
		s, c = step(s, inc)
		two := c < hi
		if c == hi {
			s, two = coin.flipTail(s, inc)
		}
		s0 := s
		var m1 uint64
		s, m1 = lemire(s, inc, n64)
		i := m1 >> 32
		low := uint32(m1)
		li := loads[i]
		if two {
			var m2 uint64
			s, m2 = lemire(s, inc, n64)
			low = min(low, uint32(m2))
			j := m2 >> 32
			if lj := loads[j]; lj < li {
				i, li = j, lj
			}
		}
		if low < n {
			var x, y uint32
			s, x = bounded(s0, inc, n)
			i, li = uint64(x), loads[x]
			if two {
				s, y = bounded(s, inc, n)
				if ly := loads[y]; ly < li {
					i, li = uint64(y), ly
				}
			}
		}
		li++
		loads[i] = li
		maxLoad = max(maxLoad, li)
	}
	r.state = s
	return maxLoad
}
