package kernels

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// PCG32 is the PCG-XSH-RR generator with 64-bit state and 32-bit output
// (O'Neill 2014, "PCG: A Family of Simple Fast Space-Efficient Statistically
// Good Algorithms for Random Number Generation", §6.3.1; pcg_basic.c's
// pcg32_random_r). It is bit-for-bit the generator of pcg-c-basic and of
// github.com/dgryski/go-pcgr, which the module proxy does not serve here.
//
// The zero value is usable: it is the generator with state 0 on the
// reference's default stream. A PCG32 is a small value; copy it to fork a
// stream and use MarshalBinary to checkpoint one.
type PCG32 struct {
	state uint64
	// incx is the increment XOR pcgDefaultInc, so that the zero value runs on
	// the reference's default stream instead of the degenerate increment 0.
	incx uint64
}

const (
	pcgMul        = 6364136223846793005
	pcgDefaultInc = 1442695040888963407
)

// NewPCG32 returns the generator that pcg32_srandom_r(initstate, initseq) makes.
func NewPCG32(initstate, initseq uint64) PCG32 {
	var r PCG32
	r.Seed(initstate, initseq)
	return r
}

// Seed resets r exactly as the reference pcg32_srandom_r does: the stream
// (increment) is 2·initseq+1, and initstate is mixed in between two steps.
func (r *PCG32) Seed(initstate, initseq uint64) {
	inc := initseq<<1 | 1
	r.incx = inc ^ pcgDefaultInc
	r.state = 0
	r.Uint32()
	r.state += initstate
	r.Uint32()
}

// inc is the LCG increment of r's stream (always odd).
func (r *PCG32) inc() uint64 { return r.incx ^ pcgDefaultInc }

// Uint32 returns the next 32-bit output and advances the state.
func (r *PCG32) Uint32() uint32 {
	old := r.state
	r.state = old*pcgMul + r.inc()
	return pcgOutput(old)
}

// Uint64 returns two consecutive outputs, the first in the high half.
func (r *PCG32) Uint64() uint64 {
	hi := r.Uint32()
	return uint64(hi)<<32 | uint64(r.Uint32())
}

// pcgOutput is the XSH-RR output permutation of a state.
func pcgOutput(s uint64) uint32 {
	return bits.RotateLeft32(uint32((s>>18^s)>>27), -int(s>>59))
}

// Bounded returns a uniform integer in [0, n) by Lemire's multiply-shift
// method with rejection ("Fast Random Integer Generation in an Interval",
// ACM TOMACS 2019, Algorithm 5): exact, and one output per draw except with
// probability below n/2^32. n must be at least 1.
func (r *PCG32) Bounded(n uint32) uint32 {
	var x uint32
	r.state, x = bounded(r.state, r.inc(), n)
	return x
}

// Bounded64 returns a uniform integer in [0, n) for any n ≥ 1, from 64-bit
// draws (two outputs each), by Lemire's method with 128-bit products.
func (r *PCG32) Bounded64(n uint64) uint64 {
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// Float64 returns a uniform float64 in [0, 1) with 53 random bits.
func (r *PCG32) Float64() float64 {
	return float64(r.Uint64()>>11) * 0x1p-53
}

// Advance moves r forward by delta steps (backwards for delta ≥ 2^63, modulo
// 2^64) in O(log delta) time, by Brown's LCG jump-ahead ("Random Number
// Generation with Arbitrary Strides", 1994), as pcg32_advance_r does.
func (r *PCG32) Advance(delta uint64) {
	accMul, accAdd := uint64(1), uint64(0)
	curMul, curAdd := uint64(pcgMul), r.inc()
	for delta > 0 {
		if delta&1 != 0 {
			accMul *= curMul
			accAdd = accAdd*curMul + curAdd
		}
		curAdd = (curMul + 1) * curAdd
		curMul *= curMul
		delta >>= 1
	}
	r.state = accMul*r.state + accAdd
}

const pcgMarshalPrefix = "pcg32:"

// MarshalBinary encodes the generator's state and stream.
func (r *PCG32) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, len(pcgMarshalPrefix)+16)
	b = append(b, pcgMarshalPrefix...)
	b = binary.BigEndian.AppendUint64(b, r.state)
	b = binary.BigEndian.AppendUint64(b, r.inc())
	return b, nil
}

var errUnmarshalPCG32 = errors.New("kernels: invalid PCG32 encoding")

// UnmarshalBinary restores a generator encoded by MarshalBinary.
func (r *PCG32) UnmarshalBinary(data []byte) error {
	if len(data) != len(pcgMarshalPrefix)+16 || string(data[:len(pcgMarshalPrefix)]) != pcgMarshalPrefix {
		return errUnmarshalPCG32
	}
	data = data[len(pcgMarshalPrefix):]
	inc := binary.BigEndian.Uint64(data[8:])
	if inc&1 == 0 {
		return errUnmarshalPCG32
	}
	r.state = binary.BigEndian.Uint64(data)
	r.incx = inc ^ pcgDefaultInc
	return nil
}

// Bounded2 returns two consecutive PCG32.Bounded(n) draws in one call: the
// same outputs, with the state kept in registers between them.
func (r *PCG32) Bounded2(n uint32) (uint32, uint32) {
	s, inc := r.state, r.inc()
	var x, y uint32
	s, x = bounded(s, inc, n)
	s, y = bounded(s, inc, n)
	r.state = s
	return x, y
}

// FillBounded writes len(dst) consecutive PCG32.Bounded(n) draws into dst:
// the outputs of as many Bounded calls, drawn ahead so that a loop over
// them issues its loads without waiting on the generator.
func (r *PCG32) FillBounded(dst []uint32, n uint32) {
	r.state = fillBounded(dst, r.state, r.inc(), n)
}
