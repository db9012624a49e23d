package kernels

import (
	"fmt"
	"math"
	"math/bits"
)

// Bernoulli is an exact coin with success probability p for any float64 p in
// [0, 1]: it compares a uniform U = 0.u₁u₂… (32 bits per PCG32 output) with
// the binary expansion of p word by word and succeeds when U < p. The first
// word decides except with probability 2^-32, so a coin costs one output;
// the expansion of a float64 is finite (at most 1074 bits), so the result is
// exactly p, not p rounded to 2^-32.
type Bernoulli struct {
	hi   uint32   // first 32 bits of p's expansion
	tail []uint32 // the following words; empty when the rest is zero
	one  bool     // p = 1: hi is all ones and every tie succeeds
}

// NewBernoulli returns the coin for p, 0 ≤ p ≤ 1.
func NewBernoulli(p float64) (Bernoulli, error) {
	if !(p >= 0 && p <= 1) {
		return Bernoulli{}, fmt.Errorf("kernels: Bernoulli probability %v outside [0, 1]", p)
	}
	if p == 1 {
		return Bernoulli{hi: math.MaxUint32, one: true}, nil
	}
	m, e := dyadic(p)
	var b Bernoulli
	b.hi = expansionWord(m, e, 0)
	last := lastWord(m, e)
	for k := 1; k <= last; k++ {
		b.tail = append(b.tail, expansionWord(m, e, k))
	}
	return b, nil
}

// dyadic writes a finite p ≥ 0 as m·2^e with m < 2^53 an integer.
func dyadic(p float64) (m uint64, e int) {
	b := math.Float64bits(p)
	exp := int(b >> 52 & 0x7ff)
	m = b & (1<<52 - 1)
	if exp == 0 {
		return m, -1074 // subnormal
	}
	return m | 1<<52, exp - 1075
}

// expansionWord is word k (bits 32k+1 … 32k+32 after the binary point) of
// m·2^e: ⌊m·2^(e+32(k+1))⌋ mod 2^32.
func expansionWord(m uint64, e, k int) uint32 {
	sh := e + 32*(k+1)
	switch {
	case sh >= 64 || sh <= -64:
		return 0
	case sh >= 0:
		return uint32(m << uint(sh))
	default:
		return uint32(m >> uint(-sh))
	}
}

// lastWord is the index of the last non-zero word of m·2^e's expansion
// (−1 for zero): the lowest set bit of m sits at 2^(e+tz).
func lastWord(m uint64, e int) int {
	if m == 0 {
		return -1
	}
	pos := -(e + bits.TrailingZeros64(m)) // the lowest set bit is bit `pos` after the point
	if pos <= 0 {
		return -1 // an integer: no fractional bits (only p = 0 here)
	}
	return (pos - 1) / 32
}

// Flip draws the coin from r.
func (b *Bernoulli) Flip(r *PCG32) bool {
	var ok bool
	r.state, ok = b.flip(r.state, r.inc())
	return ok
}

// flip is Flip on raw state: one output, and more only when it ties p's first word.
func (b *Bernoulli) flip(s, inc uint64) (uint64, bool) {
	c := pcgOutput(s)
	s = s*pcgMul + inc
	if c != b.hi {
		return s, c < b.hi
	}
	return b.flipTail(s, inc)
}

func (b *Bernoulli) flipTail(s, inc uint64) (uint64, bool) {
	if b.one {
		return s, true
	}
	for _, w := range b.tail {
		var c uint32
		s, c = step(s, inc)
		if c != w {
			return s, c < w
		}
	}
	// U agrees with every bit of p, and U's remaining bits are ≥ 0 = p's:
	// U ≥ p, so the coin fails (U = p has probability zero).
	return s, false
}

// flipFloatFrom is an exact coin of probability p ∈ [0, 1] for a p that
// changes from call to call, whose first output c is already drawn (the
// noise loops draw it with their other outputs): the same word-by-word
// comparison as Bernoulli, and the same outputs consumed for the same p, with
// p's words computed on the fly. p = 1 succeeds having consumed c only.
func flipFloatFrom(c uint32, s, inc uint64, p float64) (uint64, bool) {
	if p >= 1 {
		return s, true
	}
	m, e := dyadic(p)
	w := expansionWord(m, e, 0)
	if c != w {
		return s, c < w
	}
	last := lastWord(m, e)
	for k := 1; k <= last; k++ {
		s, c = step(s, inc)
		if w = expansionWord(m, e, k); c != w {
			return s, c < w
		}
	}
	return s, false
}
