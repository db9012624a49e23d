package kernels

// Threshold and Adaptive (core/process/threshold.go cites them): a ball
// samples uniform bins, with replacement, until one has load below a limit,
// and goes there. Every sample reads one load: the loops count these
// probes, in total and the most one ball took.

// Probes counts the load reads of the retrying loops.
type Probes struct {
	Total uint64 // over all balls
	Max   uint64 // the most one ball took
}

// Retry throws count balls, each to the first of repeated uniform samples
// whose load is below limit, counts the samples in pr, and returns the new
// maximum load. Some bin must have load below limit throughout (core's
// limits guarantee it), or the loop would not end.
//
// Stream: PCG32.Bounded(n) per sample, until one is kept.
// 1 ≤ len(loads) ≤ MaxBins.
func Retry[L Load](loads []L, r *PCG32, count, limit uint64, pr *Probes, maxLoad L) L {
	s, inc := r.state, r.inc()
	// Windows (thinwindow.go) pay for themselves when retries are a coin;
	// when they are rare (Threshold early in a run) the branch is
	// predicted and the plain loop is faster. Each stretch of balls takes
	// the loop that the rate of retries in the one before calls for, the
	// first one plain: both take the same samples.
	windows := false
	for count > 0 {
		c := min(count, retryStretch)
		before := pr.Total
		if windows {
			s, maxLoad = retryWindows(loads, s, inc, c, limit, pr, maxLoad)
		} else {
			s, maxLoad = retryPlain(loads, s, inc, c, limit, pr, maxLoad)
		}
		windows = (pr.Total-before-c)*8 >= c
		count -= c
	}
	r.state = s
	return maxLoad
}

// retryStretch is the balls between Retry's choices of loop.
const retryStretch = 512

// retryPlain is Retry ball by ball, branching on each sample's test.
func retryPlain[L Load](loads []L, s, inc, count, limit uint64, pr *Probes, maxLoad L) (uint64, L) {
	n := uint32(len(loads))
	total, most := pr.Total, pr.Max
	for ; count > 0; count-- {
		var i uint32
		k := uint64(1)
		s, i = boundedFast(s, inc, n)
		for uint64(loads[i]) >= limit {
			s, i = boundedFast(s, inc, n)
			k++
		}
		total += k
		most = max(most, k)
		v := loads[i] + 1
		loads[i] = v
		maxLoad = max(maxLoad, v)
	}
	pr.Total, pr.Max = total, most
	return s, maxLoad
}

// LevelsRetry is Retry on the histogram: uniform ranks until one's level is
// below limit. Stream: a rank per sample.
func LevelsRetry(lv *Levels, r *PCG32, count, limit uint64, pr *Probes) {
	s, inc, n := r.state, r.inc(), lv.n
	total, most := pr.Total, pr.Max
	for ; count > 0; count-- {
		var x uint64
		k := uint64(1)
		s, x = rank(s, inc, n)
		i := lv.Level(x)
		for lv.lo+uint64(i) >= limit {
			s, x = rank(s, inc, n)
			i = lv.Level(x)
			k++
		}
		total += k
		most = max(most, k)
		lv.Move(i)
	}
	r.state = s
	pr.Total, pr.Max = total, most
}
