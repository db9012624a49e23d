package kernels

// Groups of consecutive bins (Kenthapadi & Panigrahy, "Balanced allocation
// on graphs", SODA 2006, §5): two random accesses, each reading k contiguous
// bins.

// coin returns the next fair coin of a buffer (word, the bits left in it),
// refilling it from raw state s: the loops keep the buffer in locals.
func coin(s, inc uint64, word, left uint32) (uint64, uint32, uint32, uint32) {
	if left == 0 {
		s, word = step(s, inc)
		left = 32
	}
	return s, word >> 1, left - 1, word & 1
}

// lessOrTie reports b < a, or b == a when heads is 1, in one comparison
// (a conditional move, where a branch on ties would mispredict half the
// time). Loads and sums stay below 2^63.
func lessOrTie[L Load](b, a L, heads uint32) bool {
	return uint64(b)<<1 < uint64(a)<<1|uint64(heads)
}

// leftmostMin returns the offset of the least loaded bin of loads[at:at+k],
// the first one on ties, and its load.
func leftmostMin[L Load](loads []L, at, k uint32) (uint32, L) {
	best, bl := uint32(0), loads[at]
	for i, l := range loads[at+1 : at+k] {
		best = selectIf(l < bl, uint32(i)+1, best)
		bl = min(bl, l)
	}
	return best, bl
}

// selectIf is x when c holds, else y, by a mask rather than a branch.
func selectIf(c bool, x, y uint32) uint32 {
	var take uint32
	if c {
		take = 1
	}
	return y ^ (y^x)&-take
}

// KPGroups throws count balls into n/k aligned groups of k consecutive bins:
// a ball draws two groups uniformly and independently, takes the lesser
// loaded one — by total load (sums[g], kept here) or, with byMin, by least
// bin load — a fair coin deciding ties, and goes to the least loaded bin of
// that group, the leftmost on ties. len(sums) = n/k groups, k·len(sums) =
// len(loads); sums is only read and kept with !byMin.
//
// Stream per ball: two PCG32.Bounded(n/k), then a bit of coins on a tie
// between the groups.
func KPGroups[L Load](loads, sums []L, r *PCG32, count uint64, k uint32, byMin bool, coins *Coins, maxLoad L) L {
	if !byMin {
		return kpGroupsSum(loads, sums, r, count, k, coins, maxLoad)
	}
	s, inc := r.state, r.inc()
	groups := uint32(len(loads)) / k
	word, left := coins.word, coins.left
	for ; count > 0; count-- {
		s0 := s
		var m1, m2 uint64
		s, m1 = lemire(s, inc, uint64(groups))
		s, m2 = lemire(s, inc, uint64(groups))
		a, b := uint32(m1>>32), uint32(m2>>32)
		if uint32(m1) < groups || uint32(m2) < groups {
			s, a = bounded(s0, inc, groups) // exact, probability < 2·groups/2^32
			s, b = bounded(s, inc, groups)
		}
		ia, la := leftmostMin(loads, a*k, k)
		ib, lb := leftmostMin(loads, b*k, k)
		var heads uint32
		s, word, left, heads = coin(s, inc, word, left)
		takeB := lessOrTie(lb, la, heads)
		a, ia = selectIf(takeB, b, a), selectIf(takeB, ib, ia)
		i := a*k + ia
		l := loads[i] + 1
		loads[i] = l
		maxLoad = max(maxLoad, l)
	}
	r.state = s
	coins.word, coins.left = word, left
	return maxLoad
}

// kpGroupsSum is KPGroups by total load, the paper's rule.
func kpGroupsSum[L Load](loads, sums []L, r *PCG32, count uint64, k uint32, coins *Coins, maxLoad L) L {
	s, inc := r.state, r.inc()
	groups := uint32(len(sums))
	word, left := coins.word, coins.left
	for ; count > 0; count-- {
		s0 := s
		var m1, m2 uint64
		s, m1 = lemire(s, inc, uint64(groups))
		s, m2 = lemire(s, inc, uint64(groups))
		a, b := uint32(m1>>32), uint32(m2>>32)
		if uint32(m1) < groups || uint32(m2) < groups {
			s, a = bounded(s0, inc, groups) // exact, probability < 2·groups/2^32
			s, b = bounded(s, inc, groups)
		}
		var heads uint32
		s, word, left, heads = coin(s, inc, word, left)
		a = selectIf(lessOrTie(sums[b], sums[a], heads), b, a)
		sums[a]++
		// leftmostMin, written out: a call per ball costs a third.
		g := loads[a*k : a*k+k]
		bl, ia := g[0], uint32(0)
		for j := uint32(1); j < uint32(len(g)); j++ {
			ia = selectIf(g[j] < bl, j, ia)
			bl = min(bl, g[j])
		}
		bl++
		g[ia] = bl
		maxLoad = max(maxLoad, bl)
	}
	r.state = s
	coins.word, coins.left = word, left
	return maxLoad
}

// KPWindows is KPGroups with unaligned groups, the counter-example of
// Kenthapadi & Panigrahy: a ball draws two windows of k consecutive bins
// (cyclically) whose starts are uniform given that the windows are disjoint
// (pairs of starts redrawn until they are; needs n ≥ 2k), compares them by
// total or least load (a coin on ties), and goes to the least loaded bin of
// the lesser window, the first from the window's start on ties.
//
// Stream per ball: pairs of PCG32.Bounded(n) until disjoint, then a bit of
// coins on a tie between the windows.
func KPWindows[L Load](loads []L, r *PCG32, count uint64, k uint32, byMin bool, coins *Coins, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	word, left := coins.word, coins.left
	for ; count > 0; count-- {
		var a, b uint32
		for {
			s, a = bounded(s, inc, n)
			s, b = bounded(s, inc, n)
			d := b - a
			if b < a {
				d += n
			}
			if d >= k && d <= n-k {
				break
			}
		}
		ia, la := windowLoad(loads, a, k, byMin)
		ib, lb := windowLoad(loads, b, k, byMin)
		var heads uint32
		s, word, left, heads = coin(s, inc, word, left)
		takeB := lessOrTie(lb, la, heads)
		a, ia = selectIf(takeB, b, a), selectIf(takeB, ib, ia)
		if !byMin {
			ia, _ = windowMin(loads, a, k)
		}
		i := a + ia
		if i >= n {
			i -= n
		}
		l := loads[i] + 1
		loads[i] = l
		maxLoad = max(maxLoad, l)
	}
	r.state = s
	coins.word, coins.left = word, left
	return maxLoad
}

// windowLoad is the window's least load and its offset (byMin) or its total.
func windowLoad[L Load](loads []L, at, k uint32, byMin bool) (uint32, L) {
	if byMin {
		return windowMin(loads, at, k)
	}
	var sum L
	n := uint32(len(loads))
	for i := range k {
		j := at + i
		if j >= n {
			j -= n
		}
		sum += loads[j]
	}
	return 0, sum
}

// windowMin is the offset from at of the least loaded bin of the cyclic
// window, the first on ties, and its load.
func windowMin[L Load](loads []L, at, k uint32) (uint32, L) {
	n := uint32(len(loads))
	best, bl := uint32(0), loads[at]
	for i := uint32(1); i < k; i++ {
		j := at + i
		if j >= n {
			j -= n
		}
		if l := loads[j]; l < bl {
			best, bl = i, l
		}
	}
	return best, bl
}
