package kernels

import "math"

// Standard normal variates by the ziggurat method of Marsaglia and Tsang
// (2000), on the half-normal density f(x) = e^{-x²/2} with 256 boxes, and a
// random sign. As for Exp, each attempt draws 64 bits: 8 for the box, 1 for
// the sign and 53 for the abscissa, so no bit serves twice. The tail beyond
// r is sampled exactly by Marsaglia's method (1964): x = −ln(U₁)/r,
// y = −ln(U₂) until 2y > x², then r + x.

// Marsaglia and Tsang give r ≈ 3.6541528853610088 for 256 boxes.
var zigNorm = newZigTables(zigDensity{
	f:       halfNormal,
	inverse: func(y float64) float64 { return math.Sqrt(-2 * math.Log(y)) },
	// the rectangle r·f(r) plus the tail ∫_r^∞ f = √(π/2)·erfc(r/√2)
	base: func(r float64) float64 { return r*halfNormal(r) + math.Sqrt(math.Pi/2)*math.Erfc(r/math.Sqrt2) },
	lo:   3, hi: 4.5,
})

func halfNormal(x float64) float64 { return math.Exp(-x * x / 2) }

// Normal returns a standard normal variate.
func (r *PCG32) Normal() float64 {
	var z float64
	r.state, z = normZig(r.state, r.inc())
	return z
}

// normZig is Normal on raw state. Stream per attempt: Uint64 (box in bits
// 0–7, sign in bit 8, abscissa in bits 11–63); a wedge test adds one
// Float64, the tail pairs of Float64.
func normZig(s, inc uint64) (uint64, float64) {
	t := zigNorm
	for {
		var hi, lo uint32
		s, hi = step(s, inc)
		s, lo = step(s, inc)
		u := uint64(hi)<<32 | uint64(lo)
		i := u & (zigBoxes - 1)
		neg := u&(1<<8) != 0
		j := u >> 11
		x := float64(j) * t.w[i]
		if j >= t.k[i] {
			var ok bool
			s, x, ok = normZigSlow(s, inc, i, x)
			if !ok {
				continue
			}
		}
		if neg {
			x = -x
		}
		return s, x
	}
}

// normZigSlow finishes an attempt whose fast test failed: the tail for the
// base box, else the wedge test. ok is false when the attempt is rejected.
func normZigSlow(s, inc uint64, i uint64, x float64) (uint64, float64, bool) {
	t := zigNorm
	if i == 0 {
		if x < t.r {
			return s, x, true // inside the base rectangle: k[0] rounded down
		}
		for {
			var u1, u2 float64
			s, u1 = uniformOpen(s, inc)
			s, u2 = uniformOpen(s, inc)
			xx := -math.Log(u1) / t.r
			if -2*math.Log(u2) > xx*xx {
				return s, t.r + xx, true
			}
		}
	}
	if x < t.x[i+1] {
		return s, x, true
	}
	var hi, lo uint32
	s, hi = step(s, inc)
	s, lo = step(s, inc)
	u01 := float64((uint64(hi)<<32|uint64(lo))>>11) * 0x1p-53
	return s, x, t.f[i]+u01*(t.f[i+1]-t.f[i]) < halfNormal(x)
}

// uniformOpen returns a uniform float64 in (0, 1] from two outputs.
func uniformOpen(s, inc uint64) (uint64, float64) {
	var hi, lo uint32
	s, hi = step(s, inc)
	s, lo = step(s, inc)
	return s, float64((uint64(hi)<<32|uint64(lo))>>11+1) * 0x1p-53
}
