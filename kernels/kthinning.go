package kernels

import "slices"

// K-Thinning: a ball takes up to K uniform samples; sample j < K is kept
// when it passes test j, and the K-th is kept whatever its load. Two
// families of tests (core/process/kthinning.go cites them):
//
//   - limits: sample j passes when its load is below limits[j−1], the
//     integer ⌈t/n + θ_j⌉ that core computes exactly for a stretch of balls
//     (for integer loads, load < x ⇔ load < ⌈x⌉), as for Two-Thinning;
//   - quantiles: sample j passes when its load is at most the load at
//     position idx_j of the loads sorted in ascending order (the
//     dissertation's rule, with idx_j = ⌊n(1 − 2^(−1/c))⌋ for c = K − j + 1
//     choices left), kept O(1) by KThinningCounts.

// KThinning throws count balls by K-Thinning with fixed acceptance limits,
// K = len(limits) + 1 ≥ 2, and returns the new maximum load. With one limit
// it is TwoThinning, draw for draw.
//
// Stream: PCG32.Bounded(n) for each sample taken: the first, then one more
// after each rejection, at most K. 1 ≤ len(loads) ≤ MaxBins.
func KThinning[L Load](loads []L, r *PCG32, count uint64, limits []uint64, maxLoad L) L {
	one := true
	for _, lim := range limits {
		one = one && lim == limits[0]
	}
	switch {
	case one && len(limits) == 1:
		r.state, maxLoad = thinTwo(loads, r.state, r.inc(), count, limits[0], maxLoad)
	case one:
		r.state, maxLoad = thinOne(loads, r.state, r.inc(), count, len(limits)+1, limits[0], maxLoad)
	default:
		r.state, maxLoad = thinMany(loads, r.state, r.inc(), count, limits, maxLoad)
	}
	return maxLoad
}

// KThinningCounts keeps K-Thinning's quantile tests O(1) beside the load
// array, with Quantile's machinery: the ring of counts of bins per load of
// a QuantileCounts (its own boundary unused), and for each test j the load
// b[j] of the k[j]-th heaviest bin, k[j] = n − idx_j, with the number of
// bins above it. The bin at ascending position idx_j is the k[j]-th
// heaviest, so a sample passes test j exactly when its load is ≤ b[j].
// Each boundary moves as Quantile's does: up by one when the bins above it
// reach k[j].
type KThinningCounts struct {
	ring  *QuantileCounts
	k     []uint64 // 1 ≤ k[j] ≤ n
	b     []uint64
	above []uint64 // bins with load > b[j], < k[j]
}

// maxKThinningTests bounds K − 1 (core's --k is at most 64).
const maxKThinningTests = 63

// NewKThinningCounts is the state of n empty bins for the tests of k
// (k[j] = n − idx_j, 1 ≤ k[j] ≤ n ≤ MaxBins, 1 ≤ len(k) ≤ 63).
func NewKThinningCounts(n uint64, k []uint64) *KThinningCounts {
	if len(k) == 0 || len(k) > maxKThinningTests {
		panic("kernels: NewKThinningCounts: 1 to 63 tests")
	}
	return &KThinningCounts{ring: NewQuantileCounts(n, 1), k: append([]uint64(nil), k...),
		b: make([]uint64, len(k)), above: make([]uint64, len(k))}
}

// KThinningQuantile throws count balls by K-Thinning with the quantile
// tests of q, K = len(q.k) + 1 ≥ 2, and returns the new maximum load.
// Ties: every bin at the boundary load passes (the authors' test is
// load ≤ sorted(loads)[idx]).
//
// Stream: as KThinning, PCG32.Bounded(n) for each sample taken.
// 1 ≤ len(loads) ≤ MaxBins.
func KThinningQuantile[L Load](loads []L, r *PCG32, count uint64, q *KThinningCounts, maxLoad L) L {
	if len(q.k) != 2 || max(q.b[0], q.b[1]) >= 1<<62 {
		return kThinningQuantilePlain(loads, r, count, q, maxLoad)
	}
	return kThinningQuantile3(loads, r, count, q, maxLoad)
}

// kThinningQuantile3 is KThinningQuantile for K = 3 by windows
// (thinwindow.go), the two boundaries and their counts in locals: sample j
// passes when its load is below b_j + 1. A boundary moves about once in
// n/2 balls; the window is then read again, so within one the limits are
// fixed, as windows need.
func kThinningQuantile3[L Load](loads []L, r *PCG32, count uint64, q *KThinningCounts, maxLoad L) L {
	inc := r.inc()
	ring := q.ring
	var idx [thinWin]uint32
	for count > 0 {
		cnt, mask, lo := ring.cnt, ring.mask, ring.lo
		b0, b1 := q.b[0], q.b[1]
		// left_j = k_j − above_j: the bins still to pass b_j before it moves
		// (one register each, not two).
		left0, left1 := q.k[0]-q.above[0], q.k[1]-q.above[1]
		keep := [4]uint64{b0 + 1, b1 + 1, ^uint64(0)} // the limit a ball's sample t + 1 was kept under
		valid, a, c := fillPass2(loads, r.state, inc, &idx, windowWant(count), keep[0], keep[1])
		c >>= 1
		p, placed := 0, uint64(0)
		for placed < count {
			na := ^a & 1 // as thinTwoTests
			t := int(na + na&^c)
			if p+t >= valid {
				break
			}
			i := idx[(p+t)&(thinWin-1)]
			v := uint64(loads[i])
			if v >= keep[t&3] {
				break // raised past its limit by this window's balls: read again from here
			}
			p += t + 1
			a, c = a>>uint(t)>>1, c>>uint(t)>>1
			loads[i] = L(v + 1)
			maxLoad = max(maxLoad, L(v+1))
			placed++
			if v+1-lo > mask {
				lo = leastLoad(cnt, mask, lo)
				if v+1-lo > mask {
					ring.lo = lo
					ring.grow(v + 1)
					cnt, mask = ring.cnt, ring.mask
				}
			}
			cnt[v&mask]--
			cnt[(v+1)&mask]++
			// As kThinningQuantilePlain; a move ends the window.
			left0 -= uint64(b2u(v == b0))
			left1 -= uint64(b2u(v == b1))
			if left0 == 0 || left1 == 0 {
				// above_j = k_j − (bins at b_j + 1), so left_j is that count.
				if left0 == 0 {
					b0++
					left0 = uint64(cnt[b0&mask])
				}
				if left1 == 0 {
					b1++
					left1 = uint64(cnt[b1&mask])
				}
				break
			}
		}
		// lo, the least load, is brought up to date here and before the
		// ring would grow (loads only rise, so it is the least level with
		// bins), rather than a ball at a time: the ring is then the plain
		// loop's, level for level.
		ring.lo = leastLoad(cnt, mask, lo)
		q.b[0], q.b[1] = b0, b1
		q.above[0], q.above[1] = q.k[0]-left0, q.k[1]-left1
		r.state = jump(r.state, inc, p)
		count -= placed
		if placed == 0 {
			// A fresh window that the ball does not fit: its samples one by
			// one.
			maxLoad = kThinningQuantilePlain(loads, r, 1, q, maxLoad)
			count--
		}
	}
	return maxLoad
}

// leastLoad is the least load from lo up with bins in the ring cnt.
func leastLoad(cnt []uint32, mask, lo uint64) uint64 {
	for cnt[lo&mask] == 0 {
		lo++
	}
	return lo
}

// kThinningQuantilePlain is KThinningQuantile ball by ball (the loop
// before windows): for K ≠ 3, and for boundaries of 2^62 or more, which
// the portable fill's sign test cannot read.
func kThinningQuantilePlain[L Load](loads []L, r *PCG32, count uint64, q *KThinningCounts, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	ring := q.ring
	cnt, mask, lo := ring.cnt, ring.mask, ring.lo
	// The boundaries live in local arrays for the chunk (K ≤ maxK), where
	// the compiler keeps them off the heap-held slices.
	var ks, bs, above [maxKThinningTests]uint64
	m := copy(ks[:], q.k)
	copy(bs[:], q.b)
	copy(above[:], q.above)
	for ; count > 0; count-- {
		var i uint32
		s, i = boundedFast(s, inc, n)
		for j := 0; j < m; j++ {
			if uint64(loads[i]) <= bs[j] {
				break
			}
			s, i = boundedFast(s, inc, n)
		}
		v := uint64(loads[i])
		loads[i] = L(v + 1)
		maxLoad = max(maxLoad, L(v+1))
		if v+1-lo > mask {
			ring.lo = lo
			ring.grow(v + 1)
			cnt, mask = ring.cnt, ring.mask
		}
		cnt[v&mask]--
		cnt[(v+1)&mask]++
		for j := 0; j < m; j++ {
			// A bin that left b for b+1 is one more above b, counted with a
			// mask rather than a branch (v = b is frequent and irregular);
			// at k[j] the k[j] heaviest end at b+1 (the bin just moved is
			// among them).
			d := v ^ bs[j]
			if above[j] += 1 ^ (d|-d)>>63; above[j] == ks[j] {
				bs[j]++
				above[j] = ks[j] - uint64(cnt[bs[j]&mask])
			}
		}
		if v == lo && cnt[v&mask] == 0 {
			lo++
		}
	}
	r.state = s
	ring.lo = lo
	copy(q.b, bs[:m])
	copy(q.above, above[:m])
	return maxLoad
}

// LevelsKThinning throws count balls by K-Thinning with fixed acceptance
// limits on the histogram (see KThinning). Stream: a rank for each sample
// taken; with one limit it is LevelsTwoThinning.
func LevelsKThinning(lv *Levels, r *PCG32, count uint64, limits []uint64) {
	s, inc, n := r.state, r.inc(), lv.n
	for ; count > 0; count-- {
		var x uint64
		s, x = rank(s, inc, n)
		i := lv.Level(x)
		for _, lim := range limits {
			if lv.lo+uint64(i) < lim {
				break
			}
			s, x = rank(s, inc, n)
			i = lv.Level(x)
		}
		lv.Move(i)
	}
	r.state = s
}

// LevelsKThinningQuantile throws count balls by K-Thinning with quantile
// tests on the histogram: ranks count from the least loaded, so the load at
// ascending position idx[j] is the level of rank idx[j], and a sample
// passes test j when its level is at most that one. Stream: a rank for each
// sample taken.
func LevelsKThinningQuantile(lv *Levels, r *PCG32, count uint64, idx []uint64) {
	s, inc, n := r.state, r.inc(), lv.n
	for ; count > 0; count-- {
		var x uint64
		s, x = rank(s, inc, n)
		i := lv.Level(x)
		for _, p := range idx {
			if i <= lv.Level(p) {
				break
			}
			s, x = rank(s, inc, n)
			i = lv.Level(x)
		}
		lv.Move(i)
	}
	r.state = s
}

// StartKThinning makes q count loads (an initial load vector;
// NewKThinningCounts counts empty bins) and sets each test's boundary, the
// load of the k[j]-th heaviest bin, and the bins above it: O(n log n), once
// a trial.
func StartKThinning[L Load](q *KThinningCounts, loads []L) {
	recount(q.ring, loads)
	sorted := make([]uint64, len(loads))
	for i, v := range loads {
		sorted[i] = uint64(v)
	}
	slices.Sort(sorted)
	n := len(sorted)
	for j, k := range q.k {
		b := sorted[n-int(k)]
		q.b[j] = b
		above, _ := slices.BinarySearch(sorted, b+1)
		q.above[j] = uint64(n - above)
	}
}
