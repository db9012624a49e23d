package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
	"github.com/balloc/balloc/kernels"
)

// Repeated balls-into-bins (core/process/rbb.go): the engine's rounds ball
// for ball against the authors' loop written literally; the exact law of
// the load vector after a few rounds for n ≤ 4 on both engines, with a
// power check; the averages against an independent ball-tracking
// implementation; and the stationary empty fraction against its mean-field
// value at large n.

func rbbSpec(t testing.TB, params map[string]string, n, m uint64, c core.Common) *core.Spec {
	t.Helper()
	c.Bins, c.Balls = n, m
	return mustSpec(t, "rbb", params, c)
}

// literalRBB is Dim131/RBB's nextRound, phase for phase, with the engine's
// stream: every non-empty bin loses a ball, then each of the k balls goes
// to a uniform bin (d = 1) or the least loaded of d uniform bins, first on
// ties; it returns the final loads and the per-round means of the maximum
// load and the empty fraction.
func literalRBB(start []uint64, rounds uint64, d int, seed uint64) (loads []uint64, meanMax, meanEmpty float64) {
	loads = slices.Clone(start)
	n := uint32(len(loads))
	r := kernels.TrialStream(seed, 0, kernels.LaneChoices)
	for range rounds {
		k := 0
		for i := range loads {
			if loads[i] > 0 {
				loads[i]--
				k++
			}
		}
		for range k {
			best := r.Bounded(n)
			for range d - 1 {
				if j := r.Bounded(n); loads[j] < loads[best] {
					best = j
				}
			}
			loads[best]++
		}
		empty := 0
		for _, v := range loads {
			if v == 0 {
				empty++
			}
		}
		meanMax += float64(slices.Max(loads))
		meanEmpty += float64(empty) / float64(n)
	}
	return loads, meanMax / float64(rounds), meanEmpty / float64(rounds)
}

func TestRBBDirectMatchesLiteralLoop(t *testing.T) {
	for _, c := range []struct {
		n, m, rounds uint64
		initial      string
		d            int
	}{
		{10, 30, 500, "uniform", 1}, {7, 7, 300, "spike", 1}, {50, 200, 200, "uniform", 2},
		{13, 40, 300, "uniform", 3}, {100, 1, 50, "spike", 1}, {16, 0, 5, "uniform", 1},
	} {
		params := map[string]string{"rounds": fmt.Sprint(c.rounds), "initial": c.initial}
		if c.d > 1 {
			params["placement"], params["d"] = "d-choice", fmt.Sprint(c.d)
		}
		s := rbbSpec(t, params, c.n, c.m, core.Common{Seed: 21, KeepLoads: true, Checkpoints: 3, Engine: core.EngineDirect})
		res := RunTrial(s, 0, nil)
		start := make([]uint64, c.n)
		if c.initial == "spike" {
			start[0] = c.m
		} else {
			for i := range start {
				start[i] = c.m / c.n
				if uint64(i) < c.m%c.n {
					start[i]++
				}
			}
		}
		want, meanMax, meanEmpty := literalRBB(start, c.rounds, c.d, 21)
		for i := range want {
			if res.Loads[i] != float64(want[i]) {
				t.Fatalf("%+v: bin %d holds %v, the literal loop %d", c, i, res.Loads[i], want[i])
			}
		}
		if math.Abs(res.Rounds().MeanMaxLoad-meanMax) > 1e-9 || math.Abs(res.Rounds().MeanEmpty-meanEmpty) > 1e-12 {
			t.Errorf("%+v: means %v %v, literal %v %v", c, res.Rounds().MeanMaxLoad, res.Rounds().MeanEmpty, meanMax, meanEmpty)
		}
		if res.Rounds().Rounds != c.rounds || len(res.Checkpoints) != min(3, int(c.rounds)) || res.Checkpoints[len(res.Checkpoints)-1].Round != c.rounds {
			t.Errorf("%+v: %d rounds, checkpoints %+v", c, res.Rounds().Rounds, res.Checkpoints)
		}
	}
}

// rbbRound is one round of RBB on a load vector, as a law: the release,
// then k balls placed one after another by place (the law of the bin that
// receives the next ball).
func rbbRoundLaw(law map[vec]float64, place transition) map[vec]float64 {
	next := map[vec]float64{}
	for v, pv := range law {
		loads := make([]int, len(v))
		k := 0
		for i := range v {
			loads[i] = int(v[i])
			if loads[i] > 0 {
				loads[i]--
				k++
			}
		}
		part := map[vec]float64{vecOf(loads): pv}
		for range k {
			part = placeOne(part, place)
		}
		for w, p := range part {
			next[w] += p
		}
	}
	return next
}

func vecOf(loads []int) vec {
	b := make([]byte, len(loads))
	for i, x := range loads {
		b[i] = byte(x)
	}
	return vec(b)
}

func placeOne(law map[vec]float64, place transition) map[vec]float64 {
	next := map[vec]float64{}
	for v, pv := range law {
		loads := make([]int, len(v))
		for i := range v {
			loads[i] = int(v[i])
		}
		for b, pb := range place(loads, 0) {
			if pb > 0 {
				w := []byte(v)
				w[b]++
				next[vec(w)] += pv * pb
			}
		}
	}
	return next
}

// wrongRoundLaw is a plausible misreading, for the power check: the bins
// release in turn and each released ball is thrown at once, so a bin later
// in the pass may release a ball it has just received.
func wrongRoundLaw(law map[vec]float64, place transition) map[vec]float64 {
	for i := range len(anyKey(law)) {
		next := map[vec]float64{}
		for v, pv := range law {
			if v[i] == 0 {
				next[v] += pv
				continue
			}
			w := []byte(v)
			w[i]--
			for u, p := range placeOne(map[vec]float64{vec(w): pv}, place) {
				next[u] += p
			}
		}
		law = next
	}
	return law
}

func anyKey(law map[vec]float64) vec {
	for v := range law {
		return v
	}
	return ""
}

type rbbCase struct {
	params map[string]string
	start  []int
	rounds int
	place  transition
}

func rbbCases() []rbbCase {
	return []rbbCase{
		{map[string]string{"initial": "spike"}, []int{4, 0, 0}, 2, uniformChoice(3)},
		{map[string]string{"initial": "uniform"}, []int{2, 1, 1, 1}, 2, uniformChoice(4)},
		{map[string]string{"initial": "spike", "placement": "d-choice", "d": "2"}, []int{5, 0, 0}, 2, dChoiceExact(3, 2)},
		{map[string]string{"initial": "spike:3"}, []int{3, 0}, 3, uniformChoice(2)},
	}
}

func (c rbbCase) law(wrong bool) map[vec]float64 {
	law := map[vec]float64{vecOf(c.start): 1}
	for range c.rounds {
		if wrong {
			law = wrongRoundLaw(law, c.place)
		} else {
			law = rbbRoundLaw(law, c.place)
		}
	}
	return law
}

func (c rbbCase) spec(t *testing.T, eng core.Engine, seed uint64) *core.Spec {
	params := map[string]string{"rounds": fmt.Sprint(c.rounds)}
	m := 0
	for _, x := range c.start {
		m += x
	}
	for k, v := range c.params {
		params[k] = v
	}
	return rbbSpec(t, params, uint64(len(c.start)), uint64(m), core.Common{Seed: seed, Engine: eng, KeepLoads: eng == core.EngineDirect})
}

// The law of the load vector after a few rounds, computed from the rule, on
// both engines (bin by bin on the direct engine, sorted on the histogram).
func TestRBBMatchesExactLaw(t *testing.T) {
	trials := lawTrials(30000)
	for i, c := range rbbCases() {
		law := c.law(false)
		for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			t.Run(fmt.Sprintf("%v/%v/%s", c.params, c.start, eng), func(t *testing.T) {
				want := law
				if eng == core.EngineHistogram {
					want = sortedLaw(law)
				}
				obs := tally(t, c.spec(t, eng, uint64(500+i)), trials)
				if stat, limit, df := stattest.Law(want, obs, trials); stat > limit {
					t.Errorf("χ² = %.1f on %d df exceeds %.1f", stat, df, limit)
				}
			})
		}
	}
}

// Power: the release-and-throw-in-one-pass misreading is refused by the
// same test on the same number of trials, on both engines.
func TestRBBExactLawHasPower(t *testing.T) {
	trials := lawTrials(30000)
	for _, c := range rbbCases()[:2] {
		wrong := c.law(true)
		for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			w := wrong
			if eng == core.EngineHistogram {
				w = sortedLaw(wrong)
			}
			if stat, limit, _ := stattest.Law(w, tally(t, c.spec(t, eng, 9), trials), trials); stat <= limit {
				t.Errorf("%v on %s passed as the one-pass misreading: χ² = %.1f ≤ %.1f", c.start, eng, stat, limit)
			}
		}
	}
}

// independentRBB tracks every ball (its bin) with math/rand's generator:
// each round, the first ball of every non-empty bin's queue is taken out
// and put at the back of a uniform bin's queue. It shares nothing with the
// engine but the rule; it returns the means over the rounds of the maximum
// load and the empty fraction, from the authors' uniform start.
func independentRBB(n, m, rounds int, seed uint64) (meanMax, meanEmpty float64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	queues := make([][]int, n) // ball ids
	for b := range m {
		queues[b%n] = append(queues[b%n], b)
	}
	for range rounds {
		var moving []int
		for i := range queues {
			if len(queues[i]) > 0 {
				moving = append(moving, queues[i][0])
				queues[i] = queues[i][1:]
			}
		}
		for _, b := range moving {
			j := rng.IntN(n)
			queues[j] = append(queues[j], b)
		}
		top, empty := 0, 0
		for _, q := range queues {
			top = max(top, len(q))
			if len(q) == 0 {
				empty++
			}
		}
		meanMax += float64(top)
		meanEmpty += float64(empty) / float64(n)
	}
	return meanMax / float64(rounds), meanEmpty / float64(rounds)
}

// The engines' per-trial means of the maximum load and of the empty
// fraction against the independent implementation's, trial against trial:
// a two-sample z on independent trials, |z| < 4.
func TestRBBAgainstIndependentImplementation(t *testing.T) {
	t.Parallel()
	const n, m, rounds, trials = 40, 200, 400, 150
	var indMax, indEmpty []float64
	for k := range trials {
		a, b := independentRBB(n, m, rounds, uint64(k))
		indMax, indEmpty = append(indMax, a), append(indEmpty, b)
	}
	for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
		s := rbbSpec(t, map[string]string{"rounds": fmt.Sprint(rounds)}, n, m, core.Common{Seed: 33, Engine: eng})
		var engMax, engEmpty []float64
		for k := range trials {
			r := lawTrial(s, uint64(k)).Rounds()
			engMax, engEmpty = append(engMax, r.MeanMaxLoad), append(engEmpty, r.MeanEmpty)
		}
		for _, q := range []struct {
			name string
			a, b []float64
		}{{"mean max load", engMax, indMax}, {"mean empty fraction", engEmpty, indEmpty}} {
			diff, z := zDiff(q.a, q.b)
			if math.Abs(z) > 4 {
				t.Errorf("%s: %s differs from the independent implementation by %.4g (z = %.1f)", eng, q.name, diff, z)
			}
			t.Logf("%s: %s %.4f, independent %.4f (z = %.2f)", eng, q.name, mean(q.a), mean(q.b), z)
		}
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// The stationary empty fraction. As n → ∞ a bin's load is the chain
// X' = (X − 1)⁺ + A with A ~ Poisson(λ), λ the fraction of non-empty bins
// (arrivals Binomial(λn, 1/n)); in equilibrium P(X > 0) = λ and, from
// E[X'²] = E[X²], E[X] = λ(2 − λ)/(2(1 − λ)). With E[X] = ρ = m/n this
// gives the empty fraction e = 1 − λ = √(1 + ρ²) − ρ. At n = 10^6 (the
// histogram engine) the per-round fraction after a burn-in, by batch means
// of 50 rounds, is within 4 standard errors of e; the finite-n bias is
// O(1/n), far below the error. Power: e at ρ ± 0.05 is outside.
func TestRBBStationaryEmptyFraction(t *testing.T) {
	const n, burn, rounds, batch = 1_000_000, 200, 1200, 50
	for _, rho := range []float64{1, 2} {
		s := rbbSpec(t, map[string]string{"rounds": fmt.Sprint(rounds)}, n, uint64(rho*n), core.Common{Seed: 7, Engine: core.EngineHistogram, Checkpoints: rounds})
		series := RunTrial(s, 0, nil).Rounds().Series
		var means []float64
		for b := burn; b+batch <= len(series); b += batch {
			sum := 0.0
			for _, p := range series[b : b+batch] {
				sum += p.Empty
			}
			means = append(means, sum/batch)
		}
		mu, v := meanVar(means)
		se := math.Sqrt(v / float64(len(means)))
		want := math.Sqrt(1+rho*rho) - rho
		if math.Abs(mu-want) > 4*se {
			t.Errorf("ρ = %v: empty fraction %.6f ± %.6f, mean field %.6f", rho, mu, se, want)
		}
		for _, near := range []float64{rho - 0.05, rho + 0.05} {
			if e := math.Sqrt(1+near*near) - near; math.Abs(mu-e) <= 4*se {
				t.Errorf("ρ = %v: the test cannot tell ρ = %v (e = %.6f) from %.6f ± %.6f", rho, near, e, mu, se)
			}
		}
		t.Logf("ρ = %v: empty fraction %.6f ± %.6f (batch means), mean field √(1+ρ²) − ρ = %.6f", rho, mu, se, want)
	}
}

// rbb's own refusals: one line naming the flag.
func TestRBBErrors(t *testing.T) {
	for _, c := range []struct {
		params map[string]string
		c      core.Common
		want   string
	}{
		{map[string]string{"rounds": "5", "initial": "zero"}, core.Common{Bins: 4, Balls: 8}, "--initial zero: rbb's m balls"},
		{map[string]string{"rounds": "5", "initial": "spike:3"}, core.Common{Bins: 4, Balls: 8}, "--initial spike:3 holds 3 balls, and rbb runs --balls 8"},
		{map[string]string{"rounds": "5"}, core.Common{Bins: 4, Balls: 8, Checkpoints: 6}, "--checkpoints 6: want at most --rounds (5)"},
		{map[string]string{"rounds": "5", "placement": "d-choice", "d": "5"}, core.Common{Bins: 4, Balls: 8}, "--d 5: want at most --bins (4)"},
		{map[string]string{}, core.Common{Bins: 4, Balls: 8}, "rbb needs --rounds"},
	} {
		c.c.Trials, c.c.Alpha = 1, 1
		_, err := core.NewSpec("rbb", c.params, c.c)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v %+v: error %v, want one line with %q", c.params, c.c, err, c.want)
		}
	}
}
