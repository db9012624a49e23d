// Package stats holds the sample statistics balloc reports beside its
// estimates: the sample variance about a given mean, a mean with its 95% interval,
// the standard error of a mean, and the lag-1 autocorrelation of batch
// means. Every command, engine and report that needs one of them calls it
// here, so a printed figure has one definition.
//
// Why not gonum/stat: stat.Variance subtracts a compensation term
// ((Σd)²/n, the corrected two-pass algorithm) and stat.Mean sums through
// floats.Sum's unrolled loop, so their results differ from the plain sums
// below in the last bits, and balloc's seeded outputs print figures in
// full. The callers compute their means in their own order (a batch mean
// as Σ f_b/B, a trial mean scaled by a power of two), so these helpers take
// the mean as given and sum in slice order.
package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// sumSq is Σ (x − mean)² over xs in slice order.
func sumSq(xs []float64, mean float64) float64 {
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return ss
}

// Variance is the sample variance of xs about mean, Σ (x − mean)²/(n − 1)
// with n = len(xs), or 0 for fewer than two values.
func Variance(xs []float64, mean float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	return sumSq(xs, mean) / float64(len(xs)-1)
}

// StdErr is the standard error of the mean of xs (their mean given),
// √(Variance/n), treating the values as independent (batch means of
// batches long enough; Lag1 checks it), or 0 for fewer than two values.
func StdErr(xs []float64, mean float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	return math.Sqrt(Variance(xs, mean) / float64(len(xs)))
}

// Lag1 is the lag-1 autocorrelation of the series xs about mean,
// Σ_{b ≥ 1} (x_b − mean)(x_{b−1} − mean) / Σ_b (x_b − mean)², or 0 when
// the denominator is not positive (every value equal to the mean). For
// batch means it checks StdErr's independence: a value near 0 says the
// batches are long enough.
func Lag1(xs []float64, mean float64) float64 {
	num, den := 0.0, 0.0
	for b, x := range xs {
		den += (x - mean) * (x - mean)
		if b > 0 {
			num += (x - mean) * (xs[b-1] - mean)
		}
	}
	if !(den > 0) {
		return 0
	}
	return num / den
}

// MeanCI returns the mean of xs and the half-width of its 95% confidence
// interval (Student t with len(xs) − 1 degrees of freedom; 0 for a single
// value). The sums run over xs scaled by a power of two near their largest
// magnitude, which is exact, so that gaps near 1e154 and beyond (weights
// const:1e154) do not overflow the squares into an infinite interval;
// other values give the same bits as unscaled sums.
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
	return mean * scale, T975(len(xs)-1) * sd / math.Sqrt(float64(len(xs))) * scale
}

// T975 is the 97.5% quantile of Student's t with nu degrees of freedom, the
// factor of a two-sided 95% interval.
func T975(nu int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(nu)}.Quantile(0.975)
}

// Compare orders a before b when a < b, for slices.SortStableFunc; NaN is
// equal to everything, so a stable sort leaves it where it is (unlike
// cmp.Compare, which puts NaN first).
func Compare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
