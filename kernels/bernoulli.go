package kernels

import (
	"fmt"
	"math/big"
)

// Bernoulli is an exact coin with success probability p for any float64 p in
// [0, 1): it compares a uniform U = 0.u₁u₂… (32 bits per PCG32 output) with
// the binary expansion of p word by word and succeeds when U < p. The first
// word decides except with probability 2^-32, so a coin costs one output;
// the expansion of a float64 is finite (at most 1074 bits), so the result is
// exactly p, not p rounded to 2^-32.
type Bernoulli struct {
	hi   uint32   // first 32 bits of p's expansion
	tail []uint32 // the following words; empty when the rest is zero
}

// NewBernoulli returns the coin for p, 0 ≤ p < 1.
func NewBernoulli(p float64) (Bernoulli, error) {
	if !(p >= 0 && p < 1) {
		return Bernoulli{}, fmt.Errorf("kernels: Bernoulli probability %v outside [0, 1)", p)
	}
	x := new(big.Float).SetPrec(2048).SetFloat64(p) // exact
	var words []uint32
	for x.Sign() != 0 {
		x.SetMantExp(x, 32)
		w, _ := x.Uint64() // truncates toward zero: the next 32 bits
		words = append(words, uint32(w))
		x.Sub(x, new(big.Float).SetUint64(w))
	}
	var b Bernoulli
	if len(words) > 0 {
		b.hi, b.tail = words[0], words[1:]
	}
	return b, nil
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
