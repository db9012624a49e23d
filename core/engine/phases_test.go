package engine

import (
	"fmt"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
)

// --phases (core.Dynamic.Phases): the exact law after a few phases for
// n ≤ 4 on both engines, with a power check; one insertion phase is the
// static process field for field; every phase's end is a checkpoint.

// phaseLaw propagates the law of load vectors through the phases: a
// positive phase inserts by tr, a negative one removes by dep (nothing
// when no ball is present).
func phaseLaw(n int, phases []int64, tr transition, dep departure) map[vec]float64 {
	law := map[vec]float64{vec(make([]byte, n)): 1}
	for _, ph := range phases {
		a := 1.0
		if ph < 0 {
			a, ph = 0, -ph
		}
		for range ph {
			next := map[vec]float64{}
			for v, pv := range law {
				loads := make([]int, n)
				for i := range loads {
					loads[i] = int(v[i])
				}
				if a == 1 {
					for b, pb := range tr(loads, 0) {
						if pb > 0 {
							w := []byte(v)
							w[b]++
							next[vec(w)] += pv * pb
						}
					}
					continue
				}
				stay := 1.0
				for b, pb := range dep(loads) {
					if pb > 0 {
						w := []byte(v)
						w[b]--
						next[vec(w)] += pv * pb
						stay -= pb
					}
				}
				if stay > 1e-12 {
					next[v] += pv * stay
				}
			}
			law = next
		}
	}
	return law
}

func phaseCase(process string, params map[string]string, n int, phases []int64, mode string, law transition) dynamicCase {
	dep := uniformBall
	if mode == "bin" {
		dep = uniformBusyBin
	}
	return dynamicCase{process, params, n, int(core.PhaseSteps(phases)), core.Dynamic{Phases: phases, Delete: mode}, law, dep, 0}
}

func TestPhasesMatchExactLaw(t *testing.T) {
	t.Parallel()
	trials := lawTrials(40000)
	for i, c := range []dynamicCase{
		phaseCase("two-choice", nil, 3, []int64{4, -2, 3}, "ball", dChoiceExact(3, 2)),
		phaseCase("two-choice", nil, 3, []int64{5, -3, 2}, "bin", dChoiceExact(3, 2)),
		phaseCase("one-choice", nil, 2, []int64{3, -4, 3}, "ball", uniformChoice(2)), // a deletion with none present
		phaseCase("quantile", map[string]string{"delta": "0.5"}, 4, []int64{4, -2, 2, -1, 1}, "ball", quantileExact(4, 0.5)),
		phaseCase("two-thinning", map[string]string{"threshold": "0.5"}, 3, []int64{4, -3, 3}, "bin", presentThinning(3, []float64{0.5}, -1)),
	} {
		law := phaseLaw(c.n, c.dyn.Phases, c.law, c.dep)
		for _, engine := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			t.Run(fmt.Sprintf("%s%v/%s/%s", c.process, c.params, core.PhasesString(c.dyn.Phases), engine), func(t *testing.T) {
				want := law
				if engine == core.EngineHistogram {
					want = sortedLaw(law)
				}
				obs := simulateDynamic(t, c, engine, trials, uint64(5000+i))
				stat, limit, df := stattest.Law(want, obs, trials)
				if stat > limit {
					t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
				}
			})
		}
	}
}

// Power: the other deletion mode, and the phases in another order, fail.
func TestPhasesExactLawHasPower(t *testing.T) {
	t.Parallel()
	trials := lawTrials(40000)
	c := phaseCase("two-choice", nil, 3, []int64{4, -2, 3}, "ball", nil)
	for _, w := range []struct {
		name string
		law  map[vec]float64
	}{
		{"bin for ball", phaseLaw(3, []int64{4, -2, 3}, dChoiceExact(3, 2), uniformBusyBin)},
		{"one-choice insertions", phaseLaw(3, []int64{4, -2, 3}, uniformChoice(3), uniformBall)},
		{"the deletions last", phaseLaw(3, []int64{4, 3, -2}, dChoiceExact(3, 2), uniformBall)},
	} {
		for _, engine := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			law := w.law
			if engine == core.EngineHistogram {
				law = sortedLaw(law)
			}
			obs := simulateDynamic(t, c, engine, trials, 80)
			if stat, limit, _ := stattest.Law(law, obs, trials); stat <= limit {
				t.Errorf("%s on %s passed: χ² = %.1f ≤ %.1f", w.name, engine, stat, limit)
			}
		}
	}
}

// One insertion phase is the static process: every field agrees, with
// --checkpoints (whose last is the phase's end).
func TestOnePhaseIsStatic(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		process string
		params  map[string]string
		n, m    uint64
	}{
		{"two-choice", nil, 1000, 50000},
		{"quantile", map[string]string{"delta": "0.5"}, 1000, 30000},
		{"two-thinning", map[string]string{"threshold": "0.5"}, 1000, 30000},
		{"one-choice", nil, 100, 500}, // shorter than the histogram's short runs
		{"two-choice", nil, 1 << 20, 3 << 22},
	} {
		for _, engine := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			t.Run(fmt.Sprintf("%s%v/n=%d/%s", c.process, c.params, c.n, engine), func(t *testing.T) {
				com := core.Common{Bins: c.n, Balls: c.m, Trials: 1, Seed: 9, Alpha: 0.5, Engine: engine, Checkpoints: 7}
				static, err := core.NewSpec(c.process, c.params, com)
				if err != nil {
					t.Fatal(err)
				}
				com.Balls, com.Dynamic = 0, core.Dynamic{Phases: []int64{int64(c.m)}}
				dyn, err := core.NewSpec(c.process, c.params, com)
				if err != nil {
					t.Fatal(err)
				}
				a, b := RunTrial(static, 2, nil), RunTrial(dyn, 2, nil)
				if b.Dynamic == nil || b.Dynamic.Model != "phases" || b.Dynamic.Arrivals != c.m {
					t.Fatalf("one phase made %+v", b.Dynamic)
				}
				a.ElapsedS, a.BallsPerS, b.ElapsedS, b.BallsPerS = 0, 0, 0, 0
				b.Dynamic, a.Params, b.Params = nil, nil, nil
				if fmt.Sprintf("%+v", *a) != fmt.Sprintf("%+v", *b) {
					t.Errorf("static and one phase differ:\n%+v\n%+v", *a, *b)
				}
			})
		}
	}
}

// Every phase's end is a checkpoint, beside --checkpoints, and the books
// add up: each insertion phase inserts its count, each deletion phase
// removes its count while balls are present.
func TestPhaseEndsAreCheckpoints(t *testing.T) {
	phases := []int64{20000, -15000, 10000, -12000}
	for _, engine := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
		s, err := core.NewSpec("two-choice", nil, core.Common{Bins: 1000, Trials: 1, Seed: 3, Alpha: 1, Engine: engine, Checkpoints: 4, Dynamic: core.Dynamic{Phases: phases, Delete: "bin"}})
		if err != nil {
			t.Fatal(err)
		}
		if s.Balls != 57000 {
			t.Fatalf("balls %d, want the phases' 57000 steps", s.Balls)
		}
		r := RunTrial(s, 0, nil)
		var steps []uint64
		for _, c := range r.Checkpoints {
			steps = append(steps, c.Balls)
		}
		want := []uint64{14250, 20000, 28500, 35000, 42750, 45000, 57000}
		if fmt.Sprint(steps) != fmt.Sprint(want) {
			t.Errorf("%s: checkpoints at %v, want %v", engine, steps, want)
		}
		if d := r.Dynamic; d.Arrivals != 30000 || d.Departures != 27000 || r.Balls != 3000 {
			t.Errorf("%s: %d in, %d out, %d present", engine, d.Arrivals, d.Departures, r.Balls)
		}
		// After the first deletion phase 5000 balls are present: the gap
		// is the max load − 5.
		if c := r.Checkpoints[3]; c.Balls != 35000 || c.Gap != c.MaxLoad-5 {
			t.Errorf("%s: gap %v with max load %v after 5000 present", engine, c.Gap, c.MaxLoad)
		}
	}
}
