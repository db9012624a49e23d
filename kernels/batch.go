package kernels

// b-Batch (Berenbrink, Czumaj, Englert, Friedetzky, Nagel 2012; Los and
// Sauerwald, "Balanced Allocations with the Choice of Noise", §2): balls come
// in batches of b, and every ball of a batch compares the loads as they were
// at the start of its batch. The ball goes to the sample whose frozen load is
// smaller, ties to i, the first sample (a uniformly random one in law).
//
// Cost. The frozen loads are a second array. With b < n the batch's bins are
// listed and added to it at the batch's end, O(1) per ball; with b ≥ n the
// array is copied at the end, O(n/b) ≤ O(1) per ball. No O(n) work per batch
// when b ≪ n, and memory O(n + min(b, n)).

// Batch is the state of a b-Batch run carried across calls.
type Batch[L loadValue] struct {
	b        uint64
	t        uint64 // balls placed so far
	weighted bool
	frozen   []L // loads at the start of the current batch
	pending  []uint32
	pendW    []L // weighted runs: weights of the pending balls

	// The largest gap at any batch end so far: for integer loads as
	// n·max − t (exact), for real loads as max − total/n.
	ends     uint64
	bestUnit uint64
	bestReal float64
	total    float64 // weighted runs: the weight placed so far

	retryWindows bool // BatchedRetry: the last chunk retried on ≥ 1/8 of its balls
}

// NewBatch returns the state for n bins and batches of b ≥ 1 balls.
func NewBatch[L loadValue](n int, b uint64, weighted bool) *Batch[L] {
	bt := &Batch[L]{b: b, weighted: weighted, frozen: make([]L, n)}
	if b < uint64(n) {
		bt.pending = make([]uint32, 0, b)
		if weighted {
			bt.pendW = make([]L, 0, b)
		}
	}
	return bt
}

// BatchMemory is the bytes NewBatch allocates for n bins and batches of b.
func BatchMemory(n, b uint64, loadBytes int, weighted bool) uint64 {
	per := uint64(4)
	if weighted {
		per += uint64(loadBytes)
	}
	return n*uint64(loadBytes) + min(b, n)*per
}

// BatchEnds reports how many batches have ended and the largest gap at their
// ends (max load − t/n, in units of one ball for integer loads).
func (bt *Batch[L]) BatchEnds(n int) (ends uint64, maxGap float64) {
	switch {
	case bt.ends == 0:
		return 0, 0
	case bt.weighted:
		return bt.ends, bt.bestReal
	default:
		return bt.ends, float64(bt.bestUnit) / float64(n)
	}
}

// Start makes the frozen loads those of the first batch's start (an
// initial load vector; NewBatch's are empty bins).
func (bt *Batch[L]) Start(loads []L) { copy(bt.frozen, loads) }

// flush makes the frozen loads those of the batch that just ended.
func (bt *Batch[L]) flush(loads []L) {
	switch {
	case bt.pending == nil:
		copy(bt.frozen, loads)
	case bt.weighted:
		for k, q := range bt.pending {
			bt.frozen[q] += bt.pendW[k]
		}
	default:
		for _, q := range bt.pending {
			bt.frozen[q]++
		}
	}
	if bt.pending != nil {
		bt.pending, bt.pendW = bt.pending[:0], bt.pendW[:0]
	}
	bt.ends++
}

// BBatch throws count balls by b-Batch with state bt and returns the new
// maximum load.
//
// Stream: two PCG32.Bounded(n) per ball from r; nothing else, so at b = 1
// the choices are two-choice's, ball for ball. 1 ≤ len(loads) ≤ MaxBins.
func BBatch[L Load](loads []L, r *PCG32, count uint64, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	frozen := bt.frozen
	var idx [2 * stageBalls]uint32
	for count > 0 {
		c := bt.next(count, 2)
		s = fillBounded(idx[:2*c], s, inc, n)
		prefetchLoads(frozen, idx[:2*c])
		for k := range c {
			i, j := idx[2*k], idx[2*k+1]
			// The comparison of frozen loads is a coin flip for the branch
			// predictor: select by masks (see choose).
			idx[k] = choose(b2u(frozen[j] < frozen[i]), i, j) // the chosen bins
		}
		prefetchLoads(loads, idx[:c])
		maxLoad = placeBatch(bt, loads, idx[:c], maxLoad)
		count -= uint64(c)
	}
	r.state = s
	return maxLoad
}

// next is how many balls the next step of a batched loop takes: at most
// count, the balls to the end of the batch, and as many as stageBalls
// buffers hold at d draws a ball.
func (bt *Batch[L]) next(count uint64, d int) int {
	return int(min(count, uint64(max(1, 2*stageBalls/d)), bt.b-bt.t%bt.b))
}

// placeBatch adds one ball to each bin in chosen (decided on the frozen
// loads), lists them for the batch's end, and ends the batch when it is
// full, recording its gap; it returns the new maximum load.
func placeBatch[L Load](bt *Batch[L], loads []L, chosen []uint32, maxLoad L) L {
	for _, i := range chosen {
		v := loads[i] + 1
		loads[i] = v
		maxLoad = max(maxLoad, v)
	}
	if bt.pending != nil {
		bt.pending = append(bt.pending, chosen...)
	}
	left := bt.b - bt.t%bt.b
	bt.t += uint64(len(chosen))
	if uint64(len(chosen)) == left {
		bt.flush(loads)
		if v := uint64(maxLoad)*uint64(len(loads)) - bt.t; bt.ends == 1 || v > bt.bestUnit {
			bt.bestUnit = v
		}
	}
	return maxLoad
}

// BatchedDChoice throws count balls by d-choice in the b-Batch setting:
// every ball of a batch takes the least loaded of its d samples by the
// loads at the batch's start (bt's frozen loads), ties to the first sample.
// Stream: d PCG32.Bounded(n) per ball, as DChoice, so at d = 2 the balls
// are BBatch's, ball for ball. d ≥ 1, 1 ≤ len(loads) ≤ MaxBins.
func BatchedDChoice[L Load](loads []L, r *PCG32, count uint64, d int, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	frozen := bt.frozen
	var idx [2 * stageBalls]uint32
	var chosen [2 * stageBalls]uint32
	draws := make([]uint32, 0)
	if d > len(idx) {
		draws = make([]uint32, d) // one ball's samples, past the stack buffer
	}
	for count > 0 {
		c := bt.next(count, d)
		buf := idx[:]
		if d > len(idx) {
			buf = draws
		}
		s = fillBounded(buf[:c*d], s, inc, n)
		prefetchLoads(frozen, buf[:c*d])
		for k := range c {
			best := buf[k*d]
			for _, j := range buf[k*d+1 : (k+1)*d] {
				best = choose(b2u(frozen[j] < frozen[best]), best, j)
			}
			chosen[k] = best
		}
		maxLoad = placeBatch(bt, loads, chosen[:c], maxLoad)
		count -= uint64(c)
	}
	r.state = s
	return maxLoad
}

// BatchedOnePlusBeta throws count balls by (1+β) in the b-Batch setting:
// with probability β a ball takes the less loaded of two samples by the
// loads at the batch's start (ties to the first), else its first sample.
// Stream per ball: as OnePlusBeta (the coin, then two PCG32.Bounded(n)).
// 1 ≤ len(loads) ≤ MaxBins.
func BatchedOnePlusBeta[L Load](loads []L, r *PCG32, count uint64, coin *Bernoulli, bt *Batch[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	frozen := bt.frozen
	var idx [2 * stageBalls]uint32
	var two [stageBalls]uint8
	for count > 0 {
		c := bt.next(count, 2)
		for k := range c {
			var x uint32
			s, x = step(s, inc)
			t := x < coin.hi
			if x == coin.hi {
				s, t = coin.flipTail(s, inc)
			}
			two[k] = b2u(t)
			s = fillBounded(idx[2*k:2*k+2], s, inc, n)
		}
		for k := range c {
			i, j := idx[2*k], idx[2*k+1]
			idx[k] = choose(two[k]&b2u(frozen[j] < frozen[i]), i, j)
		}
		maxLoad = placeBatch(bt, loads, idx[:c], maxLoad)
		count -= uint64(c)
	}
	r.state = s
	return maxLoad
}

// BBatchWeighted is BBatch on real loads, ball k weighing w[k].
func BBatchWeighted(loads []float64, r *PCG32, w []float64, bt *Batch[float64], maxLoad float64) float64 {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	frozen := bt.frozen
	var idx [2 * stageBalls]uint32
	for len(w) > 0 {
		left := bt.b - bt.t%bt.b
		c := int(min(uint64(len(w)), stageBalls, left))
		s = fillBounded(idx[:2*c], s, inc, n)
		prefetchLoads(frozen, idx[:2*c])
		for k, wk := range w[:c] {
			i, j := idx[2*k], idx[2*k+1]
			if frozen[j] < frozen[i] {
				i = j
			}
			v := loads[i] + wk
			loads[i] = v
			maxLoad = max(maxLoad, v)
			bt.total += wk
			if bt.pending != nil {
				bt.pending = append(bt.pending, i)
				bt.pendW = append(bt.pendW, wk)
			}
		}
		bt.t += uint64(c)
		w = w[c:]
		if uint64(c) == left {
			bt.flush(loads)
			if g := maxLoad - bt.total/float64(n); bt.ends == 1 || g > bt.bestReal {
				bt.bestReal = g
			}
		}
	}
	r.state = s
	return maxLoad
}
