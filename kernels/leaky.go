package kernels

// Leaky bins (Berenbrink, Friedetzky, Kling, Mallmann-Trenn, Nagel and
// Wastell, "Self-stabilizing balls & bins in batches: the power of leaky
// bins", PODC 2016; Algorithmica 80, 2018): each round a batch of balls
// arrives, each placed by Greedy[d] on the loads at the round's start (the
// balls of a round are thrown in parallel and see none of each other), and
// then every non-empty bin deletes one ball (RBBRelease, rbb's release).
// core/process/leaky.go has the round's law and the choices made.

// LeakyPlace places k balls, each in the least loaded of d uniform bins
// (with replacement) by frozen, the loads at the round's start (the first
// of the least loaded: a uniform one in law, the samples being i.i.d.;
// kernels/dchoice.go), adding them to loads; it returns the new maximum of
// loads. Stream per ball: d PCG32.Bounded(n).
func LeakyPlace[L Load](loads, frozen []L, r *PCG32, k uint64, d int, maxLoad L) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	for ; k > 0; k-- {
		var best uint32
		s, best = boundedFast(s, inc, n)
		bl := frozen[best]
		for j := 1; j < d; j++ {
			var x uint32
			s, x = boundedFast(s, inc, n)
			if fx := frozen[x]; fx < bl {
				best, bl = x, fx
			}
		}
		l := loads[best] + 1
		loads[best] = l
		maxLoad = max(maxLoad, l)
	}
	r.state = s
	return maxLoad
}
