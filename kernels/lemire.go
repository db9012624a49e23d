package kernels

// The allocation loops keep a generator's state in a local uint64 so that the
// compiler holds it in a register; these helpers step such raw state. Each
// draw consumes outputs exactly as the PCG32 methods of the same meaning do,
// so a loop and its reference version stay in lockstep.
//
// A bounded draw by Lemire's method is one multiply; it must be redrawn only
// when the low half of the product falls below 2^32 mod n, which a loop
// detects cheaply as "low half < n" (probability below n/2^32). Loops then
// redo the whole ball from its saved starting state through the exact slow
// path (bounded), so the fast path needs no branch inside a draw.

// lemire returns the next state and the 64-bit Lemire product of state s's
// output with n. The index is the high half; the draw is exact unless the low
// half is below n, in which case the caller must use bounded instead.
func lemire(s, inc, n uint64) (uint64, uint64) {
	return s*pcgMul + inc, uint64(pcgOutput(s)) * n
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
