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
		prefetchLoads(loads, idx[:2*b])
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

// LevelsOnePlusBeta throws count balls by (1+β). Stream per ball: the coin,
// then two ranks (the second ignored on one-choice steps).
func LevelsOnePlusBeta(lv *Levels, r *PCG32, count uint64, coin *Bernoulli) {
	s, inc, n := r.state, r.inc(), lv.n
	if n > MaxBins {
		for ; count > 0; count-- {
			var c uint32
			s, c = step(s, inc)
			one := c > coin.hi
			if c == coin.hi {
				var two bool
				s, two = coin.flipTail(s, inc)
				one = !two
			}
			var x, y uint64
			s, x = rank(s, inc, n)
			s, y = rank(s, inc, n)
			if !one {
				x = min(x, y)
			}
			lv.Move(lv.Level(x))
		}
		r.state = s
		return
	}
	c := lv.view()
	guide, shift, mask := lv.guide, lv.shift, uint64(1)<<lv.shift-1
	var idx [2 * stageBalls]uint32
	var masks [stageBalls]uint32
	for count > 0 {
		b := int(min(count, stageBalls))
		for k := range b {
			var cc uint32
			s, cc = step(s, inc)
			one := cc > coin.hi
			if cc == coin.hi {
				var two bool
				s, two = coin.flipTail(s, inc)
				one = !two
			}
			masks[k] = -uint32(b2u(one)) // all ones on a one-choice step
			s = fillBounded(idx[2*k:2*k+2], s, inc, uint32(n))
		}
		for k := range b {
			rk := uint64(min(idx[2*k], idx[2*k+1]|masks[k]))
			i := int(guide[rk>>shift])
			for c[i] <= rk {
				i++
			}
			c[i]--
			if c[i]&mask == 0 || i == len(c)-1 {
				c = lv.afterMove(c, i)
			}
		}
		count -= uint64(b)
	}
	r.state = s
}
