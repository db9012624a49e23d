package kernels

import "math"

// Hypergeometric returns the number of marked items in a uniform sample of
// n items drawn without replacement from N items of which K are marked
// (K, n ≤ N < 2^53): small samples by the sequential method, larger ones by
// Stadlober's ratio-of-uniforms algorithm HRUA ("The ratio of uniforms
// approach for generating discrete random variates", J. Comput. Appl. Math.
// 1990), exact in real arithmetic with O(1) expected draws. The log-density
// ratio of its acceptance test is evaluated as differences of ln Γ that stay
// accurate for counts up to 10^15 (lnGammaDiff), where differences of
// math.Lgamma values would lose the digits that decide.
func (r *PCG32) Hypergeometric(N, K, n uint64) uint64 {
	if n == 0 || K == 0 {
		return 0
	}
	if K == N {
		return n
	}
	if n == N {
		return K
	}
	// Symmetries: sample at most half the population, mark at most half.
	good, bad := K, N-K
	m := min(n, N-n)
	small := min(good, bad)
	var z uint64
	if m <= 10 {
		z = r.hypSequential(small, N-small, m)
	} else {
		z = r.hypHRUA(small, N-small, m)
	}
	if good > bad {
		z = m - z
	}
	if m < n {
		z = good - z
	}
	return z
}

// hypSequential draws the m items one at a time: O(m).
func (r *PCG32) hypSequential(good, bad, m uint64) uint64 {
	left, goodLeft, z := good+bad, good, uint64(0)
	for range m {
		if r.Bounded64(left) < goodLeft {
			z++
			goodLeft--
		}
		left--
	}
	return z
}

// hypHRUA is algorithm HRUA for good ≤ bad and m ≤ (good+bad)/2.
func (r *PCG32) hypHRUA(good, bad, m uint64) uint64 {
	const d1 = 1.7155277699214135 // 2·√(2/e)
	const d2 = 0.8989161620588988 // 3 − 2·√(3/e)
	N := float64(good + bad)
	g, b, fm := float64(good), float64(bad), float64(m)
	p := g / N
	mean := fm*p + 0.5
	sd := math.Sqrt((N-fm)*fm*p*(1-p)/(N-1) + 0.5)
	width := d1*sd + d2
	mode := math.Floor((fm + 1) * (g + 1) / (N + 2))
	top := math.Min(math.Min(fm, g)+1, math.Floor(mean+16*sd))
	for {
		x := r.Float64()
		y := r.Float64()
		w := mean + width*(y-0.5)/x
		if w < 0 || w >= top {
			continue
		}
		z := math.Floor(w)
		// t = ln f(z) − ln f(mode), f the hypergeometric pmf.
		t := lnGammaDiff(mode, z) + lnGammaDiff(g-mode, g-z) + lnGammaDiff(fm-mode, fm-z) + lnGammaDiff(b-fm+mode, b-fm+z)
		if x*(4-x)-3 <= t {
			return uint64(z)
		}
		if x*(x-t) >= 1 {
			continue
		}
		if 2*math.Log(x) <= t {
			return uint64(z)
		}
	}
}

// lnGammaDiff is ln Γ(a+1) − ln Γ(b+1), accurate also when a and b are large
// and close: by Stirling's series, the difference is
// (a − b)·ln a + (b + ½)·ln(a/b) − (a − b) plus the difference of the
// 1/(12x) − 1/(360x³) terms, each piece small or exactly scaled.
func lnGammaDiff(a, b float64) float64 {
	if a < 1e4 || b < 1e4 {
		la, _ := math.Lgamma(a + 1)
		lb, _ := math.Lgamma(b + 1)
		return la - lb
	}
	d := a - b
	corr := func(x float64) float64 { return 1/(12*x) - 1/(360*x*x*x) }
	return d*math.Log(a) + (b+0.5)*math.Log1p(d/b) - d + corr(a) - corr(b)
}
