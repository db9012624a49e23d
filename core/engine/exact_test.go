package engine

import (
	"github.com/balloc/balloc/internal/exactlaw"
	"math"
	"math/big"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
)

// Exact enumeration. For tiny n the law of the whole load vector after m
// balls is computed exactly from each process's definition (README, Processes),
// with ties broken by an explicit uniform choice among the tied samples
// (not the fast loops' first-minimum rule), and the direct engine's final
// vectors over many seeded trials are tested against it with a χ² test.
// Each process's own exact law is a row of the process table
// (core/process/*_table_test.go, internal/proctable); the transitions here
// serve the settings' tests (batches, delays, balls that leave, graphs).

type vec string // loads as bytes, a map key

// transition returns the law of the bin that receives ball t+1 (t balls
// placed) from loads, per the process definition; the common ones
// (uniform, best of samples, d-choice, mixtures) are internal/exactlaw's,
// shared with the per-process table.
type transition = exactlaw.Transition

var (
	uniformChoice = exactlaw.Uniform
	bestOf        = exactlaw.BestOf
	allBins       = exactlaw.AllBins
	dChoiceExact  = exactlaw.DChoice
	mix           = exactlaw.Mix
)

// thinningExact keeps the first uniform bin when load < t/n + θ, compared
// exactly in rationals, else throws to a second uniform bin.
func thinningExact(n int, theta float64) transition {
	th := new(big.Rat).SetFloat64(theta)
	return func(loads []int, t int) []float64 {
		p := make([]float64, n)
		x := new(big.Rat).Add(big.NewRat(int64(t), int64(n)), th)
		for i := range n {
			if new(big.Rat).SetInt64(int64(loads[i])).Cmp(x) < 0 {
				p[i] += 1 / float64(n)
			} else {
				for j := range n {
					p[j] += 1 / float64(n*n)
				}
			}
		}
		return p
	}
}

// quantileExact samples a uniform bin and passes the ball to a second
// uniform bin when the first is among the k = ⌈δn⌉ heaviest, ties ranked in
// a uniform order: a bin with A heavier and E equal bins (itself included)
// is heavy with probability clamp((k − A)/E, 0, 1).
func quantileExact(n int, delta float64) transition {
	k := int(math.Ceil(delta * float64(n))) // exact for the δ of the cases
	return quantileBy(func(a, e int) float64 { return math.Min(1, math.Max(0, float64(k-a)/float64(e))) })
}

// quantileBy is Quantile with heavy(A, E) the chance that a bin with A
// heavier and E equal bins passes the ball on.
func quantileBy(heavy func(a, e int) float64) transition {
	return func(loads []int, _ int) []float64 {
		n := len(loads)
		p := make([]float64, n)
		for i := range n {
			a, e := 0, 0
			for _, v := range loads {
				if v > loads[i] {
					a++
				} else if v == loads[i] {
					e++
				}
			}
			h := heavy(a, e)
			p[i] += (1 - h) / float64(n)
			for j := range n {
				p[j] += h / float64(n*n)
			}
		}
		return p
	}
}

// exactLaw propagates the distribution of load vectors for m balls.
func exactLaw(n, m int, tr transition) map[vec]float64 {
	law := map[vec]float64{vec(make([]byte, n)): 1}
	for t := range m {
		next := map[vec]float64{}
		for v, pv := range law {
			loads := make([]int, n)
			for i := range loads {
				loads[i] = int(v[i])
			}
			for b, pb := range tr(loads, t) {
				if pb == 0 {
					continue
				}
				w := []byte(v)
				w[b]++
				next[vec(w)] += pv * pb
			}
		}
		law = next
	}
	return law
}

type exactCase struct {
	process string
	params  map[string]string
	n, m    int
	law     transition
}

func simulateVectors(t *testing.T, c exactCase, trials int, seed uint64) map[vec]int {
	s, err := core.NewSpec(c.process, c.params, core.Common{Bins: uint64(c.n), Balls: uint64(c.m), Trials: trials, Seed: seed, Alpha: 1, KeepLoads: true})
	if err != nil {
		t.Fatal(err)
	}
	obs := map[vec]int{}
	for k := range trials {
		r := lawTrial(s, uint64(k))
		v := make([]byte, c.n)
		for i, x := range r.Loads {
			v[i] = byte(math.Round(x / s.Weights.Scale()))
		}
		obs[vec(v)]++
	}
	return obs
}

// The test has power: one-choice's vectors are far from two-choice's law.
func TestExactLawTestHasPower(t *testing.T) {
	c := exactCase{"one-choice", nil, 3, 6, nil}
	law := exactLaw(3, 6, dChoiceExact(3, 2))
	stat, limit, _ := stattest.Law(law, simulateVectors(t, c, 40000, 1), 40000)
	if stat <= limit {
		t.Errorf("one-choice passed as two-choice: χ² = %.1f ≤ %.1f", stat, limit)
	}
}

// The test tells Quantile from its neighbours: δ = 1/2 is neither
// One-Choice, nor Quantile with the ties at the boundary all ranked heavy
// (or all light).
func TestQuantileExactLawHasPower(t *testing.T) {
	c := exactCase{"quantile", map[string]string{"delta": "0.5"}, 4, 6, nil}
	obs := simulateVectors(t, c, 40000, 3)
	const k = 2 // ⌈0.5·4⌉
	tieAll := func(heavy bool) transition {
		return quantileBy(func(a, e int) float64 {
			if a+e <= k || (heavy && a < k) {
				return 1
			}
			return 0
		})
	}
	for name, wrong := range map[string]transition{"one-choice": uniformChoice(4), "ties heavy": tieAll(true), "ties light": tieAll(false)} {
		if stat, limit, _ := stattest.Law(exactLaw(4, 6, wrong), obs, 40000); stat <= limit {
			t.Errorf("quantile δ = 0.5 passed as %s: χ² = %.1f ≤ %.1f", name, stat, limit)
		}
	}
}

// The tie rule matters for Always-Go-Left, and the test sees it: the
// engine's vectors fail against the law with ties broken at random.
func TestExactLawSeesTieRule(t *testing.T) {
	n, m := 4, 6
	g := [][]int{{0, 1}, {2, 3}}
	c := exactCase{"always-go-left", map[string]string{"d": "2"}, n, m, nil}
	law := exactLaw(n, m, bestOf(g, false))
	stat, limit, _ := stattest.Law(law, simulateVectors(t, c, 40000, 2), 40000)
	if stat <= limit {
		t.Errorf("always-go-left passed against random tie-breaking: χ² = %.1f ≤ %.1f", stat, limit)
	}
}
