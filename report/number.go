package report

import (
	"math"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
)

// MeanCI returns the mean of xs and the half-width of its 95% confidence
// interval (Student t; 0 for a single value). The sums run over xs scaled
// by a power of two near their largest magnitude, which is exact, so that
// gaps near 1e154 and beyond (--weights const:1e154) do not overflow the
// squares into an infinite interval; other values give the same bits as
// unscaled sums.
func MeanCI(xs []float64) (mean, half float64) {
	scale := 1.0
	top := 0.0
	for _, x := range xs {
		top = max(top, math.Abs(x))
	}
	if top > 1e100 && !math.IsInf(top, 0) {
		_, e := math.Frexp(top)
		scale = math.Ldexp(1, e)
	}
	for _, x := range xs {
		mean += x / scale
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean * scale, 0
	}
	ss := 0.0
	for _, x := range xs {
		d := x/scale - mean
		ss += d * d
	}
	sd := math.Sqrt(ss / float64(len(xs)-1))
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(0.975)
	return mean * scale, tq * sd / math.Sqrt(float64(len(xs))) * scale
}

// Number formats a figure for a table: integers in full (loads of 10^6 and
// more must not round), other values to 6 significant digits.
func Number(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}
