package kernels

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// hypTable is the exact hypergeometric CDF on the window of ±12 standard
// deviations around the mode, by the ratio
// f(k+1)/f(k) = (K−k)(n−k) / ((k+1)(N−K−n+k+1)) from the mode.
func hypTable(N, K, n uint64) binomialTable {
	fN, fK, fn := float64(N), float64(K), float64(n)
	mode := math.Floor((fn + 1) * (fK + 1) / (fN + 2))
	p := fK / fN
	sd := math.Sqrt(fn * p * (1 - p) * (fN - fn) / math.Max(fN-1, 1))
	lo := math.Max(math.Max(0, fn-(fN-fK)), math.Floor(mode-12*sd-30))
	hi := math.Min(math.Min(fn, fK), math.Floor(mode+12*sd+30))
	w := make([]float64, int(hi-lo)+1)
	m := int(mode - lo)
	w[m] = 1
	for i := m; i > 0; i-- { // f(k−1) = f(k)·k(N−K−n+k) / ((K−k+1)(n−k+1))
		k := lo + float64(i)
		w[i-1] = w[i] * k * (fN - fK - fn + k) / ((fK - k + 1) * (fn - k + 1))
	}
	for i := m; i+1 < len(w); i++ {
		k := lo + float64(i)
		w[i+1] = w[i] * (fK - k) * (fn - k) / ((k + 1) * (fN - fK - fn + k + 1))
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

// Hypergeometric draws binned at the exact CDF's quantiles, χ² (p = 1e-4),
// for small and huge populations (counts near 2^40), both symmetries.
func TestHypergeometricAgainstExactCDF(t *testing.T) {
	r := TrialStream(8, 0, LaneChoices)
	cases := []struct{ N, K, n uint64 }{
		{10, 3, 4}, {20, 15, 7}, {100, 30, 50}, {1000, 10, 500}, {1000, 600, 30},
		{1 << 20, 1 << 10, 1 << 19}, {1 << 40, 1 << 39, 1 << 20}, {1<<40 + 7, 1 << 38, 1<<39 + 5},
		{1 << 40, 1000, 1 << 39}, {1 << 40, 1<<40 - 1000, 12345},
	}
	const draws = 200000
	for _, c := range cases {
		t.Run(fmt.Sprintf("N=%d,K=%d,n=%d", c.N, c.K, c.n), func(t *testing.T) {
			tab := hypTable(c.N, c.K, c.n)
			var edges []float64
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
				x := float64(r.Hypergeometric(c.N, c.K, c.n))
				if x > float64(min(c.K, c.n)) {
					t.Fatalf("draw %v exceeds min(K, n)", x)
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
				return
			}
			if limit := (distuv.ChiSquared{K: float64(df - 1)}).Quantile(1 - 1e-4); chi > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f", chi, df-1, limit)
			}
		})
	}
	// Degenerate populations.
	for _, c := range []struct{ N, K, n, want uint64 }{{5, 0, 3, 0}, {5, 5, 3, 3}, {5, 2, 5, 2}, {5, 2, 0, 0}} {
		if got := r.Hypergeometric(c.N, c.K, c.n); got != c.want {
			t.Errorf("Hypergeometric(%d, %d, %d) = %d, want %d", c.N, c.K, c.n, got, c.want)
		}
	}
}

// lnGammaDiff against math.Lgamma where the latter is exact enough, and
// against a sum of logs where the arguments are huge and close.
func TestLnGammaDiff(t *testing.T) {
	for _, c := range [][2]float64{{20000, 19000}, {5e4, 6e4}, {123456, 123400}} {
		la, _ := math.Lgamma(c[0] + 1)
		lb, _ := math.Lgamma(c[1] + 1)
		if got := lnGammaDiff(c[0], c[1]); math.Abs(got-(la-lb)) > 1e-9*math.Abs(la-lb) {
			t.Errorf("lnGammaDiff(%v, %v) = %v, Lgamma says %v", c[0], c[1], got, la-lb)
		}
	}
	a, b := 1e12+50, 1e12 // ln Γ(a+1) − ln Γ(b+1) = Σ_{k=b+1}^{a} ln k
	want := 0.0
	for k := b + 1; k <= a; k++ {
		want += math.Log(k)
	}
	if got := lnGammaDiff(a, b); math.Abs(got-want) > 1e-9 {
		t.Errorf("lnGammaDiff(1e12+50, 1e12) = %.12f, want %.12f", got, want)
	}
}
