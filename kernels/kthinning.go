package kernels

import (
	"slices"
	"unsafe"
)

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
// (thinwindow.go): sample j passes when its load is below b_j + 1. A
// boundary moves about once in n/2 balls; the window is then read again,
// so within one the limits are fixed, as windows need. A window's balls
// are walked by quantWalk32 (assembly, uint32 loads on amd64) or
// quantWalkGo, which stop where a boundary moves or the ring would grow.
func kThinningQuantile3[L Load](loads []L, r *PCG32, count uint64, q *KThinningCounts, maxLoad L) L {
	inc := r.inc()
	ring := q.ring
	var idx [thinWin]uint32
	var w quantWalk
	asm := fillAsm && unsafe.Sizeof(loads[0]) == 4
	w.loads, w.idx = unsafe.Pointer(&loads[0]), &idx
	w.lo, w.b0, w.b1 = ring.lo, q.b[0], q.b[1]
	// left_j = k_j − above_j: the bins still to pass b_j before it moves.
	w.left0, w.left1 = q.k[0]-q.above[0], q.k[1]-q.above[1]
	w.maxLoad, w.rem = uint64(maxLoad), count
	for w.rem > 0 {
		w.keep = [3]uint64{w.b0 + 1, w.b1 + 1, ^uint64(0)} // the limit a ball's sample t + 1 was kept under
		var valid int
		valid, w.a, w.c = fillPass2(loads, r.state, inc, &idx, windowWant(w.rem), w.keep[0], w.keep[1])
		w.c >>= 1
		w.p, w.valid = 0, int64(valid)
		before := w.rem
		for {
			w.cnt, w.mask = &ring.cnt[0], ring.mask
			if asm {
				quantWalk32(&w)
			} else {
				quantWalkGo(&w, loads, ring.cnt)
			}
			if w.exit != quantGrow {
				break
			}
			// The ball at p would reach past the ring: lo up to date, and
			// the ring grown if it still would.
			i := idx[(int(w.p)+int(quantT(w.a, w.c)))&(thinWin-1)]
			v := uint64(loads[i])
			w.lo = leastLoad(ring.cnt, ring.mask, w.lo)
			if v+1-w.lo > ring.mask {
				ring.lo = w.lo
				ring.grow(v + 1)
			}
		}
		if w.left0 == 0 || w.left1 == 0 {
			// above_j = k_j − (bins at b_j + 1), so left_j is that count.
			if w.left0 == 0 {
				w.b0++
				w.left0 = uint64(ring.cnt[w.b0&ring.mask])
			}
			if w.left1 == 0 {
				w.b1++
				w.left1 = uint64(ring.cnt[w.b1&ring.mask])
			}
		}
		r.state = jump(r.state, inc, int(w.p))
		if w.rem == before {
			// A fresh window that the ball does not fit: its samples one by
			// one, through the plain loop and q.
			ring.lo = leastLoad(ring.cnt, ring.mask, w.lo)
			q.b[0], q.b[1] = w.b0, w.b1
			q.above[0], q.above[1] = q.k[0]-w.left0, q.k[1]-w.left1
			w.maxLoad = uint64(kThinningQuantilePlain(loads, r, 1, q, L(w.maxLoad)))
			w.lo, w.b0, w.b1 = ring.lo, q.b[0], q.b[1]
			w.left0, w.left1 = q.k[0]-q.above[0], q.k[1]-q.above[1]
			w.rem--
		}
	}
	// lo, the least load, is brought up to date here and before the ring
	// would grow (loads only rise, so it is the least level with bins),
	// rather than a ball at a time: the ring is then the plain loop's,
	// level for level.
	ring.lo = leastLoad(ring.cnt, ring.mask, w.lo)
	q.b[0], q.b[1] = w.b0, w.b1
	q.above[0], q.above[1] = q.k[0]-w.left0, q.k[1]-w.left1
	return L(w.maxLoad)
}

// quantWalk is a window's walk of kThinningQuantile3, in memory for the
// assembly (field offsets fixed in thinfill_amd64.s).
type quantWalk struct {
	loads   unsafe.Pointer   // 0: the load array (uint32 for the assembly)
	idx     *[thinWin]uint32 // 8
	cnt     *uint32          // 16: the ring of counts per load
	mask    uint64           // 24
	lo      uint64           // 32: at most the least load
	b0, b1  uint64           // 40, 48: the boundaries
	left0   uint64           // 56: bins to pass b0 before it moves
	left1   uint64           // 64
	keep    [3]uint64        // 72: the limit sample t + 1 was kept under
	a, c    uint64           // 96, 104: the tests' masks from position p
	p       int64            // 112: the next ball's first position
	valid   int64            // 120
	rem     uint64           // 128: balls left in the call
	maxLoad uint64           // 136
	exit    uint64           // 144: why the walk stopped
}

// Why a walk stops: the window's end, a bin raised past its limit, the
// call's last ball or a boundary's move (quantEnd: the caller checks
// left0 and left1), or a ball that would reach past the ring (quantGrow:
// nothing of it done).
const (
	quantEnd  = 0
	quantGrow = 1
)

// quantT is the sample a ball keeps, from the tests' masks (as
// thinTwoTests): 0 if test 1 passes, else 1 if test 2 does, else 2.
func quantT(a, c uint64) uint64 {
	na := ^a & 1
	return na + na&^c
}

// quantWalkGo walks w's window ball by ball (the portable walk).
func quantWalkGo[L Load](w *quantWalk, loads []L, cnt []uint32) {
	mask, lo := w.mask, w.lo
	a, c, p := w.a, w.c, int(w.p)
	left0, left1, maxLoad, rem := w.left0, w.left1, w.maxLoad, w.rem
	exit := uint64(quantEnd)
	for {
		t := int(quantT(a, c))
		if p+t >= int(w.valid) {
			break
		}
		i := w.idx[(p+t)&(thinWin-1)]
		v := uint64(loads[i])
		if v >= w.keep[t&3] {
			break // raised past its limit by this window's balls: read again from here
		}
		if v+1-lo > mask {
			exit = quantGrow
			break
		}
		p += t + 1
		a, c = a>>uint(t)>>1, c>>uint(t)>>1
		loads[i] = L(v + 1)
		maxLoad = max(maxLoad, v+1)
		cnt[v&mask]--
		cnt[(v+1)&mask]++
		left0 -= uint64(b2u(v == w.b0))
		left1 -= uint64(b2u(v == w.b1))
		rem--
		if rem == 0 || left0 == 0 || left1 == 0 {
			break
		}
	}
	w.a, w.c, w.p = a, c, int64(p)
	w.left0, w.left1, w.maxLoad, w.rem, w.exit = left0, left1, maxLoad, rem, exit
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
