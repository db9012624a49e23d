package kernels

// Quantile(δ) (Los and Sauerwald): a ball samples a bin; if the bin is
// among the k = ⌈δn⌉ heaviest, the ball goes to a second uniform sample,
// else to the first. "Among the k heaviest" ranks the bins by load with
// ties in a uniformly random order, as the authors' code does by sampling
// a position of the sorted load vector (Dim131/Batched-22,
// hybrid_quantile): a bin of load v, with A bins heavier and E bins at v,
// is among the k heaviest with probability clamp((k − A)/E, 0, 1).
//
// QuantileCounts keeps that test O(1) beside the load array: the number of
// bins at each load in use (a ring over [least, largest]), the load b of
// the k-th heaviest bin and the number of bins above it. A bin above b is
// heavy, a bin below it light, and a bin at b heavy with probability
// (k − above)/count(b), which is the only case that draws a coin. A move
// from v to v+1 changes one count each way, and b moves up by one when the
// bins above it reach k.
type QuantileCounts struct {
	k     uint64   // the heaviest positions, 1 ≤ k ≤ n
	lo    uint64   // the least load
	b     uint64   // the load of the k-th heaviest bin
	above uint64   // bins with load > b, < k
	cnt   []uint32 // cnt[v & mask]: bins with load v, for lo ≤ v ≤ the largest load
	mask  uint64
}

// NewQuantileCounts is the state of n empty bins for the k heaviest,
// 1 ≤ k ≤ n ≤ MaxBins.
func NewQuantileCounts(n, k uint64) *QuantileCounts {
	q := &QuantileCounts{k: k, cnt: make([]uint32, 64), mask: 63}
	q.cnt[0] = uint32(n)
	return q
}

// grow doubles the ring so that it holds the loads lo … hi.
func (q *QuantileCounts) grow(hi uint64) {
	size := uint64(len(q.cnt))
	for hi-q.lo > size-1 {
		size *= 2
	}
	c := make([]uint32, size)
	for v := q.lo; v < q.lo+uint64(len(q.cnt)); v++ {
		c[v&(size-1)] = q.cnt[v&q.mask]
	}
	q.cnt, q.mask = c, size-1
}

// Quantile throws count balls by Quantile(δ) on loads, whose counts q holds,
// and returns the new maximum load. A non-nil coin makes it Mixed-Quantile
// (Los and Sauerwald, SPAA'23; the authors' mixed_quantile): a ball takes
// the quantile step with the coin's probability η, else it keeps its first
// bin (One-Choice); the coin is flipped first, every ball.
//
// Stream per ball: PCG32.Bounded(n) for the first bin, PCG32.Bounded(n) for
// the second, and PCG32.Bounded(count(b)) for the tie at the boundary load
// b — all three drawn for every ball and the unused ones ignored, so that
// the loop runs without a branch on the outcome (heavy or light is a fair
// coin at δ = 1/2, which a branch would mispredict every other ball). A
// first bin at load b is heavy when the tie draw is below k − above, which
// has probability (k − above)/count(b), the chance that its uniform position
// among the bins at b falls in the k heaviest. 1 ≤ len(loads) ≤ MaxBins.
func Quantile[L Load](loads []L, r *PCG32, count uint64, q *QuantileCounts, coin *Bernoulli, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	k, b, above, lo := q.k, q.b, q.above, q.lo
	cnt, mask := q.cnt, q.mask
	atB := cnt[b&mask] // bins at b, kept in a register: ≥ 1, the k-th heaviest bin is at b
	for ; count > 0; count-- {
		var i, j, x uint32
		use := uint64(1)
		if coin != nil { // the same branch every ball: predicted
			var u bool
			s, u = coin.flip(s, inc)
			use = uint64(b2u(u))
		}
		s, i = boundedFast(s, inc, n)
		s, j = boundedFast(s, inc, n)
		s, x = boundedFast(s, inc, atB)
		v, w := uint64(loads[i]), uint64(loads[j])
		// Heavy: v > b, or v = b and x < k − above; computed with masks, not
		// branches (loads are below 2^63, x below 2^32).
		gt := (b - v) >> 63
		d := v ^ b
		eq := 1 ^ (d|-d)>>63
		lt := (uint64(x) - (k - above)) >> 63
		pick := -((gt | eq&lt) & use) // all ones when heavy and the quantile step is taken
		i ^= (i ^ j) & uint32(pick)
		v ^= (v ^ w) & pick
		loads[i] = L(v + 1)
		maxLoad = max(maxLoad, L(v+1))
		if v+1-lo > mask {
			q.lo = lo
			q.grow(v + 1)
			cnt, mask = q.cnt, q.mask
		}
		cnt[v&mask]--
		cnt[(v+1)&mask]++
		d = v ^ b
		left := 1 ^ (d|-d)>>63 // the bin left b
		d = (v + 1) ^ b
		atB += uint32(1^(d|-d)>>63) - uint32(left) // … or came to it
		if above += left; above == k {             // the k heaviest now end at b+1
			b++
			atB = cnt[b&mask]
			above = k - uint64(atB)
		}
		if v == lo && cnt[v&mask] == 0 {
			lo++
		}
	}
	r.state = s
	q.b, q.above, q.lo = b, above, lo
	return maxLoad
}

// LevelsQuantile throws count balls by Quantile(δ) on the histogram: ranks
// count from the least loaded (Levels), so the k heaviest positions are the
// ranks ≥ n − k, and a uniform rank is a uniform bin with ties in a uniform
// order. Stream: the coin when there is one (Mixed-Quantile), then two ranks
// per ball, the second used when the first is heavy (drawn either way, as in
// Quantile).
func LevelsQuantile(lv *Levels, r *PCG32, count uint64, k uint64, coin *Bernoulli) {
	s, inc, n := r.state, r.inc(), lv.n
	for ; count > 0; count-- {
		var x, y uint64
		use := true
		if coin != nil {
			s, use = coin.flip(s, inc)
		}
		s, x = rank(s, inc, n)
		s, y = rank(s, inc, n)
		if use && x >= n-k {
			x = y
		}
		lv.Move(lv.Level(x))
	}
	r.state = s
}

// StartQuantile makes q count loads (an initial load vector;
// NewQuantileCounts counts empty bins).
func StartQuantile[L Load](q *QuantileCounts, loads []L) { recount(q, loads) }

// recount makes q count the loads of frozen afresh: O(n + loads in use).
func recount[L Load](q *QuantileCounts, frozen []L) {
	lo, hi := uint64(frozen[0]), uint64(frozen[0])
	for _, v := range frozen {
		lo, hi = min(lo, uint64(v)), max(hi, uint64(v))
	}
	size := uint64(64)
	for hi-lo > size-1 {
		size *= 2
	}
	if uint64(len(q.cnt)) < size {
		q.cnt = make([]uint32, size)
	}
	clear(q.cnt)
	q.mask, q.lo = uint64(len(q.cnt))-1, lo
	for _, v := range frozen {
		q.cnt[uint64(v)&q.mask]++
	}
	above := uint64(0) // bins above b, from the top down
	for b := hi; ; b-- {
		if c := uint64(q.cnt[b&q.mask]); above+c >= q.k {
			q.b, q.above = b, above
			return
		}
		above += uint64(q.cnt[b&q.mask])
	}
}

// BatchedQuantile throws count balls by Quantile(δ) in the b-Batch setting:
// each ball's rank test reads the loads at its batch's start (bt's frozen
// loads, whose counts q holds, recounted when a batch ends: O(n) a batch,
// so O(n/b) a ball). Stream per ball: as Quantile (with its coin for
// Mixed-Quantile). 1 ≤ len(loads) ≤ MaxBins.
func BatchedQuantile[L Load](loads []L, r *PCG32, count uint64, q *QuantileCounts, coin *Bernoulli, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	frozen := bt.frozen
	var chosen [stageBalls]uint32
	for count > 0 {
		c := bt.next(count, 2)
		b, need, atB := q.b, q.k-q.above, q.cnt[q.b&q.mask]
		for k := range c {
			var i, j, x uint32
			use := true
			if coin != nil {
				s, use = coin.flip(s, inc)
			}
			s, i = boundedFast(s, inc, n)
			s, j = boundedFast(s, inc, n)
			s, x = boundedFast(s, inc, atB)
			if v := uint64(frozen[i]); use && (v > b || (v == b && uint64(x) < need)) {
				i = j
			}
			chosen[k] = i
		}
		ends := bt.ends
		maxLoad = placeBatch(bt, loads, chosen[:c], maxLoad)
		if bt.ends != ends {
			recount(q, frozen)
		}
		count -= uint64(c)
	}
	r.state = s
	return maxLoad
}
