package kernels

// The ziggurat tables of Marsaglia and Tsang ("The Ziggurat Method for
// Generating Random Variables", J. Stat. Softw. 2000), 256 boxes, for a
// decreasing density f on [0, ∞) with f(0) = 1 (exp.go, normal.go).
//
// Box 0 is the base rectangle [0, r]×[0, f(r)] plus the tail beyond r, of
// pseudo-width x₀ = v/f(r); box i ≥ 1 is [0, xᵢ]×[f(xᵢ), f(xᵢ₊₁)], with
// x₁ = r, x₂₅₆ = 0, and every box of area v. r is solved for, by bisection,
// so that the 256 boxes tile the density exactly.

const zigBoxes = 256

type zigTables struct {
	r       float64
	x       [zigBoxes + 1]float64 // box widths, x[0] the base's pseudo-width
	f       [zigBoxes + 1]float64 // f(x[i]); f[256] = 1
	w       [zigBoxes]float64     // x[i]·2^-53: abscissa of a 53-bit integer
	k       [zigBoxes]uint64      // j < k[i] ⇒ j·w[i] < x[i+1]: accept at once
	closure float64               // f(x₂₅₅) + v/x₂₅₅ − 1: zero when the boxes tile
}

// zigDensity describes f: the density, its inverse, and the area of the
// base strip (rectangle plus tail) for base edge r.
type zigDensity struct {
	f, inverse func(float64) float64
	base       func(r float64) float64
	lo, hi     float64 // a bracket for r
}

// stack builds the boxes for base edge r and returns the closure error and
// whether all 255 boxes fitted below the density's top.
func (d zigDensity) stack(r float64, t *zigTables) (float64, bool) {
	v := d.base(r)
	t.x[0] = v / d.f(r)
	t.x[1] = r
	for i := 1; i < zigBoxes-1; i++ {
		y := d.f(t.x[i]) + v/t.x[i]
		if y >= 1 {
			return 0, false
		}
		t.x[i+1] = d.inverse(y)
	}
	return d.f(t.x[zigBoxes-1]) + v/t.x[zigBoxes-1] - 1, true
}

func newZigTables(d zigDensity) *zigTables {
	t := new(zigTables)
	lo, hi := d.lo, d.hi
	for range 200 {
		mid := (lo + hi) / 2
		c, ok := d.stack(mid, t)
		if !ok || c > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	t.r = hi
	t.closure, _ = d.stack(t.r, t)
	t.x[zigBoxes] = 0
	for i := range t.f {
		t.f[i] = d.f(t.x[i])
	}
	t.f[zigBoxes] = 1
	for i := range zigBoxes {
		t.w[i] = t.x[i] * 0x1p-53
		t.k[i] = uint64(t.x[i+1] / t.x[i] * 0x1p53)
	}
	return t
}
