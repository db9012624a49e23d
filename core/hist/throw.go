package hist

import (
	"math"

	"github.com/balloc/balloc/kernels"
)

// classes counts bins by a load offset: c[j] bins hold lo+j (balls, or
// extra balls). It is how the histogram engine represents the bins of one
// level while balls are thrown into them uniformly.
type classes struct {
	lo uint64
	c  []uint64
}

func (cl *classes) bins() uint64 {
	s := uint64(0)
	for _, x := range cl.c {
		s += x
	}
	return s
}

func (cl *classes) balls() uint64 {
	s := uint64(0)
	for j, x := range cl.c {
		s += x * (cl.lo + uint64(j))
	}
	return s
}

// poissonWindow returns the Poisson(λ) pmf on [lo, lo+len), the window of
// ±12 standard deviations (plus 40) around the mode, normalised; the mass
// outside is below 1e-30. Ratios f(j+1)/f(j) = λ/(j+1) from the mode keep
// every value accurate for λ up to 10^12.
func poissonWindow(lambda float64) (uint64, []float64) {
	mode := math.Floor(lambda)
	sd := math.Sqrt(lambda)
	lo := math.Max(0, math.Floor(mode-12*sd-40))
	hi := math.Floor(mode + 12*sd + 40)
	w := make([]float64, int(hi-lo)+1)
	m := int(mode - lo)
	w[m] = 1
	for i := m; i > 0; i-- {
		w[i-1] = w[i] * (lo + float64(i)) / lambda
	}
	for i := m; i+1 < len(w); i++ {
		w[i+1] = w[i] * lambda / (lo + float64(i) + 1)
	}
	return uint64(lo), w
}

// throwUniform adds x balls to the bins of cl, each ball into a bin chosen
// uniformly and independently: the occupancy of x balls added to a given
// class vector, sampled exactly without one step per ball.
//
// Poissonisation: give every bin an independent Poisson(λ) number of extra
// balls (for each class, the multinomial split of its bins over the Poisson
// pmf), with λ = (x − 3√x)/bins so that the total T falls below x except
// with probability about 1e-3 (then start again). Given T, independent
// Poisson counts are exactly a multinomial throw of T balls into the bins;
// the remaining x − T balls are then thrown one at a time, each into a
// uniform bin found with a Fenwick tree over the classes. The result is a
// multinomial throw of x balls, exactly; the work is O(classes × window +
// √x log window), independent of x for the first term.
func throwUniform(cl *classes, x uint64, r *kernels.PCG32) {
	n := cl.bins()
	if x == 0 || n == 0 {
		return
	}
	lambda := 0.0
	if x >= 64 {
		lambda = math.Max(0, float64(x)-3*math.Sqrt(float64(x))) / float64(n)
	}
	var out []uint64
	var outLo uint64
	total := uint64(0)
	if lambda > 0 {
		plo, pw := poissonWindow(lambda)
		split := make([]uint64, len(pw))
		for {
			outLo = cl.lo + plo
			out = make([]uint64, len(cl.c)+len(pw)+64)
			total = 0
			for j, bins := range cl.c {
				if bins == 0 {
					continue
				}
				r.Multinomial(split, bins, pw)
				for k, b := range split {
					out[j+k] += b
					total += b * (plo + uint64(k))
				}
			}
			if total <= x {
				break
			}
		}
	} else {
		outLo = cl.lo
		out = make([]uint64, len(cl.c)+64)
		copy(out, cl.c)
	}
	// The remaining balls one at a time: a uniform bin is a uniform rank
	// among the n bins, found in the Fenwick tree of class counts.
	rest := x - total
	if rest > 0 {
		f := kernels.NewFenwick(out)
		for ; rest > 0; rest-- {
			j := f.Find(r.Bounded64(n))
			if j+1 == len(out) { // grow the top; rebuild (rare)
				out = append(out, make([]uint64, 64)...)
				f = kernels.NewFenwick(out)
			}
			out[j]--
			out[j+1]++
			f.Add(j, ^uint64(0))
			f.Add(j+1, 1)
		}
	}
	// Trim.
	first, last := 0, len(out)-1
	for first < last && out[first] == 0 {
		first++
	}
	for last > first && out[last] == 0 {
		last--
	}
	cl.lo = outLo + uint64(first)
	cl.c = append(cl.c[:0], out[first:last+1]...)
}

// ThrowLevels adds x one-choice balls: the number landing on each level is
// multinomial by the levels' counts, and within a level the balls fall
// uniformly on its bins (throwUniform).
func ThrowLevels(lv *kernels.Levels, x uint64, r *kernels.PCG32) {
	L := lv.Len()
	w := make([]float64, L)
	for i := range L {
		w[i] = float64(lv.Count(i))
	}
	shares := make([]uint64, L)
	r.Multinomial(shares, x, w)
	var acc classes // counts by absolute load
	for i := range L {
		cl := classes{lo: lv.Min() + uint64(i), c: []uint64{lv.Count(i)}}
		throwUniform(&cl, shares[i], r)
		acc.add(&cl)
	}
	lv.SetCounts(acc.lo, acc.c)
}

// add merges the bins of o into cl (both by absolute load).
func (cl *classes) add(o *classes) {
	if len(cl.c) == 0 {
		cl.lo, cl.c = o.lo, append([]uint64(nil), o.c...)
		return
	}
	if o.lo < cl.lo {
		grown := make([]uint64, len(cl.c)+int(cl.lo-o.lo))
		copy(grown[cl.lo-o.lo:], cl.c)
		cl.c, cl.lo = grown, o.lo
	}
	off := int(o.lo - cl.lo)
	if need := off + len(o.c); need > len(cl.c) {
		cl.c = append(cl.c, make([]uint64, need-len(cl.c))...)
	}
	for j, x := range o.c {
		cl.c[off+j] += x
	}
}
