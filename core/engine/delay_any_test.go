package engine

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
)

// τ-Delay as a setting of d-choice, one-plus-beta, (mixed-)quantile and
// two-thinning (core/process/delay.go), and two-thinning in batches:
// reductions trial for trial, and exact laws over whole allocation
// sequences (noise_exact_test.go's exactLawHist) with power checks.

// sameTrials reports whether two specs give the same trials: loads, gap,
// max_gap and histogram, over trials with checkpoints.
func sameTrials(t *testing.T, a, b *core.Spec, trials int) bool {
	t.Helper()
	for k := range uint64(trials) {
		x, y := RunTrial(a, k, nil), RunTrial(b, k, nil)
		if !slices.Equal(x.Loads, y.Loads) || x.Gap != y.Gap || x.MaxGap != y.MaxGap || !slices.Equal(x.Histogram, y.Histogram) {
			return false
		}
	}
	return true
}

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// two-choice --tau T --delay X is tau-delay --tau T --delay X, ball for
// ball, in every mode (weighted too), and so are d-choice --d 2 and
// one-plus-beta --beta 1 with the same delay.
func TestTwoChoiceDelayIsTauDelay(t *testing.T) {
	const balls = 6000
	ages := writeTemp(t, "ages.txt", "0 3\n5 1\n40 2\n")
	var rp strings.Builder
	for k := range balls {
		fmt.Fprintln(&rp, (k*k)%57)
	}
	replay := writeTemp(t, "replay.txt", rp.String())
	c := core.Common{Bins: 64, Balls: balls, Seed: 8, Checkpoints: 4, KeepLoads: true}
	for _, set := range []map[string]string{
		{"tau": "1"}, {"tau": "64"}, {"tau": "5000", "delay": "uniform"}, {"tau": "30", "delay": "adversarial"},
		{"delay": "empirical", "ages": ages}, {"delay": "replay", "replay": replay},
		{"tau": "64", "weights": "exp:1"}, {"tau": "9", "delay": "uniform", "weights": "exp:1"}, {"delay": "empirical", "ages": ages, "weights": "exp:1"},
	} {
		want := mustSpec(t, "tau-delay", set, c)
		for _, tw := range []struct {
			process string
			extra   map[string]string
		}{{"two-choice", nil}, {"d-choice", map[string]string{"d": "2"}}, {"one-plus-beta", map[string]string{"beta": "1"}}} {
			if tw.process == "one-plus-beta" && set["weights"] != "" {
				continue // one-plus-beta places unit balls
			}
			params := map[string]string{}
			for k, v := range set {
				params[k] = v
			}
			for k, v := range tw.extra {
				params[k] = v
			}
			if !sameTrials(t, mustSpec(t, tw.process, params, c), want, 3) {
				t.Errorf("%s %v differs from tau-delay %v", tw.process, params, set)
			}
		}
	}
}

// --tau 0, whatever --delay says, is the process itself, trial for trial,
// on both engines; --batch 1 of two-thinning is two-thinning.
func TestTauZeroIsTheProcess(t *testing.T) {
	for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
		c := core.Common{Bins: 200, Balls: 30_000, Seed: 4, Engine: eng, Checkpoints: 3}
		for _, p := range []struct {
			process string
			params  map[string]string
		}{
			{"two-choice", nil}, {"d-choice", map[string]string{"d": "3"}}, {"one-plus-beta", map[string]string{"beta": "0.5"}},
			{"quantile", map[string]string{"delta": "0.5"}}, {"mixed-quantile", map[string]string{"delta": "0.25", "eta": "0.5"}},
			{"two-thinning", map[string]string{"threshold": "1"}},
		} {
			plain := mustSpec(t, p.process, p.params, c)
			for _, extra := range []map[string]string{{"tau": "0"}, {"tau": "0", "delay": "uniform"}, {"batch": "1"}} {
				params := map[string]string{}
				for k, v := range p.params {
					params[k] = v
				}
				for k, v := range extra {
					params[k] = v
				}
				if p.process == "two-choice" && extra["batch"] != "" {
					continue // two-choice in batches is b-batch
				}
				if !sameTrials(t, mustSpec(t, p.process, params, c), plain, 2) {
					t.Errorf("%s %v on %s differs from %s %v", p.process, params, eng, p.process, p.params)
				}
			}
		}
	}
}

// Degenerate cases: one-plus-beta β = 0 and d-choice d = 1 read no loads,
// so a delay changes nothing; a replay of constant ages τ is --delay fixed
// --tau τ for every delayed process.
func TestDelaySettingReductions(t *testing.T) {
	const balls = 5000
	c := core.Common{Bins: 50, Balls: balls, Seed: 6, Checkpoints: 2, KeepLoads: true}
	one := mustSpec(t, "one-choice", nil, c)
	for _, p := range []struct {
		process string
		params  map[string]string
	}{{"one-plus-beta", map[string]string{"beta": "0", "tau": "20"}}, {"d-choice", map[string]string{"d": "1", "tau": "20", "delay": "uniform"}}} {
		if !sameTrials(t, mustSpec(t, p.process, p.params, c), one, 2) {
			t.Errorf("%s %v differs from one-choice", p.process, p.params)
		}
	}
	const tau = 37
	replay := writeTemp(t, "replay.txt", strings.Repeat(fmt.Sprintln(tau), balls))
	for _, p := range []struct {
		process string
		params  map[string]string
	}{
		{"d-choice", map[string]string{"d": "3"}}, {"one-plus-beta", map[string]string{"beta": "0.5"}},
		{"two-thinning", map[string]string{"threshold": "0.5"}},
	} {
		fixed, rep := map[string]string{"tau": fmt.Sprint(tau)}, map[string]string{"delay": "replay", "replay": replay}
		for k, v := range p.params {
			fixed[k], rep[k] = v, v
		}
		if !sameTrials(t, mustSpec(t, p.process, rep, c), mustSpec(t, p.process, fixed, c), 2) {
			t.Errorf("%s %v: a replay of constant ages %d is not --delay fixed --tau %d", p.process, p.params, tau, tau)
		}
	}
}

// readings are a ball's d readings of its samples s at ages ages (hist
// holds the bins so far).
func readings(hist []int, n int, s, ages []int) []int {
	r := make([]int, len(s))
	for q, b := range s {
		r[q] = loadsAfter(hist, n, len(hist)-ages[q])[b]
	}
	return r
}

// tuples calls f for every tuple of d values in [0, k), each with
// probability k^−d.
func tuples(d, k int, f func(x []int, p float64)) {
	x := make([]int, d)
	var rec func(q int, p float64)
	rec = func(q int, p float64) {
		if q == d {
			f(x, p)
			return
		}
		for v := range k {
			x[q] = v
			rec(q+1, p/float64(k))
		}
	}
	rec(0, 1)
}

// splitLeast gives mass p to the samples of least reading, split evenly
// (ties at random, as the process defines them).
func splitLeast(law []float64, s, read []int, p float64) {
	lo := slices.Min(read)
	tied := 0
	for _, r := range read {
		if r == lo {
			tied++
		}
	}
	for q, r := range read {
		if r == lo {
			law[s[q]] += p / float64(tied)
		}
	}
}

// delayedDChoiceHist is d-choice with delayed reads, from the definitions:
// fixed, every read τ balls old; uniform, an independent age in {0, …, τ}
// per read; shared, one uniform age per ball for all its reads (the
// empirical mode's rule, here for the power check); adversarial, each
// sample h in turn shown at its load τ balls ago and the others now, the
// ball to the heaviest h that then wins (first least reading), the first
// such sample on equal loads.
func delayedDChoiceHist(d, tau int, mode string) histTransition {
	return func(hist []int, n int) []float64 {
		law := make([]float64, n)
		tuples(d, n, func(s []int, ps float64) {
			switch mode {
			case "fixed":
				ages := slices.Repeat([]int{tau}, d)
				splitLeast(law, s, readings(hist, n, s, ages), ps)
			case "uniform":
				tuples(d, tau+1, func(ages []int, pa float64) {
					splitLeast(law, s, readings(hist, n, s, ages), ps*pa)
				})
			case "shared":
				for a := 0; a <= tau; a++ {
					splitLeast(law, s, readings(hist, n, s, slices.Repeat([]int{a}, d)), ps/float64(tau+1))
				}
			case "adversarial":
				now := loadsAfter(hist, n, len(hist))
				best := -1
				for h := range s {
					ages := make([]int, d)
					ages[h] = tau
					read := readings(hist, n, s, ages)
					w := 0
					for q := range read {
						if read[q] < read[w] {
							w = q
						}
					}
					if w == h && (best < 0 || now[s[h]] > now[s[best]]) {
						best = h
					}
				}
				law[s[best]] += ps
			}
		})
		return law
	}
}

// onePlusBetaDelayHist: with probability β a delayed two-choice step, else
// one-choice.
func onePlusBetaDelayHist(beta float64, tau int, mode string) histTransition {
	two := delayedDChoiceHist(2, tau, mode)
	return func(hist []int, n int) []float64 {
		p := two(hist, n)
		for i := range p {
			p[i] = beta*p[i] + (1-beta)/float64(n)
		}
		return p
	}
}

// thinningDelayHist: the first sample's load read at its age against
// t/n + θ for the t balls placed, exactly in rationals; the adversary keeps
// the first sample when it can (its load τ balls ago is below the limit)
// and either it must (its load now is below too) or it is no lighter than
// the second sample.
func thinningDelayHist(theta float64, tau int, mode string) histTransition {
	th := new(big.Rat).SetFloat64(theta)
	return func(hist []int, n int) []float64 {
		t := len(hist)
		limit := new(big.Rat).Add(big.NewRat(int64(t), int64(n)), th)
		below := func(x int) bool { return new(big.Rat).SetInt64(int64(x)).Cmp(limit) < 0 }
		now, old := loadsAfter(hist, n, t), loadsAfter(hist, n, t-tau)
		law := make([]float64, n)
		for i := range n {
			for j := range n {
				p := 1 / float64(n*n)
				switch mode {
				case "adversarial":
					if below(old[i]) && (below(now[i]) || now[i] >= now[j]) {
						law[i] += p
					} else {
						law[j] += p
					}
				case "fixed", "uniform":
					keep := 0.0
					for a := 0; a <= tau; a++ {
						if mode == "fixed" && a != tau {
							continue
						}
						if below(loadsAfter(hist, n, t-a)[i]) {
							keep++
						}
					}
					if mode == "uniform" {
						keep /= float64(tau + 1)
					}
					law[i] += p * keep
					law[j] += p * (1 - keep)
				}
			}
		}
		return law
	}
}

// thinningBatchHist: every ball of a batch reads the loads at its start and
// compares with t₀/n + θ for the t₀ balls placed then.
func thinningBatchHist(theta float64, b int) histTransition {
	return func(hist []int, n int) []float64 {
		t0 := len(hist) - len(hist)%b
		return thinningExact(n, theta)(loadsAfter(hist, n, t0), t0)
	}
}

// quantileDelayHist: the rank test on the loads τ balls ago (η of it for
// mixed-quantile, else one-choice).
func quantileDelayHist(delta, eta float64, tau int) histTransition {
	return func(hist []int, n int) []float64 {
		t := len(hist)
		return mix(eta, uniformChoice(n), quantileExact(n, delta))(loadsAfter(hist, n, t-tau), t)
	}
}

func TestDelaySettingMatchesExactLaw(t *testing.T) {
	t.Parallel()
	trials := lawTrials(30000)
	ages := writeTemp(t, "ages.txt", "0 1\n1 1\n2 1\n") // uniform on {0, 1, 2}, one age a ball
	cases := []struct {
		process string
		params  map[string]string
		n, m    int
		law     histTransition
	}{
		{"d-choice", map[string]string{"d": "3", "tau": "1"}, 3, 6, delayedDChoiceHist(3, 1, "fixed")},
		{"d-choice", map[string]string{"d": "3", "tau": "2"}, 3, 6, delayedDChoiceHist(3, 2, "fixed")},
		{"d-choice", map[string]string{"d": "3", "tau": "2", "delay": "uniform"}, 3, 5, delayedDChoiceHist(3, 2, "uniform")},
		{"d-choice", map[string]string{"d": "3", "delay": "empirical", "ages": ages}, 3, 5, delayedDChoiceHist(3, 2, "shared")},
		{"d-choice", map[string]string{"d": "3", "tau": "2", "delay": "adversarial"}, 3, 6, delayedDChoiceHist(3, 2, "adversarial")},
		{"d-choice", map[string]string{"d": "4", "tau": "3", "delay": "adversarial"}, 4, 5, delayedDChoiceHist(4, 3, "adversarial")},
		{"two-choice", map[string]string{"tau": "2", "delay": "uniform"}, 3, 6, delayedDChoiceHist(2, 2, "uniform")},
		{"one-plus-beta", map[string]string{"beta": "0.5", "tau": "2"}, 3, 6, onePlusBetaDelayHist(0.5, 2, "fixed")},
		{"one-plus-beta", map[string]string{"beta": "0.7", "tau": "3", "delay": "adversarial"}, 3, 6, onePlusBetaDelayHist(0.7, 3, "adversarial")},
		{"one-plus-beta", map[string]string{"beta": "0.5", "tau": "1", "delay": "uniform"}, 4, 5, onePlusBetaDelayHist(0.5, 1, "uniform")},
		{"quantile", map[string]string{"delta": "0.5", "tau": "2"}, 3, 7, quantileDelayHist(0.5, 1, 2)},
		{"quantile", map[string]string{"delta": "0.3", "tau": "1"}, 4, 6, quantileDelayHist(0.3, 1, 1)},
		{"mixed-quantile", map[string]string{"delta": "0.5", "eta": "0.6", "tau": "3"}, 3, 6, quantileDelayHist(0.5, 0.6, 3)},
		{"two-thinning", map[string]string{"threshold": "0.5", "tau": "2"}, 3, 6, thinningDelayHist(0.5, 2, "fixed")},
		{"two-thinning", map[string]string{"threshold": "1", "tau": "3", "delay": "uniform"}, 3, 6, thinningDelayHist(1, 3, "uniform")},
		{"two-thinning", map[string]string{"threshold": "0.4", "tau": "2", "delay": "adversarial"}, 3, 6, thinningDelayHist(0.4, 2, "adversarial")},
		{"two-thinning", map[string]string{"threshold": "0.5", "batch": "3"}, 3, 7, thinningBatchHist(0.5, 3)},
		{"two-thinning", map[string]string{"threshold": "1", "batch": "2"}, 2, 7, thinningBatchHist(1, 2)},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(c.process, c.params), func(t *testing.T) {
			law := exactLawHist(c.n, c.m, c.law)
			obs := simulateVectors(t, exactCase{c.process, c.params, c.n, c.m, nil}, trials, uint64(3000+i))
			stat, limit, df := stattest.Law(law, obs, trials)
			t.Logf("χ² = %.1f on %d df, limit %.1f", stat, df, limit)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
		})
	}
}

// Power: each law above is told apart from its neighbour — the delay from
// none (n = 3, d = 3, fixed τ = 1; d ≤ n keeps n = 2 out), per-read ages from one age a ball, the
// adversary from fixed ages, the delayed rank test and threshold from
// current ones, thinning's batches from none.
func TestDelaySettingExactLawHasPower(t *testing.T) {
	trials := lawTrials(30000)
	for i, c := range []struct {
		process string
		params  map[string]string
		n, m    int
		wrong   histTransition
	}{
		{"d-choice", map[string]string{"d": "3", "tau": "1"}, 3, 6, delayedDChoiceHist(3, 0, "fixed")},
		{"d-choice", map[string]string{"d": "3", "tau": "2", "delay": "uniform"}, 3, 5, delayedDChoiceHist(3, 2, "shared")},
		{"d-choice", map[string]string{"d": "3", "tau": "2", "delay": "adversarial"}, 3, 6, delayedDChoiceHist(3, 2, "fixed")},
		{"one-plus-beta", map[string]string{"beta": "0.5", "tau": "2"}, 3, 6, onePlusBetaDelayHist(0.5, 0, "fixed")},
		{"quantile", map[string]string{"delta": "0.5", "tau": "2"}, 3, 7, quantileDelayHist(0.5, 1, 0)},
		{"two-thinning", map[string]string{"threshold": "0.5", "tau": "2"}, 3, 6, thinningDelayHist(0.5, 0, "fixed")},
		{"two-thinning", map[string]string{"threshold": "0.5", "batch": "3"}, 3, 7, thinningBatchHist(0.5, 1)},
	} {
		t.Run(fmt.Sprint(c.process, c.params), func(t *testing.T) {
			law := exactLawHist(c.n, c.m, c.wrong)
			obs := simulateVectors(t, exactCase{c.process, c.params, c.n, c.m, nil}, trials, uint64(4000+i))
			stat, limit, df := stattest.Law(law, obs, trials)
			t.Logf("χ² = %.1f on %d df against the neighbour, limit %.1f", stat, df, limit)
			if stat <= limit {
				t.Errorf("passed as its neighbour: χ² = %.1f ≤ %.1f", stat, limit)
			}
		})
	}
}
