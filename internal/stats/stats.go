// Package stats holds the sample statistics balloc reports beside its
// estimates: the sample variance and standard deviation about a given mean,
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

import "math"

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

// StdDev is the sample standard deviation of xs about mean, √Variance, or
// 0 for fewer than two values.
func StdDev(xs []float64, mean float64) float64 {
	return math.Sqrt(Variance(xs, mean))
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
