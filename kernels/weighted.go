package kernels

import (
	"math"
	"unsafe"
)

// Weighted balls on real-valued loads. A loop throws one ball per entry of
// w, in order, ball k adding w[k] to its bin; the caller fills w from the
// trial's weight stream (FillExp), so bin choices use the same stream as the
// unit-weight loops and a weighted run is coupled to the unweighted one with
// the same seed. Ties (possible with atoms in the weight law) are broken as
// in TwoChoice, with the same justification.

// OneChoiceWeighted puts ball k of weight w[k] into a uniform bin and returns
// the new maximum load. Stream: one PCG32.Bounded(n) per ball.
func OneChoiceWeighted(loads []float64, r *PCG32, w []float64, maxLoad float64) float64 {
	if staged(len(loads) * int(unsafe.Sizeof(loads[0]))) {
		return dChoiceWeightedStaged(loads, r, w, 1, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	for _, wk := range w {
		var i uint32
		s, i = boundedFast(s, inc, n)
		v := loads[i] + wk
		loads[i] = v
		maxLoad = max(maxLoad, v)
	}
	r.state = s
	return maxLoad
}

// DChoiceWeighted puts ball k of weight w[k] into the least loaded of d
// uniform bins (with replacement) and returns the new maximum load.
// Stream: d PCG32.Bounded(n) per ball.
func DChoiceWeighted(loads []float64, r *PCG32, w []float64, d int, maxLoad float64) float64 {
	if staged(len(loads)*int(unsafe.Sizeof(loads[0]))) && d <= stageBalls {
		return dChoiceWeightedStaged(loads, r, w, d, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	n64 := uint64(n)
	for _, wk := range w {
		s0 := s
		var m uint64
		s, m = lemire(s, inc, n64)
		low := uint32(m)
		best := m >> 32
		bl := loads[best]
		for k := 1; k < d; k++ {
			s, m = lemire(s, inc, n64)
			low = min(low, uint32(m))
			j := m >> 32
			if lj := loads[j]; lj < bl {
				best, bl = j, lj
			}
		}
		if low < n {
			s, best, bl = dChoiceSlow(loads, s0, inc, n, d)
		}
		bl += wk
		loads[best] = bl
		maxLoad = max(maxLoad, bl)
	}
	r.state = s
	return maxLoad
}

// dChoiceWeightedStaged is DChoiceWeighted (d = 1: OneChoiceWeighted) drawing
// a block's samples ahead.
func dChoiceWeightedStaged(loads []float64, r *PCG32, w []float64, d int, maxLoad float64) float64 {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	var idx [2 * stageBalls]uint32
	per := len(idx) / d
	for len(w) > 0 {
		b := min(len(w), per)
		s = fillBounded(idx[:b*d], s, inc, n)
		prefetchLoads(loads, idx[:b*d])
		for k, wk := range w[:b] {
			best := idx[k*d]
			bl := loads[best]
			for _, j := range idx[k*d+1 : k*d+d] {
				if lj := loads[j]; lj < bl {
					best, bl = j, lj
				}
			}
			bl += wk
			loads[best] = bl
			maxLoad = max(maxLoad, bl)
		}
		w = w[b:]
	}
	r.state = s
	return maxLoad
}

// FillUniform fills dst with weights uniform on [a, b): a + (b − a)·U, U
// from PCG32.Float64 (two outputs per weight).
func FillUniform(dst []float64, r *PCG32, a, b float64) {
	span := b - a
	for k := range dst {
		dst[k] = a + span*r.Float64()
	}
}

// FillPareto fills dst with Pareto weights of shape alpha > 0 and scale xm
// (P(X > x) = (xm/x)^alpha for x ≥ xm), as xm·exp(E/alpha) with E an
// exponential variate of rate 1: the same stream as FillExp.
func FillPareto(dst []float64, r *PCG32, alpha, xm float64) {
	s, inc := r.state, r.inc()
	inv := 1 / alpha
	for k := range dst {
		var e float64
		s, e = expZig(s, inc)
		dst[k] = xm * math.Exp(e*inv)
	}
	r.state = s
}
