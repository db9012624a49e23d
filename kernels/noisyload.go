package kernels

// SigmaNoisyLoad throws count balls by σ-Noisy-Load (Los and Sauerwald,
// "Balanced Allocations with the Choice of Noise", §2): a ball samples two
// bins i, j uniformly and reads each load with a fresh N(0, σ²) added, then
// goes to the bin whose noisy load is smaller, compared as real numbers
// (ties, of probability zero for σ > 0, to i). The comparison
// x_i + σz_i vs x_j + σz_j is made as x_i − x_j vs σ(z_j − z_i), with the
// load difference exact, so large loads lose no precision.
//
// Stream: two PCG32.Bounded(n) per ball from r; two PCG32.Normal per ball
// from noise (i's, then j's). At σ = 0 the choices are two-choice's, ball
// for ball. 1 ≤ len(loads) ≤ MaxBins.
func SigmaNoisyLoad[L Load](loads []L, r, noise *PCG32, count uint64, sigma float64, maxLoad L) L {
	s, inc := r.state, r.inc()
	ns, ninc := noise.state, noise.inc()
	n := uint32(len(loads))
	var idx [2 * stageBalls]uint32
	var z [2 * stageBalls]float64
	for count > 0 {
		b := int(min(count, stageBalls))
		s = fillBounded(idx[:2*b], s, inc, n)
		prefetchLoads(loads, idx[:2*b])
		ns = fillNormal(z[:2*b], ns, ninc)
		for k := range b {
			i, j := idx[2*k], idx[2*k+1]
			li, lj := loads[i], loads[j]
			var diff float64 // x_i − x_j, exact in the integers, then rounded once
			if li >= lj {
				diff = float64(li - lj)
			} else {
				diff = -float64(lj - li)
			}
			c := b2u(sigma*(z[2*k+1]-z[2*k]) < diff)
			i, li = choose(c, i, j), choose(c, li, lj)
			li++
			loads[i] = li
			maxLoad = max(maxLoad, li)
		}
		count -= uint64(b)
	}
	r.state, noise.state = s, ns
	return maxLoad
}

// SigmaNoisyLoadWeighted is SigmaNoisyLoad on real loads, ball k weighing w[k].
func SigmaNoisyLoadWeighted(loads []float64, r, noise *PCG32, w []float64, sigma float64, maxLoad float64) float64 {
	s, inc := r.state, r.inc()
	ns, ninc := noise.state, noise.inc()
	n := uint32(len(loads))
	var idx [2 * stageBalls]uint32
	var z [2 * stageBalls]float64
	for len(w) > 0 {
		b := min(len(w), stageBalls)
		s = fillBounded(idx[:2*b], s, inc, n)
		prefetchLoads(loads, idx[:2*b])
		ns = fillNormal(z[:2*b], ns, ninc)
		for k, wk := range w[:b] {
			i, j := idx[2*k], idx[2*k+1]
			li, lj := loads[i], loads[j]
			if sigma*(z[2*k+1]-z[2*k]) < li-lj {
				i, li = j, lj
			}
			li += wk
			loads[i] = li
			maxLoad = max(maxLoad, li)
		}
		w = w[b:]
	}
	r.state, noise.state = s, ns
	return maxLoad
}
