package kernels

import "math"

// Exponential variates by the ziggurat method of Marsaglia and Tsang ("The
// Ziggurat Method for Generating Random Variables", J. Stat. Softw. 2000),
// with 256 boxes. Unlike their 32-bit version, which takes the box index and
// the abscissa from the same word (a correlation Doornik 2005 points out),
// each attempt draws 64 bits: 8 for the box and 53 others for the abscissa.
//
// Marsaglia and Tsang give r ≈ 7.69711747013104972 for 256 boxes.

var zigExp = newZigTables(zigDensity{
	f:       func(x float64) float64 { return math.Exp(-x) },
	inverse: func(y float64) float64 { return -math.Log(y) },
	base:    func(r float64) float64 { return (r + 1) * math.Exp(-r) }, // r·e^-r + ∫_r^∞ e^-x
	lo:      7, hi: 8.5,
})

// Exp returns an exponential variate of rate 1.
func (r *PCG32) Exp() float64 {
	var x float64
	r.state, x = expZig(r.state, r.inc())
	return x
}

// expZig is Exp on raw state. Stream per attempt: Uint64 (box in the low 8
// bits, abscissa in the high 53); a wedge test adds one Float64, the tail one
// more Uint64.
func expZig(s, inc uint64) (uint64, float64) {
	t := zigExp
	for {
		var hi, lo uint32
		s, hi = step(s, inc)
		s, lo = step(s, inc)
		u := uint64(hi)<<32 | uint64(lo)
		i := u & (zigBoxes - 1)
		j := u >> 11
		x := float64(j) * t.w[i]
		if j < t.k[i] {
			return s, x
		}
		if i == 0 {
			s, hi = step(s, inc)
			s, lo = step(s, inc)
			// U ∈ (0, 1], so the logarithm is finite.
			u := float64((uint64(hi)<<32|uint64(lo))>>11+1) * 0x1p-53
			return s, t.r - math.Log(u)
		}
		if x < t.x[i+1] {
			return s, x // below the next box: k[i] was rounded down
		}
		s, hi = step(s, inc)
		s, lo = step(s, inc)
		u01 := float64((uint64(hi)<<32|uint64(lo))>>11) * 0x1p-53
		if t.f[i]+u01*(t.f[i+1]-t.f[i]) < math.Exp(-x) {
			return s, x
		}
	}
}

// FillExp fills dst with exponential variates of mean `mean` (rate 1/mean).
func FillExp(dst []float64, r *PCG32, mean float64) {
	s, inc := r.state, r.inc()
	for k := range dst {
		var x float64
		s, x = expZig(s, inc)
		dst[k] = x * mean
	}
	r.state = s
}
