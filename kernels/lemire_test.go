package kernels

import "testing"

// lemireAlgorithm5 is Lemire's Algorithm 5 written as the paper does (and as
// bounded was before it was shaped to inline): draw, and only when the low
// half is below n compute t = 2^32 mod n and redraw while the low half is
// below t.
func lemireAlgorithm5(s, inc uint64, n uint32) (uint64, uint32) {
	m := uint64(pcgOutput(s)) * uint64(n)
	s = s*pcgMul + inc
	if uint32(m) < n {
		t := -n % n
		for uint32(m) < t {
			m = uint64(pcgOutput(s)) * uint64(n)
			s = s*pcgMul + inc
		}
	}
	return s, uint32(m >> 32)
}

// TestBoundedIsAlgorithm5 checks that boundedFast consumes the stream exactly as
// Algorithm 5 does, the same index and the same next state on every draw,
// including bounds near 2^32 where a draw is rejected about half the time.
func TestBoundedIsAlgorithm5(t *testing.T) {
	rejects := 0
	for _, n := range []uint32{1, 2, 3, 7, 10_000, 1 << 31, 1<<31 + 1, 3 << 30, 1<<32 - 1} {
		r := NewPCG32(42, uint64(n))
		s, inc := r.state, r.inc()
		ref := s
		for k := range 20_000 {
			var x, y uint32
			before := ref
			s, x = boundedFast(s, inc, n)
			ref, y = lemireAlgorithm5(ref, inc, n)
			if x != y || s != ref {
				t.Fatalf("n=%d draw %d: boundedFast gives (%d, state %#x), Algorithm 5 (%d, state %#x)", n, k, x, s, y, ref)
			}
			if ref != before*pcgMul+inc {
				rejects++
			}
		}
	}
	if rejects < 1000 {
		t.Fatalf("only %d rejected draws: the bounds near 2^32 should reject thousands", rejects)
	}
}
