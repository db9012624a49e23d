package kernels

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// binomialTable holds the Binomial(n, p) pmf on the window of ±12 standard
// deviations around the mode (the mass outside is below 1e-30), computed by
// the ratio f(k+1)/f(k) = (n−k)p/((k+1)q) from the mode and normalised: every
// value is accurate to about 1e-16 per step, even for n near 10^12, where
// differences of lgamma lose the digits and the incomplete beta function
// loses its accuracy.
type binomialTable struct {
	lo  float64
	cdf []float64 // cdf[i] = P(X ≤ lo + i)
}

func newBinomialTable(n uint64, p float64) binomialTable {
	fn, q := float64(n), 1-p
	mode := math.Floor((fn + 1) * p)
	mode = math.Min(mode, fn)
	sd := math.Sqrt(fn * p * q)
	lo := math.Max(0, math.Floor(mode-12*sd-30))
	hi := math.Min(fn, math.Floor(mode+12*sd+30))
	w := make([]float64, int(hi-lo)+1)
	m := int(mode - lo)
	w[m] = 1
	for i := m; i > 0; i-- { // f(k−1) = f(k)·k·q/((n−k+1)·p)
		k := lo + float64(i)
		w[i-1] = w[i] * k * q / ((fn - k + 1) * p)
	}
	for i := m; i+1 < len(w); i++ {
		k := lo + float64(i)
		w[i+1] = w[i] * (fn - k) * p / ((k + 1) * q)
	}
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	acc := 0.0
	for i, x := range w {
		acc += x / sum
		w[i] = acc
	}
	return binomialTable{lo: lo, cdf: w}
}

// at is P(X ≤ k).
func (b binomialTable) at(k float64) float64 {
	switch i := int(k - b.lo); {
	case k < b.lo:
		return 0
	case i >= len(b.cdf):
		return 1
	default:
		return b.cdf[i]
	}
}

// TestBinomialAgainstExactCDF bins draws at integer quantiles of the exact
// CDF and applies χ² (p = 1e-4), from tiny n to n near 2^40, across
// inversion (np < 30) and BTPE, p below and above 1/2.
func TestBinomialAgainstExactCDF(t *testing.T) {
	cases := []struct {
		n uint64
		p float64
	}{
		{1, 0.5}, {5, 0.3}, {20, 0.9}, {100, 0.2}, {59, 0.5}, {61, 0.5}, {1000, 0.01}, {1000, 0.03},
		{1000, 0.5}, {100000, 0.37}, {1 << 30, 1e-6}, {1 << 40, 0.3}, {1<<40 + 12345, 1e-9}, {1 << 40, 0.99999},
		{1_000_000_000_000, 0.5}, {1_000_000_000_000, 3e-12},
	}
	r := TrialStream(4, 0, LaneChoices)
	const draws = 200000
	for _, c := range cases {
		t.Run(fmt.Sprintf("n=%d,p=%g", c.n, c.p), func(t *testing.T) {
			// Edges: integers where the CDF crosses i/bins, de-duplicated.
			tab := newBinomialTable(c.n, c.p)
			var edges []float64 // cell i holds (edges[i-1], edges[i]]
			const bins = 40
			next := 1
			for i, f := range tab.cdf {
				if next < bins && f >= float64(next)/bins {
					edges = append(edges, tab.lo+float64(i))
					for next < bins && f >= float64(next)/bins {
						next++
					}
				}
			}
			edges = append(edges, math.Inf(1))
			count := make([]float64, len(edges))
			for range draws {
				x := float64(r.Binomial(c.n, c.p))
				if x > float64(c.n) {
					t.Fatalf("draw %v exceeds n", x)
				}
				i := 0
				for x > edges[i] {
					i++
				}
				count[i]++
			}
			chi, prev, df := 0.0, 0.0, 0
			for i, e := range edges {
				cdf := 1.0
				if !math.IsInf(e, 1) {
					cdf = tab.at(e)
				}
				exp := (cdf - prev) * draws
				prev = cdf
				if exp == 0 {
					if count[i] > 0 {
						t.Fatalf("%v draws in a cell of probability 0", count[i])
					}
					continue
				}
				chi += (count[i] - exp) * (count[i] - exp) / exp
				df++
			}
			if df < 2 {
				return // a point mass, e.g. n = 1: checked by the cell test above
			}
			if limit := (distuv.ChiSquared{K: float64(df - 1)}).Quantile(1 - 1e-4); chi > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f", chi, df-1, limit)
			}
		})
	}
}

func TestMultinomialSumsAndMeans(t *testing.T) {
	r := TrialStream(5, 0, LaneChoices)
	w := []float64{1, 0, 3, 6}
	dst := make([]uint64, 4)
	sum := make([]float64, 4)
	const N, n = 20000, 1000
	for range N {
		r.Multinomial(dst, n, w)
		tot := uint64(0)
		for i, x := range dst {
			tot += x
			sum[i] += float64(x)
		}
		if tot != n || dst[1] != 0 {
			t.Fatalf("multinomial %v", dst)
		}
	}
	for i, x := range w {
		p := x / 10
		if p == 0 {
			continue
		}
		se := math.Sqrt(n * p * (1 - p) / N)
		if z := (sum[i]/N - n*p) / se; math.Abs(z) > 4.5 {
			t.Errorf("cell %d mean %.2f, want %.1f (z %.1f)", i, sum[i]/N, n*p, z)
		}
	}
}
