package kernels

import "math"

// Exponential variates by the ziggurat method of Marsaglia and Tsang ("The
// Ziggurat Method for Generating Random Variables", J. Stat. Softw. 2000),
// with 256 boxes. Unlike their 32-bit version, which takes the box index and
// the abscissa from the same word (a correlation Doornik 2005 points out),
// each attempt draws 64 bits: 8 for the box and 53 others for the abscissa.
//
// Box 0 is the base rectangle [0, r]×[0, e^-r] plus the tail beyond r, of
// pseudo-width x₀ = v·e^r; box i ≥ 1 is [0, xᵢ]×[e^-xᵢ, e^-xᵢ₊₁], with x₁ = r,
// x₂₅₆ = 0, and every box of area v. The tail is sampled exactly as r + Exp(1).

const zigExpBoxes = 256

var zigExp = newZigExpTables()

type zigExpTables struct {
	r float64
	x [zigExpBoxes + 1]float64 // box widths, x[0] the base's pseudo-width
	f [zigExpBoxes + 1]float64 // e^-x[i]; f[256] = 1
	w [zigExpBoxes]float64     // x[i]·2^-53: abscissa of a 53-bit integer
	k [zigExpBoxes]uint64      // j < k[i] ⇒ j·w[i] < x[i+1]: accept at once
	// closure is f(x₂₅₅) + v/x₂₅₅ − 1, zero when the boxes tile exactly.
	closure float64
}

// zigExpStack builds the boxes for base edge r and returns the closure error
// and whether all 255 boxes fitted below the curve's top.
func zigExpStack(r float64, t *zigExpTables) (float64, bool) {
	v := (r + 1) * math.Exp(-r) // base rectangle r·e^-r plus tail e^-r
	t.x[0] = v / math.Exp(-r)
	t.x[1] = r
	for i := 1; i < zigExpBoxes-1; i++ {
		y := math.Exp(-t.x[i]) + v/t.x[i]
		if y >= 1 {
			return 0, false
		}
		t.x[i+1] = -math.Log(y)
	}
	return math.Exp(-t.x[zigExpBoxes-1]) + v/t.x[zigExpBoxes-1] - 1, true
}

func newZigExpTables() *zigExpTables {
	t := new(zigExpTables)
	// Solve for the r at which 256 boxes of equal area tile the density
	// exactly (Marsaglia and Tsang give r ≈ 7.69711747013104972).
	lo, hi := 7.0, 8.5
	for range 200 {
		mid := (lo + hi) / 2
		c, ok := zigExpStack(mid, t)
		if !ok || c > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	t.r = hi
	t.closure, _ = zigExpStack(t.r, t)
	t.x[zigExpBoxes] = 0
	for i := range t.f {
		t.f[i] = math.Exp(-t.x[i])
	}
	t.f[zigExpBoxes] = 1
	for i := range zigExpBoxes {
		t.w[i] = t.x[i] * 0x1p-53
		t.k[i] = uint64(t.x[i+1] / t.x[i] * 0x1p53)
	}
	return t
}

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
		i := u & (zigExpBoxes - 1)
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
