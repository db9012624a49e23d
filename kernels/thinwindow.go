package kernels

import (
	"math/bits"
	"unsafe"
)

// Windows for the thinning loops (Two-Thinning, K-Thinning, Threshold and
// Adaptive). Their decision is a test of one sampled load against a limit,
// kept or not with probability near ½; written as a branch it is a coin to
// the predictor, and a misprediction costs more than the rest of the ball.
// Computed without a branch, the next ball's stream position depends on
// the load just read, so every ball waits on one generator step, one load
// and one compare in turn (two branch-free versions of K-Thinning were
// slower: 9.7 and 8.3 ns a ball against 6.6).
//
// A window breaks that chain. It draws the next thinWin bin indices of the
// stream at once (they do not depend on the loads), reads their loads, and
// keeps one bit per position and limit: load < limit. The balls are then
// walked over the bits, a ball's first accepted position found by a
// trailing-zero count (for K ≤ 3 by arithmetic on two bits), and the
// stream moves on by the samples it took; the walk's only chain is a shift
// and a count. The stream state is stepped to the next window by a jump
// (pcgJumpMul, pcgJumpAdd), not a step a position.
//
// The bits are the loads at the window's start. Within a call the limits
// are fixed and loads only grow, so a position read as rejected stays
// rejected, and an accepted one can only have been raised past its limit by
// an earlier ball of the same window: the ball checks its kept sample's
// load, which it reads anyway to add the ball, against the limit, and if it
// no longer passes (rare: the bin was sampled twice in one window and
// crossed the limit between) the window is read again from that ball's
// start. Each ball thus takes exactly the samples, in the same order, that
// the ball-by-ball loop takes; the windows change speed, never results.
//
// A draw whose Lemire low half is below n may be redrawn (Algorithm 5), so
// positions after it would shift: a window ends before such a draw, and a
// ball that does not fit in what is left starts a new window; a ball that
// does not fit in a fresh one (its draws run into such a draw, or a retry
// takes more than thinWin probes) is thrown by the ball-by-ball loop.

// thinWin is the positions of the stream a window draws ahead: one 64-bit
// mask per limit.
const thinWin = 64

// pcgJumpMul[q] and pcgJumpAdd[q] step a state q positions at once: the
// state q steps after s is pcgJumpMul[q]·s + pcgJumpAdd[q]·inc (q ≤ thinWin).
var pcgJumpMul, pcgJumpAdd = pcgJumps()

func pcgJumps() (a, c [thinWin + 1]uint64) {
	a[0] = 1
	for q := 1; q <= thinWin; q++ {
		a[q] = a[q-1] * pcgMul
		c[q] = c[q-1]*pcgMul + 1
	}
	return a, c
}

// jump returns the state q steps after s, 0 ≤ q ≤ thinWin.
func jump(s, inc uint64, q int) uint64 {
	return pcgJumpMul[q]*s + pcgJumpAdd[q]*inc
}

// windowWant is the positions a window draws for count balls: two a ball
// (most balls of these processes take one or two samples; the rest start
// another window), at most thinWin. A window longer than its balls need
// is drawn for nothing at the end of every call.
func windowWant(count uint64) int {
	if count >= thinWin/2 {
		return thinWin
	}
	return int(2 * count)
}

// fillPass writes to idx the Lemire indices of the next want outputs from
// state s (1 ≤ want ≤ thinWin) and returns how many of them are
// draws of PCG32.Bounded(n) (all, or up to the first whose low half is
// below n) and the mask of those whose load is below lim, bit q for
// position q. The assembly loops (amd64) compare exactly; the portable one
// reads the sign of load − lim, so lim must be below 2^63 (the callers
// throw larger limits ball by ball), and a load read as below it is then a
// load < lim or one ≥ 2^63, which a ball's check of its kept sample's load
// tells apart.
func fillPass[L Load](loads []L, s, inc uint64, idx *[thinWin]uint32, want int, lim uint64) (int, uint64) {
	if fillAsm {
		var valid int
		var m uint64
		if unsafe.Sizeof(loads[0]) == 4 {
			valid, m = fillPass32((*uint32)(unsafe.Pointer(&loads[0])), uint64(len(loads)), s, inc, idx, want, lim)
		} else {
			valid, m = fillPass64((*uint64)(unsafe.Pointer(&loads[0])), uint64(len(loads)), s, inc, idx, want, lim)
		}
		if valid == 0 {
			return 0, 0
		}
		return valid, m >> uint(thinWin-valid)
	}
	return fillPassGo(loads, s, inc, idx, want, lim)
}

// fillPassGo is fillPass's portable loop.
func fillPassGo[L Load](loads []L, s, inc uint64, idx *[thinWin]uint32, want int, lim uint64) (int, uint64) {
	n := uint32(len(loads))
	// The mask fills from the top, a position a shift: the sign of
	// load − lim is the test, with no compare to turn into a bit.
	const top = 1 << 63
	var m uint64
	for q := range want {
		a := uint64(pcgOutput(s)) * uint64(n)
		s = s*pcgMul + inc
		if uint32(a) < n {
			want = q
			break
		}
		i := uint32(a >> 32)
		idx[q&(thinWin-1)] = i
		m = m>>1 | (uint64(loads[i])-lim)&top
	}
	if want == 0 {
		return 0, 0
	}
	return want, m >> uint(thinWin-want)
}

// fillPass2 is fillPass with a second limit's mask from the same loads.
func fillPass2[L Load](loads []L, s, inc uint64, idx *[thinWin]uint32, want int, lim1, lim2 uint64) (int, uint64, uint64) {
	if fillAsm {
		var valid int
		var m1, m2 uint64
		if unsafe.Sizeof(loads[0]) == 4 {
			valid, m1, m2 = fillPass2_32((*uint32)(unsafe.Pointer(&loads[0])), uint64(len(loads)), s, inc, idx, want, lim1, lim2)
		} else {
			valid, m1, m2 = fillPass2_64((*uint64)(unsafe.Pointer(&loads[0])), uint64(len(loads)), s, inc, idx, want, lim1, lim2)
		}
		if valid == 0 {
			return 0, 0, 0
		}
		return valid, m1 >> uint(thinWin-valid), m2 >> uint(thinWin-valid)
	}
	return fillPass2Go(loads, s, inc, idx, want, lim1, lim2)
}

// fillPass2Go is fillPass2's portable loop.
func fillPass2Go[L Load](loads []L, s, inc uint64, idx *[thinWin]uint32, want int, lim1, lim2 uint64) (int, uint64, uint64) {
	n := uint32(len(loads))
	const top = 1 << 63
	var m1, m2 uint64
	for q := range want {
		a := uint64(pcgOutput(s)) * uint64(n)
		s = s*pcgMul + inc
		if uint32(a) < n {
			want = q
			break
		}
		i := uint32(a >> 32)
		idx[q&(thinWin-1)] = i
		v := uint64(loads[i])
		m1 = m1>>1 | (v-lim1)&top
		m2 = m2>>1 | (v-lim2)&top
	}
	if want == 0 {
		return 0, 0, 0
	}
	return want, m1 >> uint(thinWin-want), m2 >> uint(thinWin-want)
}

// passMask returns the positions q < valid of a window whose load is below
// lim (< 2^63, as fillPass), bit q for position q.
func passMask[L Load](loads []L, idx *[thinWin]uint32, valid int, lim uint64) uint64 {
	const top = 1 << 63
	var m uint64
	for _, i := range idx[:valid] {
		m = m>>1 | (uint64(loads[i])-lim)&top
	}
	if valid == 0 {
		return 0
	}
	return m >> uint(thinWin-valid)
}

// thinOne throws count balls of K-Thinning whose K − 1 tests share one
// limit (Two-Thinning is K = 2): a ball's samples run to the first one
// below lim, or to the K-th. It returns the new state and maximum load.
func thinOne[L Load](loads []L, s, inc, count uint64, k int, lim uint64, maxLoad L) (uint64, L) {
	if lim >= 1<<63 {
		return kThinningLoop(loads, s, inc, count, k, lim, nil, maxLoad)
	}
	var idx [thinWin]uint32
	// keep[t]: the limit a ball's sample t + 1 was kept under; the K-th
	// is kept whatever its load.
	var keep [thinWin]uint64
	for t := range k - 1 {
		keep[t] = lim
	}
	keep[k-1] = ^uint64(0)
	last := uint64(1) << uint(k-1)
	tests := last - 1
	for count > 0 {
		valid, w := fillPass(loads, s, inc, &idx, windowWant(count), lim)
		p := 0
		for {
			t := bits.TrailingZeros64(w&tests|last) & (thinWin - 1)
			if p+t >= valid {
				break
			}
			p += t + 1
			i := idx[(p-1)&(thinWin-1)]
			v := loads[i]
			if uint64(v) >= keep[t] {
				p -= t + 1
				break // raised past lim by this window's balls: read again from here
			}
			loads[i] = v + 1
			maxLoad = max(maxLoad, v+1)
			w = w >> uint(t) >> 1
			if count--; count == 0 {
				break
			}
		}
		if p == 0 {
			var i uint32
			s, i = kThinningBall(loads, s, inc, k, lim, nil)
			v := loads[i] + 1
			loads[i] = v
			maxLoad = max(maxLoad, v)
			count--
			continue
		}
		s = jump(s, inc, p)
	}
	return s, maxLoad
}

// kThinningLoop is K-Thinning ball by ball (the loops before windows), for
// limits of 2^63 or more, which fillPass's sign test cannot read: tests
// are limits, or lim for each when limits is nil.
func kThinningLoop[L Load](loads []L, s, inc, count uint64, k int, lim uint64, limits []uint64, maxLoad L) (uint64, L) {
	for ; count > 0; count-- {
		var i uint32
		s, i = kThinningBall(loads, s, inc, k, lim, limits)
		v := loads[i] + 1
		loads[i] = v
		maxLoad = max(maxLoad, v)
	}
	return s, maxLoad
}

// kThinningBall is one ball of K-Thinning drawn ball by ball, the window
// loops' fallback: its K − 1 tests are limits, or lim for each when limits
// is nil. It returns the new state and the ball's bin.
func kThinningBall[L Load](loads []L, s, inc uint64, k int, lim uint64, limits []uint64) (uint64, uint32) {
	n := uint32(len(loads))
	var i uint32
	s, i = bounded(s, inc, n)
	for j := 0; j < k-1; j++ {
		if limits != nil {
			lim = limits[j]
		}
		if uint64(loads[i]) < lim {
			break
		}
		s, i = bounded(s, inc, n)
	}
	return s, i
}

// thinMany throws count balls of K-Thinning with per-test limits
// (K = len(limits) + 1 ≤ maxKThinningTests + 1). Tests with equal limits
// share a mask.
func thinMany[L Load](loads []L, s, inc, count uint64, limits []uint64, maxLoad L) (uint64, L) {
	k := len(limits) + 1
	var keep [thinWin]uint64 // as thinOne's
	copy(keep[:], limits)
	keep[k-1] = ^uint64(0)
	// Distinct limits, and for each test the index of its own.
	var uniq [maxKThinningTests]uint64
	var of [maxKThinningTests]uint8
	u := 0
	for j, lim := range limits {
		if lim >= 1<<63 {
			return kThinningLoop(loads, s, inc, count, k, 0, limits, maxLoad)
		}
		d := 0
		for d < u && uniq[d] != lim {
			d++
		}
		if d == u {
			uniq[u] = lim
			u++
		}
		of[j] = uint8(d)
	}
	if k == 3 {
		return thinTwoTests(loads, s, inc, count, limits[0], limits[1], maxLoad)
	}
	var idx [thinWin]uint32
	var masks [maxKThinningTests]uint64
	// tm[j]: test j's mask from the ball's first sample on, bit 0 the
	// position p + j; shifted on with the balls.
	var tm [maxKThinningTests]uint64
	last := uint64(1) << uint(k-1)
	for count > 0 {
		valid, m0 := fillPass(loads, s, inc, &idx, windowWant(count), uniq[0])
		masks[0] = m0
		for d := 1; d < u; d++ {
			masks[d] = passMask(loads, &idx, valid, uniq[d])
		}
		for j := range k - 1 {
			tm[j] = masks[of[j]] >> uint(j)
		}
		p := 0
		for {
			code := last
			for j := range k - 1 {
				code |= (tm[j] & 1) << uint(j)
			}
			t := bits.TrailingZeros64(code) & (thinWin - 1)
			if p+t >= valid {
				break
			}
			p += t + 1
			i := idx[(p-1)&(thinWin-1)]
			v := loads[i]
			if uint64(v) >= keep[t] {
				p -= t + 1
				break // raised past its limit by this window's balls: read again from here
			}
			loads[i] = v + 1
			maxLoad = max(maxLoad, v+1)
			for j := range k - 1 {
				tm[j] = tm[j] >> uint(t) >> 1
			}
			if count--; count == 0 {
				break
			}
		}
		if p == 0 {
			var i uint32
			s, i = kThinningBall(loads, s, inc, k, 0, limits)
			v := loads[i] + 1
			loads[i] = v
			maxLoad = max(maxLoad, v)
			count--
			continue
		}
		s = jump(s, inc, p)
	}
	return s, maxLoad
}

// thinTwoTests is thinMany for K = 3, the two tests' masks in registers.
func thinTwoTests[L Load](loads []L, s, inc, count uint64, lim1, lim2 uint64, maxLoad L) (uint64, L) {
	keep := [4]uint64{lim1, lim2, ^uint64(0)}
	var idx [thinWin]uint32
	for count > 0 {
		valid, a, b := fillPass2(loads, s, inc, &idx, windowWant(count), lim1, lim2)
		b >>= 1
		p := 0
		for {
			// t = 0 if test 1 passes, else 1 if test 2 does, else 2: in
			// arithmetic, shorter than a bit scan on the chain from one
			// ball's masks to the next's.
			na := ^a & 1
			t := int(na + na&^b)
			if p+t >= valid {
				break
			}
			p += t + 1
			i := idx[(p-1)&(thinWin-1)]
			v := loads[i]
			if uint64(v) >= keep[t] {
				p -= t + 1
				break // raised past its limit by this window's balls: read again from here
			}
			loads[i] = v + 1
			maxLoad = max(maxLoad, v+1)
			a, b = a>>uint(t)>>1, b>>uint(t)>>1
			if count--; count == 0 {
				break
			}
		}
		if p == 0 {
			var i uint32
			s, i = kThinningBall(loads, s, inc, 3, 0, keep[:2])
			v := loads[i] + 1
			loads[i] = v
			maxLoad = max(maxLoad, v)
			count--
			continue
		}
		s = jump(s, inc, p)
	}
	return s, maxLoad
}

// retryWindows throws count balls of Threshold or Adaptive (Retry) by
// windows: a ball's probes run to its first sample below lim. A ball
// whose probes do not end inside a fresh window is thrown by
// retryBall. It returns the new state and maximum load.
func retryWindows[L Load](loads []L, s, inc, count, lim uint64, pr *Probes, maxLoad L) (uint64, L) {
	if lim >= 1<<63 {
		for ; count > 0; count-- {
			maxLoad = retryBall(loads, &s, inc, lim, pr, maxLoad)
		}
		return s, maxLoad
	}
	total, most := pr.Total, pr.Max
	var idx [thinWin]uint32
	for count > 0 {
		valid, w := fillPass(loads, s, inc, &idx, windowWant(count), lim)
		p := 0
		for w != 0 {
			t := bits.TrailingZeros64(w) & (thinWin - 1)
			p += t + 1
			i := idx[(p-1)&(thinWin-1)]
			v := loads[i]
			if uint64(v) >= lim {
				p -= t + 1
				break // raised past lim by this window's balls: read again from here
			}
			loads[i] = v + 1
			maxLoad = max(maxLoad, v+1)
			most = max(most, uint64(t)+1)
			w = w >> uint(t) >> 1
			if count--; count == 0 {
				break
			}
		}
		if p == 0 {
			pr.Total, pr.Max = total, most
			maxLoad = retryBall(loads, &s, inc, lim, pr, maxLoad)
			total, most = pr.Total, pr.Max
			count--
			continue
		}
		_ = valid          // bits past valid are 0: no ball ends there
		total += uint64(p) // a probe each position the balls took
		s = jump(s, inc, p)
	}
	pr.Total, pr.Max = total, most
	return s, maxLoad
}

// retryBall is one ball of Retry drawn sample by sample, the window loop's
// fallback.
func retryBall[L Load](loads []L, s *uint64, inc, lim uint64, pr *Probes, maxLoad L) L {
	n := uint32(len(loads))
	var i uint32
	k := uint64(1)
	*s, i = bounded(*s, inc, n)
	for uint64(loads[i]) >= lim {
		*s, i = bounded(*s, inc, n)
		k++
	}
	pr.Total += k
	pr.Max = max(pr.Max, k)
	v := loads[i] + 1
	loads[i] = v
	return max(maxLoad, v)
}

// The batched loops decide a batch's balls by its frozen loads, which do
// not move within a call: a window's bits stay true and no ball re-reads
// one, but for the misread of loads ≥ 2^63 (see fillPass). These fill
// dst with the bins of len(dst) balls and return the new state.

// chooseThin is thinOne and thinMany for frozen loads.
func chooseThin[L Load](frozen []L, s, inc uint64, limits []uint64, dst []uint32) uint64 {
	k := len(limits) + 1
	one := true
	for _, lim := range limits {
		if lim >= 1<<63 {
			for b := range dst {
				s, dst[b] = kThinningBall(frozen, s, inc, k, 0, limits)
			}
			return s
		}
		one = one && lim == limits[0]
	}
	switch {
	case one:
		return chooseOne(frozen, s, inc, k, limits[0], dst)
	case k == 3:
		return chooseTwoTests(frozen, s, inc, limits[0], limits[1], dst)
	}
	var keep [thinWin]uint64 // as thinOne's
	copy(keep[:], limits)
	keep[k-1] = ^uint64(0)
	var idx [thinWin]uint32
	var tm [maxKThinningTests]uint64 // as thinMany's
	last := uint64(1) << uint(k-1)
	for b := 0; b < len(dst); {
		valid, m0 := fillPass(frozen, s, inc, &idx, windowWant(uint64(len(dst)-b)), limits[0])
		tm[0] = m0
		for j := 1; j < k-1; j++ {
			tm[j] = passMask(frozen, &idx, valid, limits[j]) >> uint(j)
		}
		p := 0
		for b < len(dst) {
			code := last
			for j := range k - 1 {
				code |= (tm[j] & 1) << uint(j)
			}
			t := bits.TrailingZeros64(code) & (thinWin - 1)
			if p+t >= valid {
				break
			}
			i := idx[(p+t)&(thinWin-1)]
			if uint64(frozen[i]) >= keep[t] {
				break // a load ≥ 2^63 read as passing
			}
			p += t + 1
			dst[b] = i
			b++
			for j := range k - 1 {
				tm[j] = tm[j] >> uint(t) >> 1
			}
		}
		if p == 0 {
			s, dst[b] = kThinningBall(frozen, s, inc, k, 0, limits)
			b++
			continue
		}
		s = jump(s, inc, p)
	}
	return s
}

// chooseOne is chooseThin with one limit for all K − 1 tests.
func chooseOne[L Load](frozen []L, s, inc uint64, k int, lim uint64, dst []uint32) uint64 {
	var keep [thinWin]uint64 // as thinOne's: no branch on whether a test kept the sample
	for t := range k - 1 {
		keep[t] = lim
	}
	keep[k-1] = ^uint64(0)
	var idx [thinWin]uint32
	last := uint64(1) << uint(k-1)
	tests := last - 1
	for b := 0; b < len(dst); {
		valid, w := fillPass(frozen, s, inc, &idx, windowWant(uint64(len(dst)-b)), lim)
		p := 0
		for b < len(dst) {
			t := bits.TrailingZeros64(w&tests|last) & (thinWin - 1)
			if p+t >= valid {
				break
			}
			i := idx[(p+t)&(thinWin-1)]
			if uint64(frozen[i]) >= keep[t] {
				break // a load ≥ 2^63 read as passing
			}
			p += t + 1
			dst[b] = i
			b++
			w = w >> uint(t) >> 1
		}
		if p == 0 {
			s, dst[b] = kThinningBall(frozen, s, inc, k, lim, nil)
			b++
			continue
		}
		s = jump(s, inc, p)
	}
	return s
}

// chooseTwoTests is chooseThin for K = 3, as thinTwoTests.
func chooseTwoTests[L Load](frozen []L, s, inc uint64, lim1, lim2 uint64, dst []uint32) uint64 {
	keep := [4]uint64{lim1, lim2, ^uint64(0)}
	var idx [thinWin]uint32
	for b := 0; b < len(dst); {
		valid, a, c := fillPass2(frozen, s, inc, &idx, windowWant(uint64(len(dst)-b)), lim1, lim2)
		c >>= 1
		p := 0
		for b < len(dst) {
			na := ^a & 1 // as thinTwoTests
			t := int(na + na&^c)
			if p+t >= valid {
				break
			}
			i := idx[(p+t)&(thinWin-1)]
			if uint64(frozen[i]) >= keep[t] {
				break // a load ≥ 2^63 read as passing
			}
			p += t + 1
			dst[b] = i
			b++
			a, c = a>>uint(t)>>1, c>>uint(t)>>1
		}
		if p == 0 {
			s, dst[b] = kThinningBall(frozen, s, inc, 3, 0, keep[:2])
			b++
			continue
		}
		s = jump(s, inc, p)
	}
	return s
}

// chooseRetry is retryWindows for frozen loads.
func chooseRetry[L Load](frozen []L, s, inc, lim uint64, pr *Probes, dst []uint32) uint64 {
	if lim >= 1<<63 {
		for b := range dst {
			s, dst[b] = retryChoice(frozen, s, inc, lim, pr)
		}
		return s
	}
	most := pr.Max
	var idx [thinWin]uint32
	for len(dst) > 0 {
		_, w := fillPass(frozen, s, inc, &idx, windowWant(uint64(len(dst))), lim)
		p, k := 0, 0
		for ; w != 0 && k < len(dst); k++ {
			t := bits.TrailingZeros64(w) & (thinWin - 1)
			i := idx[(p+t)&(thinWin-1)]
			if uint64(frozen[i]) >= lim {
				break // a load ≥ 2^63 read as passing
			}
			p += t + 1
			dst[k] = i
			most = max(most, uint64(t)+1)
			w = w >> uint(t) >> 1
		}
		pr.Total += uint64(p) // a probe each position the balls took
		pr.Max = most
		if p == 0 {
			s, dst[0] = retryChoice(frozen, s, inc, lim, pr)
			most = pr.Max
			k = 1
		} else {
			s = jump(s, inc, p)
		}
		dst = dst[k:]
	}
	return s
}

// retryChoice is one ball of Retry's choice on frozen loads, sample by
// sample: the batched windows' fallback.
func retryChoice[L Load](frozen []L, s, inc, lim uint64, pr *Probes) (uint64, uint32) {
	n := uint32(len(frozen))
	var i uint32
	k := uint64(1)
	s, i = bounded(s, inc, n)
	for uint64(frozen[i]) >= lim {
		s, i = bounded(s, inc, n)
		k++
	}
	pr.Total += k
	pr.Max = max(pr.Max, k)
	return s, i
}

// thinTwo is thinOne for K = 2 (Two-Thinning): a ball takes one sample if
// the first passes, else two.
func thinTwo[L Load](loads []L, s, inc, count, lim uint64, maxLoad L) (uint64, L) {
	if lim >= 1<<63 {
		return kThinningLoop(loads, s, inc, count, 2, lim, nil, maxLoad)
	}
	keep := [2]uint64{lim, ^uint64(0)}
	var idx [thinWin]uint32
	for count > 0 {
		valid, w := fillPass(loads, s, inc, &idx, windowWant(count), lim)
		p := 0
		for {
			t := int(^w & 1)
			if p+t >= valid {
				break
			}
			p += t + 1
			i := idx[(p-1)&(thinWin-1)]
			v := loads[i]
			if uint64(v) >= keep[t] {
				p -= t + 1
				break // raised past lim by this window's balls: read again from here
			}
			loads[i] = v + 1
			maxLoad = max(maxLoad, v+1)
			w = w >> uint(t) >> 1
			if count--; count == 0 {
				break
			}
		}
		if p == 0 {
			var i uint32
			s, i = kThinningBall(loads, s, inc, 2, lim, nil)
			v := loads[i] + 1
			loads[i] = v
			maxLoad = max(maxLoad, v)
			count--
			continue
		}
		s = jump(s, inc, p)
	}
	return s, maxLoad
}
