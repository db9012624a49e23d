package engine

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/internal/stattest"
)

// sortedLaw folds a law of load vectors into the law of their sorted
// vectors: all the histogram engine can see.
func sortedLaw(law map[vec]float64) map[vec]float64 {
	out := map[vec]float64{}
	for v, p := range law {
		b := []byte(v)
		slices.Sort(b)
		out[vec(b)] += p
	}
	return out
}

// histogramVectors runs the histogram engine and tallies the sorted load
// vectors of its final histograms.
func histogramVectors(t *testing.T, process string, params map[string]string, n, m, trials int, seed, batch uint64) map[vec]int {
	t.Helper()
	s := mustSpec(t, process, params, core.Common{Bins: uint64(n), Balls: uint64(m), Seed: seed, Engine: core.EngineHistogram, LevelBatch: batch})
	obs := map[vec]int{}
	for k := range trials {
		r := lawTrial(s, uint64(k))
		var b []byte
		for _, l := range r.Histogram {
			for range l.Count {
				b = append(b, byte(math.Round(l.Load/s.Weights.Scale())))
			}
		}
		if len(b) != n {
			t.Fatalf("histogram holds %d bins, want %d", len(b), n)
		}
		obs[vec(b)]++
	}
	return obs
}

// The histogram engine against the exact law of the sorted load vector, for
// every process it runs: ball by ball, and with the batched paths forced on
// tiny n (level batches of 2 to 8 balls — up to the whole run in one batch,
// where every width reaches its cap and new top levels chain — and
// one-choice's occupancy throws of ≥ 64 balls, which take the Poissonised
// path).
func TestHistogramMatchesExactLaw(t *testing.T) {
	t.Parallel()
	trials := lawTrials(30000)
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	cases := []struct {
		process string
		params  map[string]string
		n, m    int
		law     map[vec]float64
		batch   uint64
	}{
		{"one-choice", nil, 3, 6, exactLaw(3, 6, uniformChoice(3)), 0},
		{"one-choice", nil, 3, 70, exactLaw(3, 70, uniformChoice(3)), 0},
		{"one-choice", nil, 2, 100, exactLaw(2, 100, uniformChoice(2)), 0},
		{"two-choice", nil, 3, 6, exactLaw(3, 6, dChoiceExact(3, 2)), 0},
		{"two-choice", nil, 3, 7, exactLaw(3, 7, dChoiceExact(3, 2)), 2},
		{"two-choice", nil, 4, 7, exactLaw(4, 7, dChoiceExact(4, 2)), 3},
		{"d-choice", map[string]string{"d": "3"}, 3, 6, exactLaw(3, 6, dChoiceExact(3, 3)), 5},
		{"two-choice", nil, 2, 8, exactLaw(2, 8, dChoiceExact(2, 2)), 8},
		{"two-choice", nil, 4, 6, exactLaw(4, 6, dChoiceExact(4, 2)), 6},
		{"d-choice", map[string]string{"d": "3"}, 4, 6, exactLaw(4, 6, dChoiceExact(4, 3)), 4},
		{"one-plus-beta", map[string]string{"beta": "0.5"}, 4, 6, exactLaw(4, 6, mix(0.5, uniformChoice(4), dChoiceExact(4, 2))), 6},
		{"one-plus-beta", map[string]string{"beta": "0.8"}, 2, 7, exactLaw(2, 7, mix(0.8, uniformChoice(2), dChoiceExact(2, 2))), 4},
		{"one-plus-beta", map[string]string{"beta": "0.3"}, 3, 6, exactLaw(3, 6, mix(0.3, uniformChoice(3), dChoiceExact(3, 2))), 0},
		{"one-plus-beta", map[string]string{"beta": "0.6"}, 3, 7, exactLaw(3, 7, mix(0.6, uniformChoice(3), dChoiceExact(3, 2))), 3},
		{"two-thinning", map[string]string{"threshold": "0.5"}, 3, 6, exactLaw(3, 6, thinningExact(3, 0.5)), 0},
		{"g-adv-comp", map[string]string{"g": "1"}, 3, 6, exactLawHist(3, 6, gcompHist("greedy-reverse", 1)), 0},
		{"g-adv-comp", map[string]string{"g": "2", "adversary": "max-target"}, 3, 6, exactLawHist(3, 6, gcompHist("max-target", 2)), 0},
		{"g-myopic-comp", map[string]string{"g": "1"}, 3, 6, exactLawHist(3, 6, gcompHist("random", 1)), 0},
		{"sigma-noisy-load", map[string]string{"sigma": "0.8"}, 3, 6,
			exactLawHist(3, 6, rhoHist(func(d float64) float64 { return phi(d / (math.Sqrt2 * 0.8)) })), 0},
		{"rho-noisy-comp", map[string]string{"rho": "step:1,0.25"}, 3, 6,
			exactLawHist(3, 6, rhoHist(func(d float64) float64 { return map[bool]float64{true: 0.25, false: 1}[d <= 1] })), 0},
		{"b-batch", map[string]string{"batch": "3"}, 3, 7, exactLawHist(3, 7, batchHist(3)), 0},
		{"quantile", map[string]string{"delta": "0.5"}, 3, 6, exactLaw(3, 6, quantileExact(3, 0.5)), 0},
		{"d-choice", map[string]string{"d": "3", "batch": "2"}, 3, 6, exactLawHist(3, 6, batchedHist(2, 3, 1)), 0},
		{"one-plus-beta", map[string]string{"beta": "0.5", "batch": "3"}, 3, 7, exactLawHist(3, 7, batchedHist(3, 2, 0.5)), 0},
		{"quantile", map[string]string{"delta": "0.3"}, 4, 5, exactLaw(4, 5, quantileExact(4, 0.3)), 0},
		{"mixed-quantile", map[string]string{"delta": "0.5", "eta": "0.4"}, 4, 5, exactLaw(4, 5, mix(0.4, uniformChoice(4), quantileExact(4, 0.5))), 0},
		{"b-batch", map[string]string{"batch": "2"}, 4, 5, exactLawHist(4, 5, batchHist(2)), 0},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s%v/n=%d,m=%d,batch=%d", c.process, c.params, c.n, c.m, c.batch), func(t *testing.T) {
			obs := histogramVectors(t, c.process, c.params, c.n, c.m, trials, uint64(3000+i), c.batch)
			stat, limit, df := stattest.Law(sortedLaw(c.law), obs, trials)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
		})
	}
}

// The histogram engine and the direct engine agree in distribution: the
// final gap (two-sample χ², p = 1e-4) and the mean fraction of bins at each
// load relative to m/n (Welch t, |t| < 4.5 per level), over 150 seeded
// trials each, at n = 1000 and m = 20n. The level batches of d-choice and
// (1+β) are forced with 64 balls (they run ball by ball at this n
// otherwise); their own sizes run in the fluid tests below.
//
// 75 trials an engine under -short: a histogram engine running a
// neighbouring parameter still fails every case there (same seeds; largest
// Welch |t| against 4.5, at 150 trials in brackets): β = 0.1 for
// one-choice 31.4 [46.2], β = 0.9 for two-choice 24.0 and, batched, 19.8,
// d = 4 for 3 37.9, β = 0.4 for 0.5 32.3, 32.5 and 27.8 (batch 1000), θ = 2
// for 1 117.6, g = 3 for 2 70.8 and 43.4, σ = 2.5 for 2 18.1, logistic:1.5
// for :1 28.0, b = 800 for 1000 9.9 [14.8], δ = 0.4 for 0.5 35.5, 0.1 for
// 0.05 58.6, d-choice batch 400 for 300 17.5; the right engines stay
// within 3.1. (b = 60 for 77 passes at 150 trials too: 2.7.)
func TestHistogramAgreesWithDirect(t *testing.T) {
	t.Parallel()
	const n, m = 1000, 20000
	trials := 150
	if testing.Short() {
		trials = 75
	}
	cases := []struct {
		process string
		params  map[string]string
		batch   uint64
	}{
		{"one-choice", nil, 0},
		{"two-choice", nil, 0},
		{"two-choice", nil, 64},
		{"d-choice", map[string]string{"d": "3"}, 64},
		{"one-plus-beta", map[string]string{"beta": "0.5"}, 0},
		{"one-plus-beta", map[string]string{"beta": "0.5"}, 64},
		{"two-thinning", map[string]string{"threshold": "1"}, 0},
		{"g-adv-comp", map[string]string{"g": "2"}, 0},
		{"g-myopic-comp", map[string]string{"g": "2"}, 0},
		{"sigma-noisy-load", map[string]string{"sigma": "2"}, 0},
		{"rho-noisy-comp", map[string]string{"rho": "logistic:1"}, 0},
		{"b-batch", map[string]string{"batch": "1000"}, 0},
		{"b-batch", map[string]string{"batch": "77"}, 0},
		{"quantile", map[string]string{"delta": "0.5"}, 0},
		{"one-plus-beta", map[string]string{"beta": "0.5", "batch": "1000"}, 0},
		{"d-choice", map[string]string{"d": "3", "batch": "300"}, 0},
		{"quantile", map[string]string{"delta": "0.05"}, 0},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s%v/batch=%d", c.process, c.params, c.batch), func(t *testing.T) {
			compareEngines(t, c.process, c.params, n, m, trials, c.batch, uint64(500+i), uint64(700+i))
		})
	}
}

// Heavy load, where the level batches are built to run: n = 1000 and
// m = 1000·n, the histogram engine with level batches forced (at this n they
// would go ball by ball) against the direct engine, by the same tests.
// Batches of 500 balls hold about 200 uncertain balls each, with widths far
// past their expected values: a wrong bridge or bound shows.
//
// Long suite only (it was the slowest -short test, 134 s at load): -short
// keeps the level batches forced at n = 1000 (TestHistogramAgreesWithDirect,
// 64 balls) and the level batches at heavy load on their own sizes
// (TestHistogramHeavyMatchesFluidAtScale, m = 32n).
func TestHistogramHeavyAgreesWithDirect(t *testing.T) {
	if testing.Short() {
		t.Skip("4 × 2 × 40 trials of 10^6 balls; the fast checks of the level batches are TestHistogramAgreesWithDirect and TestHistogramHeavyMatchesFluidAtScale")
	}
	const n, m = 1000, 1000 * 1000
	trials := 120
	for i, c := range []struct {
		process string
		params  map[string]string
		batch   uint64
	}{
		{"two-choice", nil, 500},
		{"two-choice", nil, 64},
		{"d-choice", map[string]string{"d": "3"}, 300},
		{"one-plus-beta", map[string]string{"beta": "0.5"}, 500},
	} {
		t.Run(fmt.Sprintf("%s%v/batch=%d", c.process, c.params, c.batch), func(t *testing.T) {
			compareEngines(t, c.process, c.params, n, m, trials, c.batch, uint64(900+i), uint64(950+i))
		})
	}
}

// compareEngines runs trials of each engine (the histogram one with level
// batches of the given size, 0 for its own) and compares the final gap
// (two-sample χ², p = 1e-4) and the mean fraction of bins at each load
// relative to m/n (Welch t, |t| < 4.5 per level).
func compareEngines(t *testing.T, process string, params map[string]string, n, m uint64, trials int, batch, seedD, seedH uint64) {
	t.Helper()
	type sample struct {
		gaps map[float64]int
		frac map[int][]float64 // level − m/n → per-trial fraction ≥ level
	}
	run := func(engine core.Engine, seed uint64) sample {
		c := core.Common{Bins: n, Balls: m, Seed: seed, Engine: engine}
		if engine == core.EngineHistogram {
			c.LevelBatch = batch
		}
		s := mustSpec(t, process, params, c)
		out := sample{gaps: map[float64]int{}, frac: map[int][]float64{}}
		for k := range trials {
			r := lawTrial(s, uint64(k))
			out.gaps[r.Gap]++
			for rel := -6; rel <= 6; rel++ {
				out.frac[rel] = append(out.frac[rel], result.FractionAtLeast(r.Histogram, float64(m/n)+float64(rel), n))
			}
		}
		return out
	}
	d, h := run(core.EngineDirect, seedD), run(core.EngineHistogram, seedH)
	if stat, limit, df := stattest.TwoSample(d.gaps, h.gaps); stat > limit {
		t.Errorf("gap distributions differ: χ² = %.1f on %d df > %.1f (direct %v, histogram %v)", stat, df, limit, d.gaps, h.gaps)
	}
	for rel, xs := range d.frac {
		ys := h.frac[rel]
		mx, vx := meanVar(xs)
		my, vy := meanVar(ys)
		se := math.Sqrt(vx/float64(len(xs)) + vy/float64(len(ys)))
		if se == 0 {
			if mx != my {
				t.Errorf("level m/n%+d: fraction %v (direct) vs %v (histogram), both without spread", rel, mx, my)
			}
			continue
		}
		if tv := (mx - my) / se; math.Abs(tv) > 4.5 {
			t.Errorf("level m/n%+d: fraction %.5f (direct) vs %.5f (histogram): t = %.2f", rel, mx, my, tv)
		}
	}
}

func meanVar(xs []float64) (float64, float64) {
	m, ss := 0.0, 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, ss / float64(len(xs)-1)
}

// The batched paths at the scale they are built for: at n = 10^8 (10^7 in
// the fast suite) the fluid limit is exact to about 10^-8, and 12 trials
// resolve each level's fraction to a few 10^-6, so a bias in the level
// batches would show.
func TestHistogramBatchedMatchesFluidAtScale(t *testing.T) {
	t.Parallel()
	n := uint64(100_000_000)
	if testing.Short() {
		n = 10_000_000
	}
	for _, c := range []struct {
		process string
		params  map[string]string
		perBin  uint64
		p       theory.Profile
	}{
		{"two-choice", nil, 1, theory.FluidDChoice(2, 1)},
		{"two-choice", nil, 4, theory.FluidDChoice(2, 4)},
		{"d-choice", map[string]string{"d": "3"}, 2, theory.FluidDChoice(3, 2)},
		{"one-plus-beta", map[string]string{"beta": "0.4"}, 3, fluidOnePlusBeta(0.4, 3)},
		{"one-choice", nil, 5, theory.FluidOneChoice(5)},
	} {
		s := mustSpec(t, c.process, c.params, core.Common{Bins: n, Balls: c.perBin * n, Seed: 17, Engine: core.EngineHistogram})
		worst, levels := fluidAgreement(s, c.p, 12)
		t.Logf("%s %v m = %dn: worst deviation %.2f of the tolerance over %d levels", c.process, c.params, c.perBin, worst, levels)
		if levels < 3 || worst > 1 {
			t.Errorf("%s %v m = %dn: worst deviation %.2f of the tolerance over %d levels", c.process, c.params, c.perBin, worst, levels)
		}
	}
	// Power: the same runs are far from a neighbouring limit.
	s := mustSpec(t, "two-choice", nil, core.Common{Bins: n, Balls: n, Seed: 17, Engine: core.EngineHistogram})
	if worst, _ := fluidAgreement(s, fluidOnePlusBeta(0.99, 1), 12); worst < 3 {
		t.Errorf("two-choice agrees with (1+β), β = 0.99 (worst %.2f): the test cannot tell them apart", worst)
	}
}

// The level batches at heavy load, at the scale they are built for: n = 10^6
// and m = 32·n (10^8 and 200·n in the long suite), against the fluid limit
// as above; and the power check that a neighbouring law fails there, at the
// same n: (1+β) at β = 0.5 against β = 0.45's limit.
func TestHistogramHeavyMatchesFluidAtScale(t *testing.T) {
	t.Parallel()
	n, perBin := uint64(100_000_000), uint64(200)
	if testing.Short() {
		n, perBin = 1_000_000, 32
	}
	T := float64(perBin)
	for _, c := range []struct {
		process string
		params  map[string]string
		p       theory.Profile
	}{
		{"two-choice", nil, theory.FluidDChoice(2, T)},
		{"d-choice", map[string]string{"d": "3"}, theory.FluidDChoice(3, T)},
		{"one-plus-beta", map[string]string{"beta": "0.5"}, fluidOnePlusBeta(0.5, T)},
	} {
		s := mustSpec(t, c.process, c.params, core.Common{Bins: n, Balls: perBin * n, Seed: 23, Engine: core.EngineHistogram})
		worst, levels := fluidAgreement(s, c.p, 12)
		t.Logf("%s %v m = %dn: worst deviation %.2f of the tolerance over %d levels", c.process, c.params, perBin, worst, levels)
		if levels < 5 || worst > 1 {
			t.Errorf("%s %v m = %dn: worst deviation %.2f of the tolerance over %d levels", c.process, c.params, perBin, worst, levels)
		}
	}
	s := mustSpec(t, "one-plus-beta", map[string]string{"beta": "0.5"}, core.Common{Bins: n, Balls: perBin * n, Seed: 23, Engine: core.EngineHistogram})
	if worst, _ := fluidAgreement(s, fluidOnePlusBeta(0.45, T), 12); worst < 3 {
		t.Errorf("(1+β), β = 0.5, agrees with β = 0.45 at m = %dn (worst %.2f): the test cannot tell them apart", perBin, worst)
	}
}

// One-choice on the histogram engine against the exact occupancy moments,
// as for the direct engine, and at m/n = 10^6 in one throw.
func TestHistogramOneChoiceOccupancy(t *testing.T) {
	const n, m, trials = 10000, 50000, 40
	s := mustSpec(t, "one-choice", nil, core.Common{Bins: n, Balls: m, Seed: 6, Engine: core.EngineHistogram})
	sum := map[int]float64{}
	for k := range trials {
		for _, l := range lawTrial(s, uint64(k)).Histogram {
			sum[int(l.Load)] += float64(l.Count)
		}
	}
	for k := 0; k <= 30; k++ {
		mean, v := occupancyMoments(n, m, k)
		if mean < 20 {
			continue
		}
		if z := (sum[k]/trials - mean) / math.Sqrt(v/trials); math.Abs(z) > 4.5 {
			t.Errorf("level %d: mean count %.1f, exact %.1f: z = %.2f", k, sum[k]/trials, mean, z)
		}
	}
	// Heavy: the loads of 10^3 bins after 10^9 balls are Binomial(10^9, 10^-3)
	// each; the mean and variance of a bin's load over the histogram.
	s = mustSpec(t, "one-choice", nil, core.Common{Bins: 1000, Balls: 1e9, Seed: 7})
	if s.ResolvedEngine() != core.EngineHistogram {
		t.Fatalf("auto chose %s for one-choice at 10^6 balls per bin", s.ResolvedEngine())
	}
	r := RunTrial(s, 0, nil)
	mean, sq := 0.0, 0.0
	for _, l := range r.Histogram {
		mean += l.Load * float64(l.Count)
		sq += l.Load * l.Load * float64(l.Count)
	}
	if mean != 1e9 {
		t.Errorf("the histogram holds %v balls, want 1e9", mean)
	}
	variance := sq/1000 - 1e6*1e6
	// The sample variance of 1000 (nearly independent) binomial loads has
	// relative standard error √(2/999) ≈ 4.5%.
	if want := 1e9 * 1e-3 * (1 - 1e-3); math.Abs(variance/want-1) > 5*math.Sqrt(2.0/999) {
		t.Errorf("load variance %.0f, want %.0f", variance, want)
	}
}
