package kernels

// TwoThinning throws count balls by Two-Thinning with a fixed acceptance
// limit: a ball's first uniform bin is kept when its load is below limit,
// otherwise the ball goes to a second uniform bin, whatever its load.
//
// Two-Thinning as the README defines it compares with t/n + θ, which moves with the number
// of balls t; core splits a run into stretches on which ⌈t/n + θ⌉ is constant
// and passes that integer here (for integer loads, load < x ⇔ load < ⌈x⌉).
//
// Stream: PCG32.Bounded(n), then a second one only when the first bin is
// rejected. 1 ≤ len(loads) ≤ MaxBins.
func TwoThinning[L Load](loads []L, r *PCG32, count uint64, limit uint64, maxLoad L) L {
	r.state, maxLoad = thinTwo(loads, r.state, r.inc(), count, limit, maxLoad)
	return maxLoad
}
