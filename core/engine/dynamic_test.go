package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
)

// Balls that leave: the exact law of the state after a few events or
// steps for tiny n, from the models' definitions (core/dynamic.go), on
// both engines, with power checks; the reduction of deletions to the
// static process at p = 0.

// departure is the law of the bin a departure event or deletion step takes
// a ball from (all zero: none), given the loads.
type departure func(loads []int) []float64

// uniformBin: the supermarket's potential departure, a uniform bin of the
// n, real when it is non-empty.
func uniformBin(loads []int) []float64 {
	p := make([]float64, len(loads))
	for i, l := range loads {
		if l > 0 {
			p[i] = 1 / float64(len(loads))
		}
	}
	return p
}

// uniformBusyBin: a uniformly random non-empty bin (--delete bin).
func uniformBusyBin(loads []int) []float64 {
	p := make([]float64, len(loads))
	busy := 0
	for _, l := range loads {
		if l > 0 {
			busy++
		}
	}
	for i, l := range loads {
		if l > 0 {
			p[i] = 1 / float64(busy)
		}
	}
	return p
}

// uniformBall: a uniformly random ball (--delete ball).
func uniformBall(loads []int) []float64 {
	p := make([]float64, len(loads))
	total := 0
	for _, l := range loads {
		total += l
	}
	for i, l := range loads {
		if total > 0 {
			p[i] = float64(l) / float64(total)
		}
	}
	return p
}

// dynamicLaw propagates the law of load vectors through `events` events,
// each an insertion by tr with probability a, else a removal by dep.
func dynamicLaw(n, events int, a float64, tr transition, dep departure) map[vec]float64 {
	return dynamicLawFrom(map[vec]float64{vec(make([]byte, n)): 1}, events, a, tr, dep)
}

// dynamicLawFrom is dynamicLaw from the law of the start's load vectors.
func dynamicLawFrom(law map[vec]float64, events int, a float64, tr transition, dep departure) map[vec]float64 {
	for range events {
		next := map[vec]float64{}
		for v, pv := range law {
			loads := make([]int, len(v))
			for i := range loads {
				loads[i] = int(v[i])
			}
			for b, pb := range tr(loads, 0) {
				if pb > 0 {
					w := []byte(v)
					w[b]++
					next[vec(w)] += pv * a * pb
				}
			}
			stay := 1.0
			for b, pb := range dep(loads) {
				if pb > 0 {
					w := []byte(v)
					w[b]--
					next[vec(w)] += pv * (1 - a) * pb
					stay -= pb
				}
			}
			if stay > 1e-12 {
				next[v] += pv * (1 - a) * stay
			}
		}
		law = next
	}
	return law
}

type dynamicCase struct {
	process string
	params  map[string]string
	n       int
	events  int
	dyn     core.Dynamic
	law     transition
	dep     departure
	a       float64 // probability an event inserts
}

func supermarketCase(process string, params map[string]string, n, events int, lambda float64, law transition) dynamicCase {
	return dynamicCase{process, params, n, events, core.Dynamic{ArrivalRate: lambda, Events: uint64(events)}, law, uniformBin, lambda / (1 + lambda)}
}

func deletionCase(process string, params map[string]string, n, steps int, p float64, mode string, law transition) dynamicCase {
	dep := uniformBall
	if mode == "bin" {
		dep = uniformBusyBin
	}
	return dynamicCase{process, params, n, steps, core.Dynamic{DeleteProb: p, Delete: mode}, law, dep, 1 - p}
}

func dynamicCases() []dynamicCase {
	return []dynamicCase{
		supermarketCase("one-choice", nil, 2, 8, 0.8, uniformChoice(2)),
		supermarketCase("two-choice", nil, 3, 8, 0.7, dChoiceExact(3, 2)),
		supermarketCase("d-choice", map[string]string{"d": "3"}, 4, 6, 0.9, dChoiceExact(4, 3)),
		supermarketCase("one-plus-beta", map[string]string{"beta": "0.4"}, 3, 7, 0.5, mix(0.4, uniformChoice(3), dChoiceExact(3, 2))),
		deletionCase("two-choice", nil, 3, 8, 0.3, "ball", dChoiceExact(3, 2)),
		deletionCase("two-choice", nil, 3, 8, 0.4, "bin", dChoiceExact(3, 2)),
		deletionCase("one-choice", nil, 2, 8, 0.45, "ball", uniformChoice(2)),
		deletionCase("one-plus-beta", map[string]string{"beta": "0.5"}, 4, 6, 0.2, "bin", mix(0.5, uniformChoice(4), dChoiceExact(4, 2))),
	}
}

func (c dynamicCase) spec(t *testing.T, engine core.Engine, trials int, seed uint64) *core.Spec {
	t.Helper()
	com := core.Common{Bins: uint64(c.n), Trials: trials, Seed: seed, Alpha: 1, Engine: engine, KeepLoads: engine == core.EngineDirect, Dynamic: c.dyn}
	if c.dyn.Deletions() {
		com.Balls = uint64(c.events)
	}
	s, err := core.NewSpec(c.process, c.params, com)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// simulateDynamic returns the final vectors (direct: bin by bin; histogram:
// sorted, from the histogram) of trials trials.
func simulateDynamic(t *testing.T, c dynamicCase, engine core.Engine, trials int, seed uint64) map[vec]int {
	s := c.spec(t, engine, trials, seed)
	obs := map[vec]int{}
	for k := range trials {
		r := lawTrial(s, uint64(k))
		var v []byte
		if engine == core.EngineDirect {
			for _, x := range r.Loads {
				v = append(v, byte(x))
			}
		} else {
			for _, l := range r.Histogram {
				for range l.Count {
					v = append(v, byte(l.Load))
				}
			}
		}
		if total := uint64(0); true {
			for _, b := range v {
				total += uint64(b)
			}
			if total != r.Balls {
				t.Fatalf("trial %d: the loads hold %d balls, the result says %d present", k, total, r.Balls)
			}
		}
		obs[vec(v)]++
	}
	return obs
}

func TestDynamicMatchesExactLaw(t *testing.T) { checkDynamicLaws(t, dynamicCases(), 3000) }

// checkDynamicLaws runs each case on both engines against its exact law
// (sorted, for the histogram), χ² at p < 1e-4; trial seeds from seedBase.
func checkDynamicLaws(t *testing.T, cases []dynamicCase, seedBase uint64) {
	t.Helper()
	trials := lawTrials(40000)
	for i, c := range cases {
		law := dynamicLaw(c.n, c.events, c.a, c.law, c.dep)
		for _, engine := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			t.Run(fmt.Sprintf("%s%v/%+v/%s", c.process, c.params, c.dyn, engine), func(t *testing.T) {
				want := law
				if engine == core.EngineHistogram {
					want = sortedLaw(law)
				}
				obs := simulateDynamic(t, c, engine, trials, seedBase+uint64(i))
				stat, limit, df := stattest.Law(want, obs, trials)
				if stat > limit {
					t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
				}
			})
		}
	}
}

// The exact-law test has power: the supermarket's departures drawn from a
// uniform non-empty bin (a rate-1 server per busy queue would need the
// uniform bin of all n), one-choice's placement in place of two-choice's,
// and the deletions' two modes told apart, on both engines.
func TestDynamicExactLawHasPower(t *testing.T) {
	t.Parallel()
	trials := lawTrials(40000)
	two := supermarketCase("two-choice", nil, 3, 8, 0.7, nil)
	del := deletionCase("two-choice", nil, 3, 8, 0.4, "ball", nil)
	wrong := []struct {
		name string
		c    dynamicCase
		law  map[vec]float64
	}{
		{"departures from a busy bin", two, dynamicLaw(3, 8, two.a, dChoiceExact(3, 2), uniformBusyBin)},
		{"one-choice placement", two, dynamicLaw(3, 8, two.a, uniformChoice(3), uniformBin)},
		{"arrival probability λ", two, dynamicLaw(3, 8, 0.7, dChoiceExact(3, 2), uniformBin)},
		{"delete bin for ball", del, dynamicLaw(3, 8, del.a, dChoiceExact(3, 2), uniformBusyBin)},
	}
	for _, w := range wrong {
		for _, engine := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			law := w.law
			if engine == core.EngineHistogram {
				law = sortedLaw(law)
			}
			obs := simulateDynamic(t, w.c, engine, trials, 77)
			if stat, limit, _ := stattest.Law(law, obs, trials); stat <= limit {
				t.Errorf("%s on %s passed: χ² = %.1f ≤ %.1f", w.name, engine, stat, limit)
			}
		}
	}
}

// At p = 0 the deletion model is the static process draw for draw, on both
// engines and with checkpoints: every field a static trial reports agrees.
func TestDeletionsAtZeroAreStatic(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		process string
		params  map[string]string
		n, m    uint64
	}{
		{"one-choice", nil, 1000, 50000},
		{"two-choice", nil, 1000, 50000},
		{"d-choice", map[string]string{"d": "3"}, 500, 20000},
		{"one-plus-beta", map[string]string{"beta": "0.3"}, 1000, 30000},
		{"two-choice", nil, 1 << 20, 3 << 22}, // the histogram's level batches
	} {
		for _, engine := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			for _, mode := range []string{"ball", "bin"} {
				t.Run(fmt.Sprintf("%s%v/n=%d/%s/%s", c.process, c.params, c.n, engine, mode), func(t *testing.T) {
					com := core.Common{Bins: c.n, Balls: c.m, Trials: 1, Seed: 9, Alpha: 0.5, Engine: engine, Checkpoints: 7}
					static, err := core.NewSpec(c.process, c.params, com)
					if err != nil {
						t.Fatal(err)
					}
					com.Dynamic = core.Dynamic{DeleteProb: 0, Delete: mode}
					dyn, err := core.NewSpec(c.process, c.params, com)
					if err != nil {
						t.Fatal(err)
					}
					a, b := RunTrial(static, 2, nil), RunTrial(dyn, 2, nil)
					if b.Dynamic == nil || b.Dynamic.Departures != 0 || b.Dynamic.Arrivals != c.m {
						t.Fatalf("p = 0 made %+v", b.Dynamic)
					}
					a.ElapsedS, a.BallsPerS, b.ElapsedS, b.BallsPerS = 0, 0, 0, 0
					b.Dynamic, a.Params, b.Params = nil, nil, nil
					if fmt.Sprintf("%+v", *a) != fmt.Sprintf("%+v", *b) {
						t.Errorf("static and p = 0 differ:\n%+v\n%+v", *a, *b)
					}
				})
			}
		}
	}
}

// Deletions at p > 0 change the run (the reduction test above is not
// vacuous), and keep the books: insertions − deletions balls are present.
func TestDeletionsChangeTheRun(t *testing.T) {
	for _, engine := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
		com := core.Common{Bins: 1000, Balls: 100000, Trials: 1, Seed: 9, Alpha: 1, Engine: engine, Dynamic: core.Dynamic{DeleteProb: 0.3}}
		s, err := core.NewSpec("two-choice", nil, com)
		if err != nil {
			t.Fatal(err)
		}
		r := RunTrial(s, 0, nil)
		d := r.Dynamic
		// A deletion step with no ball present removes nothing, so the two
		// may fall short of the steps (by a few, at the start).
		if d.Events != 100000 || d.Arrivals+d.Departures > 100000 || d.Arrivals+d.Departures < 99990 || r.Balls != d.Arrivals-d.Departures {
			t.Errorf("%s: %d insertions + %d deletions of 100000 steps, %d present", engine, d.Arrivals, d.Departures, r.Balls)
		}
		// Binomial(10^5, 0.3) deletions: within 5 standard deviations.
		if z := (float64(d.Departures) - 30000) / math.Sqrt(100000*0.3*0.7); math.Abs(z) > 5 {
			t.Errorf("%s: %d deletions, z = %.1f", engine, d.Departures, z)
		}
		if math.Abs(r.Gap-(r.MaxLoad-float64(r.Balls)/1000)) > 1e-9 {
			t.Errorf("%s: gap %v is not max − present/n", engine, r.Gap)
		}
	}
}
