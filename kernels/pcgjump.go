package kernels

// Jumped draws. A loop that draws k outputs a ball steps the state k times
// in a chain, s ↦ s·mul + inc, each step a 64-bit multiply and an add (4
// cycles of latency on current x86 cores), so a ball of three
// draws cannot start its next ball sooner than 12 cycles after it began,
// however little else it does. The state after j steps is also
// s·mul^j + inc·(mul^(j−1) + … + 1) (Brown's jump-ahead, as PCG32.Advance),
// one multiply and one add from s for every j: a ball's k states, and the
// next ball's, all come 4 cycles after s. The outputs are the same words in
// the same order; only the arithmetic that reaches them differs.

// pcgMul3 is the multiplier of a jump of 3 steps (pcgMul2, of 2, is
// idea.go's).
const pcgMul3 = pcgMul2 * pcgMul % (1 << 64)

// jumpAdds returns the increments of jumps of 2 and 3 steps of the stream
// with increment inc: the state j steps after s is s·pcgMul^j + add_j.
func jumpAdds(inc uint64) (add2, add3 uint64) {
	add2 = inc*pcgMul + inc
	return add2, add2*pcgMul + inc
}
