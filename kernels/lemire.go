package kernels

// The allocation loops keep a generator's state in a local uint64 so that the
// compiler holds it in a register; these helpers step such raw state. Each
// draw consumes outputs exactly as the PCG32 methods of the same meaning do,
// so a loop and its reference version stay in lockstep.
//
// A bounded draw by Lemire's method is one multiply; it must be redrawn only
// when the low half of the product falls below 2^32 mod n, which a loop
// detects cheaply as "low half < n" (probability below n/2^32). A loop with
// one draw per decision calls boundedFast, which inlines. Loops with several
// draws per ball (two-choice, d-choice, groups) instead draw them all with
// lemire, test the low halves once, and redo the whole ball from its saved
// starting state through bounded, so the fast path has one branch a ball.

// lemire returns the next state and the 64-bit Lemire product of state s's
// output with n. The index is the high half; the draw is exact unless the low
// half is below n, in which case the caller must use bounded instead.
func lemire(s, inc, n uint64) (uint64, uint64) {
	return s*pcgMul + inc, uint64(pcgOutput(s)) * n
}

// boundedFast is bounded shaped to inline, for the loops whose every
// decision is one draw: the common case is one multiply and one compare in
// the loop itself, and 2^32 mod n (a division) is computed only on the rare
// draw whose low half is below n. "low ≥ n or low ≥ 2^32 mod n" is
// Algorithm 5's "low ≥ 2^32 mod n" (the latter is below n), so the draws
// are bounded's: the same outputs consumed in the same order
// (TestBoundedIsAlgorithm5). Keep it one draw site and under the inlining
// budget (cost 54 of 80): a call to an out-of-line slow path alone costs 57.
//
// bounded stays out of line for the slow paths and the loops that call it
// directly: with boundedFast inlined in those too, six BenchmarkDirect rows
// at n = 1e4 ran 4–13% slower (d-choice-d3 0.87, g-myopic-comp 0.92).
func boundedFast(s, inc uint64, n uint32) (uint64, uint32) {
	for {
		m := uint64(pcgOutput(s)) * uint64(n)
		s = s*pcgMul + inc
		if uint32(m) >= n || uint32(m) >= -n%n {
			return s, uint32(m >> 32)
		}
	}
}

// bounded is PCG32.Bounded on raw state: a uniform index in [0, n), n ≥ 1.
func bounded(s, inc uint64, n uint32) (uint64, uint32) {
	m := uint64(pcgOutput(s)) * uint64(n)
	s = s*pcgMul + inc
	if uint32(m) < n {
		thresh := -n % n
		for uint32(m) < thresh {
			m = uint64(pcgOutput(s)) * uint64(n)
			s = s*pcgMul + inc
		}
	}
	return s, uint32(m >> 32)
}

// step returns the next state and the output of state s.
func step(s, inc uint64) (uint64, uint32) {
	return s*pcgMul + inc, pcgOutput(s)
}
