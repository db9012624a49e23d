package engine

import (
	"fmt"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
)

// The exact law of the processes that place several balls a step
// (twinning, packing, kd-choice), for tiny n: the chain is enumerated step
// by step from the definitions (not from the loops' rules: ties are broken
// by an explicit uniform choice among tied samples), the run stopping at m
// balls, mid-step if it must, and the engines' final vectors are tested
// against it by χ² (p = 1e-4), with power checks against neighbouring
// readings of each definition.

// stepLaw gives the outcomes of one step from loads, w balls placed, when c
// more balls fit: each outcome the balls each bin receives, with its
// probability.
type stepLaw func(loads []int, w, c int) []stepOutcome

type stepOutcome struct {
	add []int
	p   float64
}

// exactSteps propagates the law of the load vector step by step to m balls.
func exactSteps(n, m int, law stepLaw) map[vec]float64 {
	cur := map[vec]float64{vec(make([]byte, n)): 1}
	done := map[vec]float64{}
	for len(cur) > 0 {
		next := map[vec]float64{}
		for v, pv := range cur {
			loads, w := make([]int, n), 0
			for i := range loads {
				loads[i] = int(v[i])
				w += loads[i]
			}
			for _, o := range law(loads, w, m-w) {
				b, placed := []byte(v), 0
				for i, a := range o.add {
					b[i] += byte(a)
					placed += a
				}
				if placed == 0 || placed > m-w {
					panic("step law placed no ball, or too many")
				}
				if w+placed == m {
					done[vec(b)] += pv * o.p
				} else {
					next[vec(b)] += pv * o.p
				}
			}
		}
		cur = next
	}
	return done
}

// twinningSteps is Twinning (packing false) or Packing: a uniform bin i; if
// x_i < w/n (tested as x_i·n < w, or x_i·n ≤ w when atMost: the power
// check's neighbour) it takes 2 balls (twinning) or is raised to
// ⌈w/n⌉ + extra (packing: extra = 1, the definition); else 1 ball.
func twinningSteps(packing, atMost bool, extra int) stepLaw {
	return func(loads []int, w, c int) []stepOutcome {
		n := len(loads)
		var out []stepOutcome
		for i, x := range loads {
			a := 1
			if x*n < w || (atMost && x*n == w) {
				a = 2
				if packing {
					a = max(1, (w+n-1)/n+extra-x)
				}
			}
			add := make([]int, n)
			add[i] = min(a, c)
			out = append(out, stepOutcome{add, 1 / float64(n)})
		}
		return out
	}
}

func exactCheck(t *testing.T, law map[vec]float64, obs map[vec]int, trials int) {
	t.Helper()
	stat, limit, df := stattest.Law(law, obs, trials)
	if stat > limit {
		t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
	}
	t.Logf("χ² = %.1f on %d df (limit %.1f)", stat, df, limit)
}

type multiCase struct {
	process string
	params  map[string]string
	n, m    int
	law     stepLaw
}

func multiCases() []multiCase {
	return []multiCase{
		{"twinning", nil, 3, 7, twinningSteps(false, false, 0)},
		{"twinning", nil, 4, 6, twinningSteps(false, false, 0)},
		{"twinning", nil, 2, 9, twinningSteps(false, false, 0)},
		{"packing", nil, 3, 8, twinningSteps(true, false, 1)},
		{"packing", nil, 4, 7, twinningSteps(true, false, 1)},
		{"packing", nil, 2, 10, twinningSteps(true, false, 1)},
	}
}

func TestMultiBallDirectMatchesExactLaw(t *testing.T) {
	const trials = 40000
	for i, c := range multiCases() {
		t.Run(fmt.Sprintf("%s%v/n=%d,m=%d", c.process, c.params, c.n, c.m), func(t *testing.T) {
			obs := simulateVectors(t, exactCase{c.process, c.params, c.n, c.m, nil}, trials, uint64(4000+i))
			exactCheck(t, exactSteps(c.n, c.m, c.law), obs, trials)
		})
	}
}

func TestMultiBallHistogramMatchesExactLaw(t *testing.T) {
	const trials = 30000
	for i, c := range multiCases() {
		t.Run(fmt.Sprintf("%s%v/n=%d,m=%d", c.process, c.params, c.n, c.m), func(t *testing.T) {
			obs := histogramVectors(t, c.process, c.params, c.n, c.m, trials, uint64(4100+i), 0)
			exactCheck(t, sortedLaw(exactSteps(c.n, c.m, c.law)), obs, trials)
		})
	}
}

// The test has power: Twinning fails against "at or below the average"
// and against One-Choice; Packing against raising to ⌈W/n⌉ (the abstract's
// "until the threshold is reached") and against Twinning.
func TestMultiBallExactLawHasPower(t *testing.T) {
	const trials = 40000
	onechoice := func(loads []int, _, _ int) []stepOutcome {
		return twinningSteps(false, false, 0)(make([]int, len(loads)), 0, 1)
	}
	for _, c := range []struct {
		process string
		n, m    int
		wrong   map[string]stepLaw
	}{
		{"twinning", 3, 7, map[string]stepLaw{"x ≤ W/n": twinningSteps(false, true, 0), "one-choice": onechoice}},
		{"packing", 3, 8, map[string]stepLaw{"to ⌈W/n⌉": twinningSteps(true, false, 0), "twinning": twinningSteps(false, false, 0)}},
	} {
		obs := simulateVectors(t, exactCase{c.process, nil, c.n, c.m, nil}, trials, 41)
		for name, wrong := range c.wrong {
			stat, limit, _ := stattest.Law(exactSteps(c.n, c.m, wrong), obs, trials)
			if stat <= limit {
				t.Errorf("%s passed as %s: χ² = %.1f ≤ %.1f", c.process, name, stat, limit)
			}
			t.Logf("%s against %s: χ² = %.1f (limit %.1f)", c.process, name, stat, limit)
		}
	}
}

// Balls are counted exactly, with the last step cut, checkpoints inside
// steps, and the samples reported on both engines: each sample places at
// least one ball, twinning at most two.
func TestMultiBallCountsBallsAndSamples(t *testing.T) {
	for _, process := range []string{"twinning", "packing"} {
		for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			s := mustSpec(t, process, nil, core.Common{Bins: 7, Balls: 1001, Seed: 5, Engine: eng, Checkpoints: 13})
			r := RunTrial(s, 0, nil)
			total := 0.0
			for _, l := range r.Histogram {
				total += l.Load * float64(l.Count)
			}
			if total != 1001 || r.Samples == 0 || r.Samples > 1001 || (process == "twinning" && 2*r.Samples < 1001) {
				t.Errorf("%s on %s: %v balls in the bins, %d samples", process, eng, total, r.Samples)
			}
			for k, at := range checkpointsOf(1001, 13) {
				if r.Checkpoints[k].Balls != at {
					t.Errorf("%s on %s: checkpoint %d at %d balls, want %d", process, eng, k, r.Checkpoints[k].Balls, at)
				}
			}
		}
	}
}

// The histogram engine agrees with the direct engine in distribution at
// n = 1000, m = 20n (final gap and the fractions of bins at each level).
func TestMultiBallHistogramAgreesWithDirect(t *testing.T) {
	const n, m, trials = 1000, 20000, 150
	for i, c := range []struct {
		process string
		params  map[string]string
	}{
		{"twinning", nil},
		{"packing", nil},
	} {
		t.Run(fmt.Sprintf("%s%v", c.process, c.params), func(t *testing.T) {
			compareEngines(t, c.process, c.params, n, m, trials, 0, uint64(5000+i), uint64(5100+i))
		})
	}
}
