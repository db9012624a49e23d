package kernels

import "unsafe"

// OnePlusBeta throws count balls by the (1+β) process (Peres, Talwar, Wieder
// 2015): with probability β a ball goes to the less loaded of two uniform
// bins, otherwise to one uniform bin. coin holds β; ties as in TwoChoice.
//
// Stream per ball: the coin (Bernoulli.Flip), then two PCG32.Bounded(n). The
// second bin is drawn on one-choice steps too and ignored, which costs one
// output but lets the loop run without a branch on the coin: a coin of
// β = 1/2 would mispredict every other ball and halve the speed.
// 1 ≤ len(loads) ≤ MaxBins.
func OnePlusBeta[L Load](loads []L, r *PCG32, count uint64, coin *Bernoulli, maxLoad L) L {
	if staged(len(loads) * int(unsafe.Sizeof(loads[0]))) {
		return onePlusBetaStaged(loads, r, count, coin, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	n64 := uint64(n)
	hi := coin.hi
	for ; count > 0; count-- {
		var c uint32
		s, c = step(s, inc)
		one := c > hi // a one-choice step
		if c == hi {
			var two bool
			s, two = coin.flipTail(s, inc)
			one = !two
		}
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
		// On a one-choice step the second load is masked to the maximum,
		// which is never smaller: a conditional move, not a branch.
		var mask L
		if one {
			mask = ^L(0)
		}
		if lj|mask < li {
			i, li = j, lj
		}
		li++
		loads[i] = li
		maxLoad = max(maxLoad, li)
	}
	r.state = s
	return maxLoad
}

// onePlusBetaStaged is OnePlusBeta drawing a block's coins and samples ahead.
func onePlusBetaStaged[L Load](loads []L, r *PCG32, count uint64, coin *Bernoulli, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	var idx [2 * stageBalls]uint32
	var masks [stageBalls]L
	for count > 0 {
		b := int(min(count, stageBalls))
		for k := range b {
			var c uint32
			s, c = step(s, inc)
			one := c > coin.hi
			if c == coin.hi {
				var two bool
				s, two = coin.flipTail(s, inc)
				one = !two
			}
			var mask L
			if one {
				mask = ^L(0)
			}
			masks[k] = mask
			s = fillBounded(idx[2*k:2*k+2], s, inc, n)
		}
		for k := range b {
			i, j := idx[2*k], idx[2*k+1]
			li, lj := loads[i], loads[j]
			if lj|masks[k] < li {
				i, li = j, lj
			}
			li++
			loads[i] = li
			maxLoad = max(maxLoad, li)
		}
		count -= uint64(b)
	}
	r.state = s
	return maxLoad
}
