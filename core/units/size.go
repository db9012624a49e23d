package units

import (
	"math"
	"math/bits"
)

// Sizes that users drive (bins × bytes, τ × bytes, trials × results) are
// products of numbers up to 2^64 − 1, which wrap in uint64: 2^63 · 4 is 0.
// A wrapped estimate looks small and lets a run start that then cannot
// allocate. Mul and Add saturate at math.MaxUint64 instead, which is more
// than any machine has, so a comparison with the memory available stays
// true to the real size.

// Mul returns a·b, or math.MaxUint64 when the product does not fit.
func Mul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

// Add returns a+b, or math.MaxUint64 when the sum does not fit.
func Add(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return math.MaxUint64
	}
	return s
}

// Footprint is a memory estimate with the flag whose value drives most of
// it, so that a refusal names what to change: "--tau 4000000000 …; lower
// --tau". Sizes add with units.Add and multiply with units.Mul, which
// saturate instead of wrapping.
type Footprint struct {
	Bytes   uint64
	Culprit string // the flag and its value, as "--tau 4000000000"
	Hint    string // a change that lowers it, as "lower --tau"
	top     uint64 // the bytes the culprit drives
}

// Add counts b bytes driven by culprit, which hint lowers.
func (f *Footprint) Add(culprit, hint string, b uint64) {
	f.Bytes = Add(f.Bytes, b)
	if b > f.top || f.Culprit == "" {
		f.Culprit, f.Hint, f.top = culprit, hint, b
	}
}
