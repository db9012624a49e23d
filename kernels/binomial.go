package kernels

import "math"

// Binomial returns a Binomial(n, p) variate for any n < 2^53 and p in
// [0, 1]: inversion when n·min(p, 1−p) < 30, else BTPE (Kachitvichyanukul
// and Schmeiser, "Binomial Random Variate Generation", CACM 1988), the
// acceptance/rejection algorithm that is exact in real arithmetic and takes
// O(1) expected time whatever n is. Counts up to 10^12 bins and balls are
// well inside the range where float64 holds n exactly.
func (r *PCG32) Binomial(n uint64, p float64) uint64 {
	switch {
	case n == 0 || p <= 0:
		return 0
	case p >= 1:
		return n
	case p > 0.5:
		return n - r.binomialHalf(n, 1-p)
	}
	return r.binomialHalf(n, p)
}

// binomialHalf is Binomial for 0 < p ≤ 1/2.
func (r *PCG32) binomialHalf(n uint64, p float64) uint64 {
	if float64(n)*p < 30 {
		return r.binomialInversion(n, p)
	}
	return r.binomialBTPE(n, p)
}

// binomialInversion walks the CDF from 0, restarting past a generous bound
// so that rounding in the recurrence can never run away.
func (r *PCG32) binomialInversion(n uint64, p float64) uint64 {
	q := 1 - p
	fn := float64(n)
	qn := math.Exp(fn * math.Log1p(-p))
	np := fn * p
	bound := math.Min(fn, np+10*math.Sqrt(np*q+1))
	x, px, u := 0.0, qn, r.Float64()
	for u > px {
		x++
		if x > bound {
			x, px, u = 0, qn, r.Float64()
			continue
		}
		u -= px
		px = (fn - x + 1) * p * px / (x * q)
	}
	return uint64(x)
}

// binomialBTPE is Kachitvichyanukul and Schmeiser's algorithm BTPE for
// n·p ≥ 30, p ≤ 1/2: a triangle, two parallelograms and two exponential
// tails dominate the pmf; a candidate is accepted by a cheap squeeze, by
// explicit evaluation of f(y)/f(m) near the mode, or by Stirling's
// approximation with its error bounded (steps 5.0–5.3 of the paper).
func (r *PCG32) binomialBTPE(n uint64, p float64) uint64 {
	fn := float64(n)
	q := 1 - p
	npq := fn * p * q
	fm := fn*p + p
	m := math.Floor(fm)
	p1 := math.Floor(2.195*math.Sqrt(npq)-4.6*q) + 0.5
	xm := m + 0.5
	xl := xm - p1
	xr := xm + p1
	c := 0.134 + 20.5/(15.3+m)
	a := (fm - xl) / (fm - xl*p)
	laml := a * (1 + a/2)
	a = (xr - fm) / (xr * q)
	lamr := a * (1 + a/2)
	p2 := p1 * (1 + 2*c)
	p3 := p2 + c/laml
	p4 := p3 + c/lamr
	for {
		u := r.Float64() * p4
		v := r.Float64()
		var y float64
		switch {
		case u <= p1: // triangle: accepted outright
			return uint64(math.Floor(xm - p1*v + u))
		case u <= p2: // parallelograms
			x := xl + (u-p1)/c
			v = v*c + 1 - math.Abs(m-x+0.5)/p1
			if v > 1 {
				continue
			}
			y = math.Floor(x)
		case u <= p3: // left exponential tail
			y = math.Floor(xl + math.Log(v)/laml)
			if y < 0 {
				continue
			}
			v *= (u - p2) * laml
		default: // right exponential tail
			y = math.Floor(xr - math.Log(v)/lamr)
			if y > fn {
				continue
			}
			v *= (u - p3) * lamr
		}
		k := math.Abs(y - m)
		if k <= 20 || k >= npq/2-1 {
			// Explicit f(y)/f(m) by the recurrence f(i)/f(i−1) = (a/i − s).
			s := p / q
			a := s * (fn + 1)
			f := 1.0
			if m < y {
				for i := m + 1; i <= y; i++ {
					f *= a/i - s
				}
			} else if m > y {
				for i := y + 1; i <= m; i++ {
					f /= a/i - s
				}
			}
			if v <= f {
				return uint64(y)
			}
			continue
		}
		// Squeeze on ln v, then the Stirling bound.
		rho := (k / npq) * ((k*(k/3+0.625)+1.0/6)/npq + 0.5)
		t := -k * k / (2 * npq)
		av := math.Log(v)
		if av < t-rho {
			return uint64(y)
		}
		if av > t+rho {
			continue
		}
		x1, f1 := y+1, m+1
		z, w := fn+1-m, fn-y+1
		x2, f2, z2, w2 := x1*x1, f1*f1, z*z, w*w
		bound := xm*math.Log(f1/x1) + (fn-m+0.5)*math.Log(z/w) + (y-m)*math.Log(w*p/(x1*q)) +
			stirlingTail(f1, f2) + stirlingTail(z, z2) + stirlingTail(x1, x2) + stirlingTail(w, w2)
		if av <= bound {
			return uint64(y)
		}
	}
}

// stirlingTail is the series correction of ln Γ used in BTPE's step 5.3.
func stirlingTail(x, x2 float64) float64 {
	return (13680 - (462-(132-(99-140/x2)/x2)/x2)/x2) / x / 166320
}

// Multinomial writes into dst a Multinomial(n, w/Σw) draw by conditional
// binomials: dst[i] ~ Binomial(n − Σ_{j<i} dst[j], w[i]/Σ_{j≥i} w[j]).
// Weights must be non-negative with a positive sum.
func (r *PCG32) Multinomial(dst []uint64, n uint64, w []float64) {
	rest := 0.0
	for _, x := range w {
		rest += x
	}
	for i, x := range w {
		if n == 0 || rest <= 0 {
			dst[i] = 0
			continue
		}
		if i == len(w)-1 {
			dst[i] = n
			n = 0
			continue
		}
		k := r.Binomial(n, math.Min(1, x/rest))
		dst[i] = k
		n -= k
		rest -= x
	}
}
