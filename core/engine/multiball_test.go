package engine

import (
	"fmt"
	"slices"
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

// kdSteps is (k,d)-choice: every d-tuple of bins (with replacement, each of
// mass n^-d); the c = min(k, balls left) least loaded slots by the loads at
// the step's start, the slots tied at the boundary load chosen as a uniform
// subset; one ball a chosen slot. With sequential set, the power check's
// neighbour: each ball in turn to the least loaded sample by the loads as
// they grow within the step, ties uniform.
func kdSteps(k, d int, sequential bool) stepLaw {
	return func(loads []int, _, c int) []stepOutcome {
		n := len(loads)
		c = min(c, k)
		var out []stepOutcome
		tuple := make([]int, d)
		var rec func(j int)
		rec = func(j int) {
			if j < d {
				for b := range n {
					tuple[j] = b
					rec(j + 1)
				}
				return
			}
			mass := 1.0
			for range d {
				mass /= float64(n)
			}
			if sequential {
				out = append(out, sequentialSlots(loads, tuple, c, mass)...)
				return
			}
			order := slices.Clone(tuple)
			slices.SortFunc(order, func(a, b int) int { return loads[a] - loads[b] })
			edge := loads[order[c-1]]
			add := make([]int, n)
			var tied []int
			for _, b := range tuple {
				switch {
				case loads[b] < edge:
					add[b]++
				case loads[b] == edge:
					tied = append(tied, b)
				}
			}
			need := c
			for _, a := range add {
				need -= a
			}
			subsets := combinations(len(tied), need)
			for _, sub := range subsets {
				a := slices.Clone(add)
				for _, x := range sub {
					a[tied[x]]++
				}
				out = append(out, stepOutcome{a, mass / float64(len(subsets))})
			}
		}
		rec(0)
		return out
	}
}

// sequentialSlots places c balls one at a time, each on the least loaded
// sample by the loads as they grow, ties uniform.
func sequentialSlots(loads, tuple []int, c int, mass float64) []stepOutcome {
	if c == 0 {
		return []stepOutcome{{make([]int, len(loads)), mass}}
	}
	lo := slices.Min(func() []int {
		v := make([]int, len(tuple))
		for j, b := range tuple {
			v[j] = loads[b]
		}
		return v
	}())
	var tied []int
	for _, b := range tuple {
		if loads[b] == lo {
			tied = append(tied, b)
		}
	}
	var out []stepOutcome
	for _, b := range tied {
		next := slices.Clone(loads)
		next[b]++
		for _, o := range sequentialSlots(next, tuple, c-1, mass/float64(len(tied))) {
			o.add[b]++
			out = append(out, o)
		}
	}
	return out
}

// combinations lists the r-subsets of {0, …, n−1}.
func combinations(n, r int) [][]int {
	if r == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for first := 0; first+r <= n; first++ {
		for _, rest := range combinations(n-first-1, r-1) {
			sub := []int{first}
			for _, x := range rest {
				sub = append(sub, first+1+x)
			}
			out = append(out, sub)
		}
	}
	return out
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
		{"kd-choice", map[string]string{"k": "2", "d": "3"}, 3, 6, kdSteps(2, 3, false)},
		{"kd-choice", map[string]string{"k": "2", "d": "3"}, 3, 7, kdSteps(2, 3, false)},
		{"kd-choice", map[string]string{"k": "2", "d": "4"}, 4, 7, kdSteps(2, 4, false)},
		{"kd-choice", map[string]string{"k": "3", "d": "4"}, 4, 8, kdSteps(3, 4, false)},
		{"kd-choice", map[string]string{"k": "2", "d": "2"}, 3, 5, kdSteps(2, 2, false)},
		{"kd-choice", map[string]string{"k": "1", "d": "3"}, 3, 5, kdSteps(1, 3, false)},
	}
}

func TestMultiBallDirectMatchesExactLaw(t *testing.T) {
	trials := lawTrials(40000)
	for i, c := range multiCases() {
		t.Run(fmt.Sprintf("%s%v/n=%d,m=%d", c.process, c.params, c.n, c.m), func(t *testing.T) {
			obs := simulateVectors(t, exactCase{c.process, c.params, c.n, c.m, nil}, trials, uint64(4000+i))
			exactCheck(t, exactSteps(c.n, c.m, c.law), obs, trials)
		})
	}
}

func TestMultiBallHistogramMatchesExactLaw(t *testing.T) {
	trials := lawTrials(30000)
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
	trials := lawTrials(40000)
	onechoice := func(loads []int, _, _ int) []stepOutcome {
		return twinningSteps(false, false, 0)(make([]int, len(loads)), 0, 1)
	}
	for _, c := range []struct {
		process string
		params  map[string]string
		n, m    int
		wrong   map[string]stepLaw
	}{
		{"twinning", nil, 3, 7, map[string]stepLaw{"x ≤ W/n": twinningSteps(false, true, 0), "one-choice": onechoice}},
		{"packing", nil, 3, 8, map[string]stepLaw{"to ⌈W/n⌉": twinningSteps(true, false, 0), "twinning": twinningSteps(false, false, 0)}},
		{"kd-choice", map[string]string{"k": "2", "d": "3"}, 3, 7, map[string]stepLaw{"balls in turn": kdSteps(2, 3, true), "k=1 d=3": kdSteps(1, 3, false)}},
		{"kd-choice", map[string]string{"k": "2", "d": "4"}, 4, 7, map[string]stepLaw{"balls in turn": kdSteps(2, 4, true)}},
	} {
		obs := simulateVectors(t, exactCase{c.process, c.params, c.n, c.m, nil}, trials, 41)
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
	for _, process := range []string{"twinning", "packing", "kd-choice"} {
		for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			var params map[string]string
			if process == "kd-choice" {
				params = map[string]string{"k": "3", "d": "5"}
			}
			s := mustSpec(t, process, params, core.Common{Bins: 7, Balls: 1001, Seed: 5, Engine: eng, Checkpoints: 13})
			r := RunTrial(s, 0, nil)
			total := 0.0
			for _, l := range r.Histogram {
				total += l.Load * float64(l.Count)
			}
			bad := r.Samples() == 0 || r.Samples() > 1001 || (process == "twinning" && 2*r.Samples() < 1001)
			if process == "kd-choice" {
				bad = r.Samples() != 5*334 // ⌈1001/3⌉ steps of 5 samples, the last cut to 2 balls
			}
			if total != 1001 || bad {
				t.Errorf("%s on %s: %v balls in the bins, %d samples", process, eng, total, r.Samples())
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
	t.Parallel()
	const n, m, trials = 1000, 20000, 150
	for i, c := range []struct {
		process string
		params  map[string]string
	}{
		{"twinning", nil},
		{"packing", nil},
		{"kd-choice", map[string]string{"k": "2", "d": "3"}},
		{"kd-choice", map[string]string{"k": "3", "d": "5"}},
		{"kd-choice", map[string]string{"k": "1", "d": "2"}},
	} {
		t.Run(fmt.Sprintf("%s%v", c.process, c.params), func(t *testing.T) {
			compareEngines(t, c.process, c.params, n, m, trials, 0, uint64(5000+i), uint64(5100+i))
		})
	}
}

// kd-choice with k = 1 is d-choice, ball for ball (the same loops, the same
// stream), and reports d samples a ball.
func TestKDChoiceK1IsDChoice(t *testing.T) {
	for _, d := range []string{"1", "2", "3"} {
		c := core.Common{Bins: 50, Balls: 20011, Seed: 8, KeepLoads: true, Checkpoints: 3}
		kd := RunTrial(mustSpec(t, "kd-choice", map[string]string{"k": "1", "d": d}, c), 0, nil)
		dc := RunTrial(mustSpec(t, "d-choice", map[string]string{"d": d}, c), 0, nil)
		if len(kd.Loads) != 50 || !slices.Equal(kd.Loads, dc.Loads) || kd.Samples() != uint64(20011*int(d[0]-'0')) {
			t.Errorf("d = %s: kd-choice k = 1 differs from d-choice (samples %d)", d, kd.Samples())
		}
	}
}

// The fluid limit of kd-choice against simulation at n = 10^5, m = 4n, on
// both engines, and told apart from its neighbour (k, d) = (2, 4) against
// (1, 2), the same balls per sample.
func TestKDChoiceMatchesFluidLimit(t *testing.T) {
	t.Parallel()
	const n, m = 100000, 400000
	trials := 12
	for _, c := range []struct {
		k, d int
		eng  core.Engine
	}{{2, 4, core.EngineDirect}, {3, 5, core.EngineHistogram}, {2, 3, core.EngineDirect}} {
		params := map[string]string{"k": fmt.Sprint(c.k), "d": fmt.Sprint(c.d)}
		s := mustSpec(t, "kd-choice", params, core.Common{Bins: n, Balls: m, Seed: 17, Engine: c.eng})
		prof, err := core.FluidOf(s)
		if err != nil {
			t.Fatal(err)
		}
		worst, levels := fluidAgreement(s, prof, trials)
		if levels < 3 || worst > 1 {
			t.Errorf("k=%d d=%d on %s: worst deviation %.2f of the tolerance over %d levels", c.k, c.d, c.eng, worst, levels)
		}
		t.Logf("k=%d d=%d on %s: worst %.2f of the tolerance, %d levels", c.k, c.d, c.eng, worst, levels)
	}
	s := mustSpec(t, "kd-choice", map[string]string{"k": "2", "d": "4"}, core.Common{Bins: n, Balls: m, Seed: 18})
	wrong, _ := core.FluidOf(mustSpec(t, "two-choice", nil, core.Common{Bins: n, Balls: m}))
	if worst, _ := fluidAgreement(s, wrong, trials); worst <= 1 {
		t.Errorf("kd-choice k=2 d=4 passed as two-choice's fluid limit: worst %.2f", worst)
	} else {
		t.Logf("k=2 d=4 against two-choice's fluid limit: worst %.2f of the tolerance", worst)
	}
}

// The fluid limits of twinning and packing against simulation at
// n = 10^5, m = 20n, on both engines, and each told apart from the other's.
func TestTwinningPackingMatchFluidLimit(t *testing.T) {
	t.Parallel()
	const n, m = 100000, 2000000
	trials := 8
	profile := func(process string) *core.Spec {
		return mustSpec(t, process, nil, core.Common{Bins: n, Balls: m})
	}
	for i, c := range []struct {
		process, other string
		eng            core.Engine
	}{{"twinning", "packing", core.EngineDirect}, {"packing", "twinning", core.EngineHistogram}} {
		s := mustSpec(t, c.process, nil, core.Common{Bins: n, Balls: m, Seed: uint64(60 + i), Engine: c.eng})
		prof, err := core.FluidOf(profile(c.process))
		if err != nil {
			t.Fatal(err)
		}
		worst, levels := fluidAgreement(s, prof, trials)
		if levels < 5 || worst > 1 {
			t.Errorf("%s on %s: worst deviation %.2f of the tolerance over %d levels", c.process, c.eng, worst, levels)
		}
		wrong, _ := core.FluidOf(profile(c.other))
		bad, _ := fluidAgreement(s, wrong, trials)
		if bad <= 1 {
			t.Errorf("%s passed as %s's fluid limit: worst %.2f", c.process, c.other, bad)
		}
		t.Logf("%s on %s: worst %.2f of the tolerance over %d levels; against %s's limit %.1f", c.process, c.eng, worst, levels, c.other, bad)
	}
}

// kd-choice with k = d puts a ball on every slot: after whole steps it is
// One-Choice in law (m = 6 = two steps of 3).
func TestKDChoiceKEqualsDIsOneChoice(t *testing.T) {
	trials := lawTrials(40000)
	obs := simulateVectors(t, exactCase{"kd-choice", map[string]string{"k": "3", "d": "3"}, 3, 6, nil}, trials, 77)
	exactCheck(t, exactLaw(3, 6, uniformChoice(3)), obs, trials)
}
