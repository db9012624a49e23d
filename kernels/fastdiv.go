package kernels

import "math/bits"

// Divisor32 divides 32-bit integers by a fixed divisor d ≥ 2 with
// multiplications only, by the direct computation of Lemire, Kaser and Kurz
// ("Faster remainder by direct computation", Software: Practice and
// Experience 2019): with c = ⌈2^64/d⌉, ⌊a/d⌋ = ⌊c·a/2^64⌋ and
// a mod d = ⌊(c·a mod 2^64)·d/2^64⌋, exact for every 32-bit a.
type Divisor32 struct {
	c uint64
	d uint64
}

// NewDivisor32 returns the divisor d, 2 ≤ d < 2^32.
func NewDivisor32(d uint32) Divisor32 {
	if d < 2 {
		panic("kernels: Divisor32 needs d ≥ 2")
	}
	return Divisor32{c: ^uint64(0)/uint64(d) + 1, d: uint64(d)}
}

// Div returns ⌊a/d⌋.
func (v Divisor32) Div(a uint32) uint32 {
	hi, _ := bits.Mul64(v.c, uint64(a))
	return uint32(hi)
}

// Mod returns a mod d.
func (v Divisor32) Mod(a uint32) uint32 {
	hi, _ := bits.Mul64(v.c*uint64(a), v.d)
	return uint32(hi)
}
