package engine

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/balloc/balloc/core"
)

func chiSquaredQuantile(df, p float64) float64 { return distuv.ChiSquared{K: df}.Quantile(p) }

func loadsOf(t *testing.T, process string, params map[string]string, c core.Common, trial uint64) []float64 {
	t.Helper()
	c.KeepLoads = true
	return RunTrial(mustSpec(t, process, params, c), trial, nil).Loads
}

// Zero noise is two-choice, ball for ball, for the same seed: the noise
// comes from its own stream, so the bins drawn are the same. (ρ-Noisy-Comp
// with ρ ≡ 1 breaks ties between equal loads with its own coin: two-choice
// in law, which the exact-law test checks.)
func TestZeroNoiseIsTwoChoice(t *testing.T) {
	for _, w := range []string{"unit", "exp:1"} {
		c := core.Common{Bins: 500, Balls: 50000, Seed: 12}
		two := loadsOf(t, "two-choice", map[string]string{"weights": w}, c, 2)
		for _, p := range []struct {
			process string
			params  map[string]string
		}{
			{"g-adv-comp", map[string]string{"g": "0"}},
			{"g-adv-comp", map[string]string{"g": "0", "adversary": "max-target"}},
			{"sigma-noisy-load", map[string]string{"sigma": "0"}},
			{"tau-delay", map[string]string{"tau": "0"}},
			{"tau-delay", map[string]string{"tau": "0", "delay": "uniform"}},
			{"b-batch", map[string]string{"batch": "1"}},
		} {
			params := map[string]string{"weights": w}
			for k, v := range p.params {
				params[k] = v
			}
			if got := loadsOf(t, p.process, params, c, 2); !slices.Equal(got, two) {
				t.Errorf("%s %v (weights %s) differs from two-choice for the same seed", p.process, p.params, w)
			}
		}
	}
}

// Rules that coincide by definition give the same run for the same seed.
func TestCoincidingRules(t *testing.T) {
	c := core.Common{Bins: 300, Balls: 60000, Seed: 13}
	for _, w := range []string{"unit", "exp:1"} {
		for _, g := range []string{"1", "3"} {
			myopic := loadsOf(t, "g-myopic-comp", map[string]string{"g": g, "weights": w}, c, 0)
			random := loadsOf(t, "g-adv-comp", map[string]string{"g": g, "adversary": "random", "weights": w}, c, 0)
			if !slices.Equal(myopic, random) {
				t.Errorf("g = %s, weights %s: g-adv-comp with the random adversary differs from g-myopic-comp", g, w)
			}
			// max-target's raise x + w − max is non-decreasing in x: always the heavier.
			greedy := loadsOf(t, "g-adv-comp", map[string]string{"g": g, "weights": w}, c, 0)
			target := loadsOf(t, "g-adv-comp", map[string]string{"g": g, "adversary": "max-target", "weights": w}, c, 0)
			if !slices.Equal(greedy, target) {
				t.Errorf("g = %s, weights %s: max-target differs from greedy-reverse", g, w)
			}
		}
	}
}

// meanGap runs trials and returns the mean of max_gap and its standard error.
func meanGap(t *testing.T, process string, params map[string]string, c core.Common, trials int) (float64, float64) {
	t.Helper()
	s := mustSpec(t, process, params, c)
	var xs []float64
	for k := range trials {
		xs = append(xs, lawTrial(s, uint64(k)).MaxGap)
	}
	m, v := meanVar(xs)
	return m, math.Sqrt(v / float64(len(xs)))
}

// The gap grows with the noise, as the paper's bounds say (Los, Sauerwald
// 2022: Θ(g/log g · log log n + g) for g-bounded comparisons; polynomial in σ;
// Θ(b/n) beyond b = n log n for batches, and the same for delays): on fixed
// seeds, each step up in g, σ, τ or b raises the mean max_gap by more than
// four standard errors of the difference.
func TestGapGrowsWithNoise(t *testing.T) {
	t.Parallel()
	const n, trials = 1000, 30
	c := core.Common{Bins: n, Balls: 100 * n, Seed: 21, Checkpoints: 10}
	series := []struct {
		process string
		param   string
		values  []string
		extra   map[string]string
	}{
		{"g-adv-comp", "g", []string{"0", "3", "12"}, nil},
		{"g-myopic-comp", "g", []string{"0", "3", "12"}, nil},
		{"sigma-noisy-load", "sigma", []string{"0", "3", "12"}, nil},
		{"rho-noisy-comp", "rho", []string{"logistic:0.1", "logistic:2", "logistic:8"}, nil},
		{"tau-delay", "tau", []string{"0", "1000", "8000"}, nil},
		{"tau-delay", "tau", []string{"0", "1000", "8000"}, map[string]string{"delay": "uniform"}},
		{"tau-delay", "tau", []string{"0", "1000", "8000"}, map[string]string{"delay": "adversarial"}},
		{"b-batch", "batch", []string{"1", "1000", "8000"}, nil},
	}
	for _, sr := range series {
		t.Run(fmt.Sprint(sr.process, sr.extra), func(t *testing.T) {
			prevM, prevSE := math.Inf(-1), 0.0
			var line []string
			for _, v := range sr.values {
				params := map[string]string{sr.param: v}
				for k, x := range sr.extra {
					params[k] = x
				}
				m, se := meanGap(t, sr.process, params, c, trials)
				line = append(line, fmt.Sprintf("%s=%s: %.2f±%.2f", sr.param, v, m, se))
				if m-prevM <= 4*math.Hypot(se, prevSE) {
					t.Errorf("mean max_gap does not grow enough: %v", line)
				}
				prevM, prevSE = m, se
			}
			t.Log(line)
		})
	}
}

// linearFitChi2 fits y ≈ a + c·x by weighted least squares (weights 1/se²)
// and returns the slope and the χ² of the residuals.
func linearFitChi2(x, y, se []float64) (slope, chi2 float64) {
	var sw, sx, sy, sxx, sxy float64
	for i := range x {
		w := 1 / (se[i] * se[i])
		sw, sx, sy = sw+w, sx+w*x[i], sy+w*y[i]
		sxx, sxy = sxx+w*x[i]*x[i], sxy+w*x[i]*y[i]
	}
	slope = (sw*sxy - sx*sy) / (sw*sxx - sx*sx)
	a := (sy - slope*sx) / sw
	for i := range x {
		r := (y[i] - a - slope*x[i]) / se[i]
		chi2 += r * r
	}
	return slope, chi2
}

// b-Batch with b = n has gap Θ(log n / log log n) (Los, Sauerwald 2022,
// improving O(log n) of Berenbrink et al.), not Two-Choice's log log n: the
// mean gap over n = 10^2 … 10^5 (… 10^6 in make test-long) fits
// a + c·ln n/ln ln n within its standard errors (χ² below the 0.999
// quantile) and does not fit a + c·ln ln n (χ² above it).
func TestBatchOfNGrowsLikeLogOverLogLog(t *testing.T) {
	t.Parallel()
	ns := []uint64{100, 1000, 10000, 100000}
	perBin, trials := uint64(10), 400
	if !testing.Short() {
		ns, perBin, trials = append(ns, 1000000), 20, 160
	}
	var fLog, fLogLog, gaps, ses []float64
	for _, n := range ns {
		s := mustSpec(t, "b-batch", map[string]string{"batch": fmt.Sprint(n)}, core.Common{Bins: n, Balls: perBin * n, Seed: 31})
		xs := make([]float64, trials)
		var wg sync.WaitGroup
		for w := range 2 { // two cores: half the trials each
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := w; k < trials; k += 2 {
					xs[k] = lawTrial(s, uint64(k)).Gap
				}
			}()
		}
		wg.Wait()
		m, v := meanVar(xs)
		se := math.Max(math.Sqrt(v/float64(len(xs))), 0.02)
		ln := math.Log(float64(n))
		fLog, fLogLog = append(fLog, ln/math.Log(ln)), append(fLogLog, math.Log(ln))
		gaps, ses = append(gaps, m), append(ses, se)
	}
	limit := chiSquaredQuantile(float64(len(ns)-2), 0.999)
	slope, good := linearFitChi2(fLog, gaps, ses)
	_, bad := linearFitChi2(fLogLog, gaps, ses)
	t.Logf("mean gaps %v (se %v): χ² %.1f for ln n/ln ln n (slope %.2f), %.1f for ln ln n, limit %.1f", gaps, ses, good, slope, bad, limit)
	if slope <= 0 || good > limit {
		t.Errorf("the gap does not follow a + c·ln n/ln ln n: χ² = %.1f > %.1f (slope %.2f)", good, limit, slope)
	}
	if bad <= limit {
		t.Errorf("the gap is consistent with a + c·ln ln n (χ² = %.1f ≤ %.1f): the test cannot tell", bad, limit)
	}
}
