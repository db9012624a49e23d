package kernels

// Two samples with k binary queries each (Los and Sauerwald, "Balanced
// allocations with incomplete information: the power of two queries",
// ITCS 2022; core/process/kqueries.go cites the definitions): a ball
// samples two bins uniformly, with replacement; each sampled bin answers k
// yes-or-no queries "is your load at least f_j?" (k-threshold) or "are you
// among the k_j heaviest?" (k-quantile), and its level is the number of
// yes answers. The ball goes to the sample of lower level, and to the
// first sample when the levels are equal.

// MaxQueries bounds k, a choice of balloc's (the paper's k is
// O(log log n)): the loops keep the thresholds in local arrays.
const MaxQueries = 16

// KThreshold throws count balls by k-Threshold with fixed limits: a bin's
// level is the number of j with load ≥ limits[j] (core computes the
// limits ⌈t/n + g_j⌉ exactly for a stretch of balls: for integer loads,
// load ≥ x ⇔ load ≥ ⌈x⌉). It returns the new maximum load.
//
// Stream: PCG32.Bounded(n) for the first sample, then for the second,
// every ball. 1 ≤ len(limits) ≤ MaxQueries, 1 ≤ len(loads) ≤ MaxBins.
func KThreshold[L Load](loads []L, r *PCG32, count uint64, limits []uint64, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	var lim [MaxQueries]uint64
	k := copy(lim[:], limits)
	for q := range k {
		lim[q] = min(lim[q], 1<<63-1) // the mask test below is exact for limits < 2^63 and loads < 2^63
	}
	for ; count > 0; count-- {
		var i, j uint32
		s, i = boundedFast(s, inc, n)
		s, j = boundedFast(s, inc, n)
		v, w := uint64(loads[i]), uint64(loads[j])
		var a, b uint64
		for q := 0; q < k; q++ {
			// (lim − v − 1) >> 63 is 1 exactly when v ≥ lim (both < 2^63).
			a += (lim[q] - v - 1) >> 63
			b += (lim[q] - w - 1) >> 63
		}
		pick := -((b - a) >> 63) // all ones when b < a: the second sample
		i ^= (i ^ j) & uint32(pick)
		v ^= (v ^ w) & pick
		loads[i] = L(v + 1)
		maxLoad = max(maxLoad, L(v+1))
	}
	r.state = s
	return maxLoad
}

// LevelsKThreshold is KThreshold on the histogram: two uniform ranks a
// ball (a uniform rank is a uniform bin), their loads read from the
// levels. Stream: two ranks a ball.
func LevelsKThreshold(lv *Levels, r *PCG32, count uint64, limits []uint64) {
	s, inc, n := r.state, r.inc(), lv.n
	for ; count > 0; count-- {
		var x, y uint64
		s, x = rank(s, inc, n)
		s, y = rank(s, inc, n)
		i, j := lv.Level(x), lv.Level(y)
		v, w := lv.lo+uint64(i), lv.lo+uint64(j)
		a, b := 0, 0
		for _, lim := range limits {
			if v >= lim {
				a++
			}
			if w >= lim {
				b++
			}
		}
		if b < a {
			i = j
		}
		lv.Move(i)
	}
	r.state = s
}

// KQuantile throws count balls by k-Quantile on loads, whose counts and
// boundaries q holds (NewKThinningCounts with k[j] = ⌈δ_j n⌉: the load
// b[j] of the k[j]-th heaviest bin and the bins above it), and returns the
// new maximum load.
//
// "Among the k[j] heaviest" ranks the bins by load with ties in a uniformly
// random order, as Quantile does: a sampled bin of load v takes one uniform
// position u among the count(v) bins at v, the same for all its queries,
// and is among the k[j] heaviest when v > b[j], or v = b[j] and
// u < k[j] − above[j] (bins above b[j] come first). Every j with b[j] = v
// has the same bins above, so one position answers them all consistently.
//
// Stream per ball: PCG32.Bounded(n) for the first sample, then for the
// second; then PCG32.Bounded(count(v)) for the first sample's position
// among the bins at its load, then the same for the second — both drawn
// for every ball and ignored when the load is no boundary, so that the
// loop runs without a branch on the answers (as Quantile). 1 ≤ len(q.k) ≤
// MaxQueries, 1 ≤ len(loads) ≤ MaxBins.
func KQuantile[L Load](loads []L, r *PCG32, count uint64, q *KThinningCounts, maxLoad L) L {
	switch len(q.k) {
	case 2:
		return kQuantile2(loads, r, count, q, maxLoad)
	case 3, 4:
		return kQuantile4(loads, r, count, q, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	ring := q.ring
	cnt, mask, lo := ring.cnt, ring.mask, ring.lo
	var ks, bs, above [MaxQueries]uint64
	m := copy(ks[:], q.k)
	copy(bs[:], q.b)
	copy(above[:], q.above)
	for ; count > 0; count-- {
		var i, j, x, y uint32
		s, i = boundedFast(s, inc, n)
		s, j = boundedFast(s, inc, n)
		v, w := uint64(loads[i]), uint64(loads[j])
		s, x = boundedFast(s, inc, cnt[v&mask])
		s, y = boundedFast(s, inc, cnt[w&mask])
		var a, b uint64
		for q := 0; q < m; q++ {
			// Yes: v > b[q], or v = b[q] and the position is below
			// k[q] − above[q]; with masks, not branches (loads below 2^63,
			// positions below 2^32).
			bq, need := bs[q], ks[q]-above[q]
			d := v ^ bq
			a += (bq-v)>>63 | (1^(d|-d)>>63)&((uint64(x)-need)>>63)
			d = w ^ bq
			b += (bq-w)>>63 | (1^(d|-d)>>63)&((uint64(y)-need)>>63)
		}
		pick := -((b - a) >> 63) // all ones when b < a: the second sample
		i ^= (i ^ j) & uint32(pick)
		v ^= (v ^ w) & pick
		loads[i] = L(v + 1)
		maxLoad = max(maxLoad, L(v+1))
		if v+1-lo > mask {
			ring.lo = lo
			ring.grow(v + 1)
			cnt, mask = ring.cnt, ring.mask
		}
		cnt[v&mask]--
		cnt[(v+1)&mask]++
		for q := 0; q < m; q++ {
			// As kThinningQuantilePlain: a bin that left b[q] is one more
			// above it; at k[q] the k[q] heaviest end at b[q] + 1.
			d := v ^ bs[q]
			if above[q] += 1 ^ (d|-d)>>63; above[q] == ks[q] {
				bs[q]++
				above[q] = ks[q] - uint64(cnt[bs[q]&mask])
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

// kQuantile2 is KQuantile for two queries, the paper's case, with the two
// boundaries in scalars rather than arrays walked by a loop: the same
// draws and the same loads.
func kQuantile2[L Load](loads []L, r *PCG32, count uint64, q *KThinningCounts, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	ring := q.ring
	cnt, mask, lo := ring.cnt, ring.mask, ring.lo
	k0, k1 := q.k[0], q.k[1]
	b0, b1 := q.b[0], q.b[1]
	a0, a1 := q.above[0], q.above[1]
	for ; count > 0; count-- {
		var i, j, x, y uint32
		s, i = boundedFast(s, inc, n)
		s, j = boundedFast(s, inc, n)
		v, w := uint64(loads[i]), uint64(loads[j])
		s, x = boundedFast(s, inc, cnt[v&mask])
		s, y = boundedFast(s, inc, cnt[w&mask])
		need0, need1 := k0-a0, k1-a1
		a := yes(v, b0, uint64(x), need0) + yes(v, b1, uint64(x), need1)
		b := yes(w, b0, uint64(y), need0) + yes(w, b1, uint64(y), need1)
		pick := -((b - a) >> 63) // all ones when b < a: the second sample
		i ^= (i ^ j) & uint32(pick)
		v ^= (v ^ w) & pick
		loads[i] = L(v + 1)
		maxLoad = max(maxLoad, L(v+1))
		if v+1-lo > mask {
			ring.lo = lo
			ring.grow(v + 1)
			cnt, mask = ring.cnt, ring.mask
		}
		cnt[v&mask]--
		cnt[(v+1)&mask]++
		d := v ^ b0
		if a0 += 1 ^ (d|-d)>>63; a0 == k0 {
			b0++
			a0 = k0 - uint64(cnt[b0&mask])
		}
		d = v ^ b1
		if a1 += 1 ^ (d|-d)>>63; a1 == k1 {
			b1++
			a1 = k1 - uint64(cnt[b1&mask])
		}
		if v == lo && cnt[v&mask] == 0 {
			lo++
		}
	}
	r.state = s
	ring.lo = lo
	q.b[0], q.b[1] = b0, b1
	q.above[0], q.above[1] = a0, a1
	return maxLoad
}

// kQuantile4 is KQuantile for three or four queries, unrolled over four
// boundaries in local arrays indexed by constants. Three queries take a
// fourth that never says yes and never moves: boundary 2^63 − 1 (above
// every load, which stays below 2^63) with k = n + 1 (its bins above, 0,
// never reach it). The same draws and the same loads.
func kQuantile4[L Load](loads []L, r *PCG32, count uint64, q *KThinningCounts, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	ring := q.ring
	cnt, mask, lo := ring.cnt, ring.mask, ring.lo
	ks := [4]uint64{uint64(n) + 1, uint64(n) + 1, uint64(n) + 1, uint64(n) + 1}
	bs := [4]uint64{1<<63 - 1, 1<<63 - 1, 1<<63 - 1, 1<<63 - 1}
	var above [4]uint64
	m := copy(ks[:], q.k)
	copy(bs[:], q.b)
	copy(above[:], q.above)
	for ; count > 0; count-- {
		var i, j, x, y uint32
		s, i = boundedFast(s, inc, n)
		s, j = boundedFast(s, inc, n)
		v, w := uint64(loads[i]), uint64(loads[j])
		s, x = boundedFast(s, inc, cnt[v&mask])
		s, y = boundedFast(s, inc, cnt[w&mask])
		n0, n1, n2, n3 := ks[0]-above[0], ks[1]-above[1], ks[2]-above[2], ks[3]-above[3]
		a := yes(v, bs[0], uint64(x), n0) + yes(v, bs[1], uint64(x), n1) + yes(v, bs[2], uint64(x), n2) + yes(v, bs[3], uint64(x), n3)
		b := yes(w, bs[0], uint64(y), n0) + yes(w, bs[1], uint64(y), n1) + yes(w, bs[2], uint64(y), n2) + yes(w, bs[3], uint64(y), n3)
		pick := -((b - a) >> 63) // all ones when b < a: the second sample
		i ^= (i ^ j) & uint32(pick)
		v ^= (v ^ w) & pick
		loads[i] = L(v + 1)
		maxLoad = max(maxLoad, L(v+1))
		if v+1-lo > mask {
			ring.lo = lo
			ring.grow(v + 1)
			cnt, mask = ring.cnt, ring.mask
		}
		cnt[v&mask]--
		cnt[(v+1)&mask]++
		for q := range 4 {
			d := v ^ bs[q]
			if above[q] += 1 ^ (d|-d)>>63; above[q] == ks[q] {
				bs[q]++
				above[q] = ks[q] - uint64(cnt[bs[q]&mask])
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

// yes is 1 when a bin at load v, at position u among the bins at v, is
// among the k heaviest: v > b, or v = b and u < need = k − (bins above b).
func yes(v, b, u, need uint64) uint64 {
	d := v ^ b
	return (b-v)>>63 | (1^(d|-d)>>63)&((u-need)>>63)
}

// LevelsKQuantile is KQuantile on the histogram: ranks count from the least
// loaded, so the k[j] heaviest positions are the ranks ≥ n − k[j], and a
// uniform rank is a uniform bin with ties in a uniform order. Stream: two
// ranks a ball.
func LevelsKQuantile(lv *Levels, r *PCG32, count uint64, k []uint64) {
	s, inc, n := r.state, r.inc(), lv.n
	for ; count > 0; count-- {
		var x, y uint64
		s, x = rank(s, inc, n)
		s, y = rank(s, inc, n)
		a, b := 0, 0
		for _, kj := range k {
			if x >= n-kj {
				a++
			}
			if y >= n-kj {
				b++
			}
		}
		if b < a {
			x = y
		}
		lv.Move(lv.Level(x))
	}
	r.state = s
}
