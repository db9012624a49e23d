package engine

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/internal/stattest"
	"github.com/balloc/balloc/kernels"
)

// K-Thinning (core/process/kthinning.go) on the engines: ball for ball
// against literal loops, the exact law of the load vector for tiny n on
// both engines with a power check, and the histogram engine against the
// direct one in distribution.

// kThinningExact is K-Thinning with thresholds θ: sample j is kept when its
// load < t/n + θj, compared exactly in rationals; each rejection passes the
// ball on with the rejected mass; the K-th sample is kept.
func kThinningExact(n int, thetas []float64) transition {
	return func(loads []int, t int) []float64 {
		p := make([]float64, n)
		mass := 1.0
		for _, theta := range thetas {
			x := new(big.Rat).Add(big.NewRat(int64(t), int64(n)), new(big.Rat).SetFloat64(theta))
			reject := 0
			for i, v := range loads {
				if big.NewRat(int64(v), 1).Cmp(x) < 0 {
					p[i] += mass / float64(n)
				} else {
					reject++
				}
			}
			mass *= float64(reject) / float64(n)
		}
		for i := range p {
			p[i] += mass / float64(n)
		}
		return p
	}
}

// kThinningQuantileBy is K-Thinning whose sample with c choices left is
// kept when keep(load, sorted loads, c) holds.
func kThinningQuantileBy(k int, keep func(v int, sorted []int, c int) bool) transition {
	return func(loads []int, _ int) []float64 {
		n := len(loads)
		sorted := slices.Clone(loads)
		slices.Sort(sorted)
		p := make([]float64, n)
		mass := 1.0
		for c := k; c >= 2; c-- {
			reject := 0
			for i, v := range loads {
				if keep(v, sorted, c) {
					p[i] += mass / float64(n)
				} else {
					reject++
				}
			}
			mass *= float64(reject) / float64(n)
		}
		for i := range p {
			p[i] += mass / float64(n)
		}
		return p
	}
}

// quantileIdx is the authors' position, in floating point as their code
// has it (exact for the tiny n here).
func quantileIdx(n, c int) int { return int(math.Floor(float64(n) * (1 - math.Pow(2, -1/float64(c))))) }

// kThinningQuantileExact is the dissertation's rule: kept when the load is
// at most sorted(loads)[⌊n(1 − 2^(−1/c))⌋].
func kThinningQuantileExact(k int) transition {
	return kThinningQuantileBy(k, func(v int, sorted []int, c int) bool { return v <= sorted[quantileIdx(len(sorted), c)] })
}

type thinCase struct {
	params map[string]string
	n, m   int
	law    transition
}

func thinCases() []thinCase {
	th := func(k, thetas string) map[string]string { return map[string]string{"k": k, "thresholds": thetas} }
	return []thinCase{
		{th("3", "0.5,1"), 3, 6, kThinningExact(3, []float64{0.5, 1})},
		{th("3", "1,0.5"), 3, 6, kThinningExact(3, []float64{1, 0.5})},
		{th("4", "0,0.5,1.5"), 4, 5, kThinningExact(4, []float64{0, 0.5, 1.5})},
		{th("3", "-0.5,0.4"), 2, 7, kThinningExact(2, []float64{-0.5, 0.4})},
		{th("2", "0.5"), 3, 6, thinningExact(3, 0.5)}, // two-thinning's own law
		{th("3", "quantile"), 4, 5, kThinningQuantileExact(3)},
		{th("4", "quantile"), 3, 6, kThinningQuantileExact(4)},
		{th("2", "quantile"), 4, 5, kThinningQuantileExact(2)},
		{th("5", "quantile"), 4, 5, kThinningQuantileExact(5)},
	}
}

func TestKThinningDirectMatchesExactLaw(t *testing.T) {
	trials := lawTrials(40000)
	for i, c := range thinCases() {
		t.Run(fmt.Sprintf("%v/n=%d,m=%d", c.params, c.n, c.m), func(t *testing.T) {
			obs := simulateVectors(t, exactCase{"k-thinning", c.params, c.n, c.m, nil}, trials, uint64(5100+i))
			stat, limit, df := stattest.Law(exactLaw(c.n, c.m, c.law), obs, trials)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
		})
	}
}

func TestKThinningHistogramMatchesExactLaw(t *testing.T) {
	trials := lawTrials(30000)
	for i, c := range thinCases() {
		t.Run(fmt.Sprintf("%v/n=%d,m=%d", c.params, c.n, c.m), func(t *testing.T) {
			obs := histogramVectors(t, "k-thinning", c.params, c.n, c.m, trials, uint64(5300+i), 0)
			stat, limit, df := stattest.Law(sortedLaw(exactLaw(c.n, c.m, c.law)), obs, trials)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
		})
	}
}

// The test tells K-Thinning from its neighbours on both engines: the
// thresholds in the other order; the quantile rule with a strict
// comparison (ties at the boundary rejected), with the choices left one
// lower (c − 1, as if the last sample were counted among them), and
// One-Choice.
func TestKThinningExactLawHasPower(t *testing.T) {
	trials := lawTrials(40000)
	strict := kThinningQuantileBy(3, func(v int, s []int, c int) bool { return v < s[quantileIdx(len(s), c)] })
	offByOne := kThinningQuantileBy(3, func(v int, s []int, c int) bool { return v <= s[quantileIdx(len(s), c-1)] })
	for _, c := range []struct {
		params map[string]string
		n, m   int
		wrong  map[string]transition
	}{
		{map[string]string{"k": "3", "thresholds": "0.5,1"}, 3, 6, map[string]transition{"θ swapped": kThinningExact(3, []float64{1, 0.5}), "one-choice": uniformChoice(3)}},
		{map[string]string{"k": "3", "thresholds": "quantile"}, 4, 5, map[string]transition{"strict": strict, "c − 1": offByOne, "one-choice": uniformChoice(4)}},
	} {
		direct := simulateVectors(t, exactCase{"k-thinning", c.params, c.n, c.m, nil}, trials, 9)
		hist := histogramVectors(t, "k-thinning", c.params, c.n, c.m, trials, 10, 0)
		for name, wrong := range c.wrong {
			law := exactLaw(c.n, c.m, wrong)
			sd, ld, _ := stattest.Law(law, direct, trials)
			sh, lh, _ := stattest.Law(sortedLaw(law), hist, trials)
			t.Logf("%v against %s: χ² = %.0f (direct, limit %.0f), %.0f (histogram, limit %.0f)", c.params, name, sd, ld, sh, lh)
			if sd <= ld {
				t.Errorf("%v passed as %s on the direct engine: χ² = %.1f ≤ %.1f", c.params, name, sd, ld)
			}
			if sh <= lh {
				t.Errorf("%v passed as %s on the histogram engine: χ² = %.1f ≤ %.1f", c.params, name, sh, lh)
			}
		}
	}
}

// refKThinningRun is the process written out ball by ball from the first
// trial's stream: every limit t/n + θj recomputed exactly for every ball,
// or the loads sorted afresh for every quantile test.
func refKThinningRun(n, m uint64, k int, thetas []float64, seed uint64) []float64 {
	loads := make([]uint64, n)
	r := kernels.TrialStream(seed, 0, kernels.LaneChoices)
	for t := uint64(0); t < m; t++ {
		var i uint32
		for j := 0; ; j++ {
			i = r.Bounded(uint32(n))
			if j == k-1 {
				break
			}
			if thetas == nil {
				sorted := slices.Clone(loads)
				slices.Sort(sorted)
				if loads[i] <= sorted[quantileIdx(int(n), k-j)] {
					break
				}
				continue
			}
			x := new(big.Rat).Add(new(big.Rat).SetFrac(new(big.Int).SetUint64(t), new(big.Int).SetUint64(n)), new(big.Rat).SetFloat64(thetas[j]))
			if new(big.Rat).SetInt(new(big.Int).SetUint64(loads[i])).Cmp(x) < 0 {
				break
			}
		}
		loads[i]++
	}
	out := make([]float64, n)
	for i, v := range loads {
		out[i] = float64(v)
	}
	return out
}

// The engine against the literal process, ball for ball, with checkpoints
// cutting the stretches; and K = 2 with θ1 = θ is two-thinning --threshold θ
// for the same seed, on both engines.
func TestKThinningEngineMatchesBallByBall(t *testing.T) {
	for _, c := range []struct {
		n, m   uint64
		k      int
		thetas []float64
	}{{10, 5000, 3, []float64{0.5, 1}}, {7, 3000, 4, []float64{1.0 / 3, -0.25, 2}}, {50, 10000, 3, []float64{0, 0}},
		{13, 4000, 2, []float64{-0.75}}, {9, 3000, 3, nil}, {40, 6000, 5, nil}, {1, 200, 3, nil}} {
		text := "quantile"
		if c.thetas != nil {
			parts := make([]string, len(c.thetas))
			for j, x := range c.thetas {
				parts[j] = fmtFloat(x)
			}
			text = strings.Join(parts, ",")
		}
		s := mustSpec(t, "k-thinning", map[string]string{"k": fmt.Sprint(c.k), "thresholds": text},
			core.Common{Bins: c.n, Balls: c.m, Seed: 77, KeepLoads: true, Checkpoints: 7})
		got := RunTrial(s, 0, nil).Loads
		if want := refKThinningRun(c.n, c.m, c.k, c.thetas, 77); !slices.Equal(got, want) {
			t.Fatalf("k=%d thresholds=%s n=%d: loads %v, ball-by-ball reference %v", c.k, text, c.n, got, want)
		}
	}
	for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
		for _, theta := range []string{"0.5", "1", "-2", "0.3333"} {
			run := func(p string, params map[string]string) []float64 {
				r := RunTrial(mustSpec(t, p, params, core.Common{Bins: 1000, Balls: 50000, Seed: 8, Engine: eng, KeepLoads: eng == core.EngineDirect}), 2, nil)
				var out []float64
				for _, l := range r.Histogram {
					out = append(out, l.Load, float64(l.Count))
				}
				return append(out, r.Loads...)
			}
			two := run("two-thinning", map[string]string{"threshold": theta})
			if k := run("k-thinning", map[string]string{"k": "2", "thresholds": theta}); !slices.Equal(two, k) {
				t.Errorf("%s: k-thinning --k 2 --thresholds %s differs from two-thinning --threshold %s", eng, theta, theta)
			}
		}
	}
}

// The histogram engine and the direct engine agree in distribution
// (compareEngines: the gap by a two-sample χ², each level's fraction by a
// Welch t), at n = 1000, m = 20n, 150 trials.
func TestKThinningHistogramAgreesWithDirect(t *testing.T) {
	for i, params := range []map[string]string{
		{"k": "3", "thresholds": "0.5,1"},
		{"k": "4", "thresholds": "0,0,0"},
		{"k": "3", "thresholds": "quantile"},
		{"k": "6", "thresholds": "quantile"},
	} {
		t.Run(fmt.Sprint(params), func(t *testing.T) {
			compareEngines(t, "k-thinning", params, 1000, 20000, 150, 0, uint64(5500+i), uint64(5600+i))
		})
	}
}

// Threshold and Adaptive (core/process/threshold.go).

// retryExact is a ball retrying uniform bins until one has load < lim(t),
// compared exactly in rationals: the ball lands uniformly among those bins.
func retryExact(n int, lim func(t int) *big.Rat) transition {
	return func(loads []int, t int) []float64 {
		x := lim(t)
		p := make([]float64, n)
		var ok []int
		for i, v := range loads {
			if big.NewRat(int64(v), 1).Cmp(x) < 0 {
				ok = append(ok, i)
			}
		}
		for _, i := range ok {
			p[i] = 1 / float64(len(ok))
		}
		return p
	}
}

// thresholdLimit is m/n + 1, adaptiveLimit (t+1)/n + 1 for the ball placed
// after t others (ball i = t + 1, counted from 1).
func thresholdLimit(n, m int) func(int) *big.Rat {
	return func(int) *big.Rat { return new(big.Rat).Add(big.NewRat(int64(m), int64(n)), big.NewRat(1, 1)) }
}

func adaptiveLimit(n, from int) func(int) *big.Rat {
	return func(t int) *big.Rat { return new(big.Rat).Add(big.NewRat(int64(t+from), int64(n)), big.NewRat(1, 1)) }
}

// expectedProbes is the exact mean of a trial's probes per ball: the ball
// after t others takes n/|A| samples on average, A the bins below its limit.
func expectedProbes(n, m int, lim func(int) *big.Rat) float64 {
	law := map[vec]float64{vec(make([]byte, n)): 1}
	tr := retryExact(n, lim)
	total := 0.0
	for t := range m {
		next := map[vec]float64{}
		for v, pv := range law {
			loads := make([]int, n)
			for i := range loads {
				loads[i] = int(v[i])
			}
			p := tr(loads, t)
			ok := 0
			for b, pb := range p {
				if pb == 0 {
					continue
				}
				ok++
				w := []byte(v)
				w[b]++
				next[vec(w)] += pv * pb
			}
			total += pv * float64(n) / float64(ok)
		}
		law = next
	}
	return total / float64(m)
}

type retryCase struct {
	process string
	n, m    int
	lim     func(int) *big.Rat
}

func retryCases() []retryCase {
	return []retryCase{
		{"threshold", 3, 6, thresholdLimit(3, 6)},
		{"threshold", 3, 7, thresholdLimit(3, 7)},
		{"threshold", 2, 7, thresholdLimit(2, 7)},
		{"threshold", 4, 5, thresholdLimit(4, 5)},
		{"adaptive", 3, 6, adaptiveLimit(3, 1)},
		{"adaptive", 2, 7, adaptiveLimit(2, 1)},
		{"adaptive", 4, 6, adaptiveLimit(4, 1)},
	}
}

// Both engines against the exact law of the load vector (sorted, for the
// histogram), and the mean probes per ball against their exact expectation
// (a z-test on the trials' sample variance, |z| < 4.5).
func TestRetryMatchesExactLaw(t *testing.T) {
	trials := lawTrials(30000)
	for i, c := range retryCases() {
		for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			t.Run(fmt.Sprintf("%s/n=%d,m=%d/%s", c.process, c.n, c.m, eng), func(t *testing.T) {
				s := mustSpec(t, c.process, nil, core.Common{Bins: uint64(c.n), Balls: uint64(c.m), Seed: uint64(6000 + i), Engine: eng, KeepLoads: eng == core.EngineDirect})
				obs := map[vec]int{}
				var probes []float64
				for k := range trials {
					r := lawTrial(s, uint64(k))
					var b []byte
					if eng == core.EngineDirect {
						for _, x := range r.Loads {
							b = append(b, byte(x))
						}
					} else {
						for _, l := range r.Histogram {
							for range l.Count {
								b = append(b, byte(l.Load))
							}
						}
					}
					obs[vec(b)]++
					probes = append(probes, r.Probes().Mean)
				}
				law := exactLaw(c.n, c.m, retryExact(c.n, c.lim))
				if eng == core.EngineHistogram {
					law = sortedLaw(law)
				}
				if stat, limit, df := stattest.Law(law, obs, trials); stat > limit {
					t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
				}
				mean, v := meanVar(probes)
				want := expectedProbes(c.n, c.m, c.lim)
				if z := (mean - want) / math.Sqrt(v/float64(trials)); math.Abs(z) > 4.5 {
					t.Errorf("probes per ball %.5f, exact %.5f: z = %.2f", mean, want, z)
				}
			})
		}
	}
}

// The exact-law test has power: adaptive with ball i counted from 0 (load
// < t/n + 1), threshold with ≤ for <, and one-choice, all fail.
func TestRetryExactLawHasPower(t *testing.T) {
	trials := lawTrials(30000)
	le := func(n, m int) transition { // load ≤ m/n + 1
		return func(loads []int, t int) []float64 {
			return retryExact(n, func(int) *big.Rat { return new(big.Rat).Add(big.NewRat(int64(m), int64(n)), big.NewRat(3, 2)) })(loads, t)
		}
	}
	for _, c := range []struct {
		process string
		n, m    int
		wrong   map[string]transition
	}{
		{"adaptive", 3, 6, map[string]transition{"from 0": retryExact(3, adaptiveLimit(3, 0)), "one-choice": uniformChoice(3)}},
		{"threshold", 3, 6, map[string]transition{"≤": le(3, 6), "one-choice": uniformChoice(3)}},
	} {
		obs := simulateVectors(t, exactCase{c.process, nil, c.n, c.m, nil}, trials, 11)
		for name, wrong := range c.wrong {
			stat, limit, _ := stattest.Law(exactLaw(c.n, c.m, wrong), obs, trials)
			t.Logf("%s against %s: χ² = %.0f, limit %.0f", c.process, name, stat, limit)
			if stat <= limit {
				t.Errorf("%s passed as %s: χ² = %.1f ≤ %.1f", c.process, name, stat, limit)
			}
		}
	}
}

// The engine against the literal process ball for ball (limits recomputed
// exactly for every ball, probes counted), with checkpoints.
func TestRetryEngineMatchesBallByBall(t *testing.T) {
	for _, c := range []struct {
		process string
		n, m    uint64
	}{{"threshold", 10, 5000}, {"threshold", 7, 3001}, {"adaptive", 10, 5000}, {"adaptive", 7, 3001}, {"adaptive", 1, 50}, {"threshold", 100, 150}} {
		s := mustSpec(t, c.process, nil, core.Common{Bins: c.n, Balls: c.m, Seed: 78, KeepLoads: true, Checkpoints: 7})
		res := RunTrial(s, 0, nil)
		loads := make([]uint64, c.n)
		r := kernels.TrialStream(78, 0, kernels.LaneChoices)
		total, most := uint64(0), uint64(0)
		for t := uint64(0); t < c.m; t++ {
			x := new(big.Rat).SetFrac(new(big.Int).SetUint64(c.m), new(big.Int).SetUint64(c.n))
			if c.process == "adaptive" {
				x = new(big.Rat).SetFrac(new(big.Int).SetUint64(t+1), new(big.Int).SetUint64(c.n))
			}
			x.Add(x, big.NewRat(1, 1))
			k := uint64(0)
			for {
				i := r.Bounded(uint32(c.n))
				k++
				if new(big.Rat).SetInt(new(big.Int).SetUint64(loads[i])).Cmp(x) < 0 {
					loads[i]++
					break
				}
			}
			total, most = total+k, max(most, k)
		}
		for i, v := range loads {
			if res.Loads[i] != float64(v) {
				t.Fatalf("%s n=%d m=%d: bin %d holds %v, ball-by-ball reference %d", c.process, c.n, c.m, i, res.Loads[i], v)
			}
		}
		if res.Probes() == nil || res.Probes().Max != most || res.Probes().Mean != float64(total)/float64(c.m) {
			t.Fatalf("%s n=%d m=%d: probes %+v, reference total %d max %d", c.process, c.n, c.m, res.Probes(), total, most)
		}
	}
}

// The histogram engine and the direct one agree in distribution on the
// loads (compareEngines) and on the mean probes per ball (Welch t, |t| <
// 4.5), at n = 1000, m = 20n, 150 trials.
func TestRetryHistogramAgreesWithDirect(t *testing.T) {
	for i, p := range []string{"threshold", "adaptive"} {
		t.Run(p, func(t *testing.T) {
			compareEngines(t, p, nil, 1000, 20000, 150, 0, uint64(6500+i), uint64(6600+i))
			probes := func(eng core.Engine, seed uint64) []float64 {
				s := mustSpec(t, p, nil, core.Common{Bins: 1000, Balls: 20000, Seed: seed, Engine: eng})
				var out []float64
				for k := range 150 {
					out = append(out, lawTrial(s, uint64(k)).Probes().Mean)
				}
				return out
			}
			mx, vx := meanVar(probes(core.EngineDirect, uint64(6700+i)))
			my, vy := meanVar(probes(core.EngineHistogram, uint64(6800+i)))
			if tv := (mx - my) / math.Sqrt(vx/150+vy/150); math.Abs(tv) > 4.5 {
				t.Errorf("probes per ball %.5f (direct) vs %.5f (histogram): t = %.2f", mx, my, tv)
			}
		})
	}
}

// K-Thinning's fluid limit (theory.FluidKThinning) against the direct
// engine at n = 2·10^5, m = 4n (fluidAgreement: a Student-t bound per level
// plus 5/n), and told apart from the thresholds in the other order and
// from two-thinning with the first.
func TestKThinningMatchesFluidLimit(t *testing.T) {
	for i, c := range []struct {
		k      string
		thetas []float64
	}{{"3", []float64{0.5, 1}}, {"4", []float64{0, 0.5, 1.5}}, {"3", []float64{1.25, -0.5}}} {
		parts := make([]string, len(c.thetas))
		for j, x := range c.thetas {
			parts[j] = fmtFloat(x)
		}
		s := mustSpec(t, "k-thinning", map[string]string{"k": c.k, "thresholds": strings.Join(parts, ",")}, core.Common{Bins: 200000, Balls: 800000, Seed: uint64(70 + i)})
		worst, levels := fluidAgreement(s, theory.FluidKThinning(c.thetas, 4), 16)
		t.Logf("%v: worst deviation %.2f of the tolerance over %d levels", c.thetas, worst, levels)
		if levels < 3 || worst > 1 {
			t.Errorf("%v: worst deviation %.2f of the tolerance over %d levels", c.thetas, worst, levels)
		}
		if i == 0 {
			for name, wrong := range map[string]theory.Profile{"θ swapped": theory.FluidKThinning([]float64{1, 0.5}, 4), "K = 2": theory.FluidTwoThinning(0.5, 4)} {
				w, _ := fluidAgreement(s, wrong, 16)
				t.Logf("against %s: worst deviation %.2f", name, w)
				if w < 3 {
					t.Errorf("k-thinning 0.5,1 agrees with %s's limit (worst %.2f)", name, w)
				}
			}
		}
	}
}

// Reduction: a first threshold no load reaches keeps every first sample:
// one-choice, draw for draw, whatever the later thresholds.
func TestKThinningReducesToOneChoice(t *testing.T) {
	run := func(p string, params map[string]string) []float64 {
		return RunTrial(mustSpec(t, p, params, core.Common{Bins: 1000, Balls: 100000, Seed: 4, KeepLoads: true}), 3, nil).Loads
	}
	one := run("one-choice", nil)
	for _, th := range []string{"1e15,0", "1e15,-3,7"} {
		k := fmt.Sprint(strings.Count(th, ",") + 2)
		if got := run("k-thinning", map[string]string{"k": k, "thresholds": th}); !slices.Equal(got, one) {
			t.Errorf("k-thinning --k %s --thresholds %s differs from one-choice for the same seed", k, th)
		}
	}
}
