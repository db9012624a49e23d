package result

import (
	"math"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
)

// Stream accumulates a mean and, by Welford's update, the sum of squared
// deviations, for the tables' means and 95% intervals over trials: the
// mean is the plain sum over the count. The squares are kept divided by
// scale², scale a power of two raised when a value past 1e100 arrives, so
// that gaps near 1e154 do not overflow them; below that scale is 1 and the
// bits are Welford's.
type Stream struct {
	n             int
	sum, mean, m2 float64
	scale         float64 // 0 means 1
}

// Add adds a value.
func (st *Stream) Add(x float64) {
	if st.scale == 0 {
		st.scale = 1
	}
	if a := math.Abs(x); a > 1e100 && a > st.scale && !math.IsInf(a, 0) {
		_, e := math.Frexp(a)
		next := math.Ldexp(1, e)
		r := st.scale / next
		st.m2 *= r * r
		st.scale = next
	}
	st.n++
	st.sum += x
	d := x - st.mean
	st.mean += d / float64(st.n)
	st.m2 += (d / st.scale) * ((x - st.mean) / st.scale)
}

// N is the count of values added.
func (st *Stream) N() int { return st.n }

// CI is the mean of the values added and the half-width of its 95%
// confidence interval (Student t; 0 for a single value).
func (st *Stream) CI() (mean, half float64) {
	mean = st.sum / float64(st.n)
	if st.n < 2 {
		return mean, 0
	}
	scale := max(st.scale, 1)
	sd := math.Sqrt(st.m2 / float64(st.n-1))
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(st.n - 1)}.Quantile(0.975)
	return mean, tq * sd / math.Sqrt(float64(st.n)) * scale
}

// Figure formats a figure for a table: integers in full (loads of 10^6 and
// more must not round), other values to 6 significant digits.
func Figure(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// formatFloat and formatUint write CSV values.
func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
func formatUint(x uint64) string   { return strconv.FormatUint(x, 10) }
