// Package proctable is the per-process test battery: each process's test
// declares a Row (its literal slow loop and, where one exists, its exact
// law for tiny n), and Run puts every row through every engine its process
// claims, so a new process gets the whole battery by adding its row. Test
// code only: nothing outside _test.go files imports it.
package proctable

import (
	"fmt"
	"github.com/balloc/balloc/internal/exactlaw"
	"math"
	"slices"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/internal/stattest"
	"github.com/balloc/balloc/kernels"
)

// Row is one process at one setting of its parameters.
type Row struct {
	Process string
	Params  map[string]string
	// Slow places ball t+1 (t balls placed before) on loads, drawing from
	// the trial's streams, in the order the process's file
	// documents: the rule written out literally, one draw at a time, with
	// no fast path, against which the direct engine's loop is checked ball
	// for ball. Nil where the process has none yet.
	Slow func(loads []uint64, tr Trial, t uint64)
	// Step is Slow for a process whose steps place several balls
	// (twinning, packing, kd-choice): one step from ball t+1 on, cut to the
	// run's Balls as the process cuts its last step; it returns the balls
	// placed. At most one of Slow and Step is set.
	Step func(loads []uint64, tr Trial, t uint64) uint64
	// Whole is the slow loop of a process that does not place its balls
	// one run of balls at a time from empty bins (rbb's rounds over
	// tr.Balls balls placed at the start, leaky's rounds of arrivals and
	// deletions from them): the final loads of a trial on n bins. The
	// battery's sizes are then the trial's starting balls (SlowBalls {0}:
	// from empty only), its length the row's own (--rounds). At most one
	// of Slow, Step and Whole is set.
	Whole func(n uint64, tr Trial) []uint64
	// Law is the law of the bin that receives ball t+1 given the loads,
	// from the process's definition (ties split uniformly where the
	// definition says random ties), for the exact law of the load vector
	// of M balls in N bins; nil where none is declared.
	Law Transition
	// Final is the exact law of the final load vector (one byte a bin) of
	// N bins and M balls, for a process whose next bin depends on more
	// than the loads and t (rbb's and leaky's rounds, idea's estimates): Law's place,
	// computed by the row over the process's whole state. At most one of
	// Law and Final is set; the supermarket and weights checks take Law.
	Final func() map[string]float64
	N, M  int
	// SlowBins and SlowBalls, when set, replace the battery's sizes of the
	// slow-loop comparison (Options.SlowBins, and Checks with SlowBalls)
	// for a process that cannot run at them (the optimal policy's table
	// holds every load vector of n bins and m balls).
	SlowBins  uint64
	SlowBalls []uint64
	// ArrivalRate, when set, is λ of a process that runs in the supermarket
	// model only (redundancy, whose jobs are d copies, not balls): the row
	// runs there, the battery's sizes and M counting events (--events),
	// handed to Whole as Trial.Balls.
	ArrivalRate float64
}

// common is r's run of trials trials of m balls (events, in the
// supermarket model of ArrivalRate) on n bins.
func (r Row) common(n, m uint64, trials int, seed uint64, eng core.Engine, keep bool) core.Common {
	c := core.Common{Bins: n, Balls: m, Trials: trials, Seed: seed, Alpha: 1, Engine: eng, KeepLoads: keep}
	if r.ArrivalRate > 0 {
		c.Balls, c.Dynamic = 0, core.Dynamic{ArrivalRate: r.ArrivalRate, Events: m}
	}
	return c
}

func (r Row) String() string {
	keys := make([]string, 0, len(r.Params))
	for k := range r.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	s := r.Process
	for _, k := range keys {
		s += fmt.Sprintf(" %s=%s", k, r.Params[k])
	}
	if r.ArrivalRate > 0 {
		s += fmt.Sprintf(" arrival-rate=%g", r.ArrivalRate)
	}
	return s
}

// Trial is what a slow loop sees of its trial, as the direct engine hands
// it to the process (process.Trial): the streams, Choices for its samples
// and Noise for coins the process draws apart, Structure for what a
// process draws once a trial (its lane of kernels.TrialStream: a ring), the
// run's balls m (a supermarket row's events), and its seed and trial index
// (a process whose structure is drawn from the seed, a random graph or
// hypergraph, or from the trial's structure stream, hypergraph --refresh,
// builds its own from them).
//
// Weight is each ball's weight (1 for unit balls, the battery's constant
// weight in its weighted run), for a process whose rule reads weights other
// than as a scale of the loads (idea's estimates hold at integers of
// weight, not of balls).
type Trial struct {
	Choices, Noise, Structure *kernels.PCG32
	Balls                     uint64
	Seed, Index               uint64
	Weight                    float64
}

// Transition and the common transitions are internal/exactlaw's.
type Transition = exactlaw.Transition

// The transitions of One-Choice, best of samples, d-Choice and mixtures.
var (
	Uniform = exactlaw.Uniform
	BestOf  = exactlaw.BestOf
	AllBins = exactlaw.AllBins
	DChoice = exactlaw.DChoice
	Mix     = exactlaw.Mix
)

// Options are the sizes of the battery.
type Options struct {
	// SlowBins, SlowBalls: the sizes of the ball-for-ball comparison; the
	// loads are compared after runs of each of Checks balls and of
	// SlowBalls (each its own run: a process may read m, threshold's M).
	SlowBins  uint64
	SlowBalls uint64
	Checks    []uint64
	// LawTrials: seeded trials of the exact-law χ² test on each engine.
	LawTrials int
	// Pending: catalogue entries that have no row yet, each with why. An
	// entry neither in a row nor here fails Run, as does a pending entry
	// that has a row.
	Pending map[string]string
}

// Run checks that every entry of the catalogue has a row or is pending,
// then runs each row: the direct engine against its slow loop ball for
// ball (or against its whole-trial loop, Whole; event for event in the
// supermarket model, for a row with ArrivalRate), and its exact law (Law,
// or the final vector's, Final) on the direct engine and, for a process with the
// Histogram capability, on the histogram engine (the law of the sorted
// loads, which is what its levels hold). Where the process takes
// --weights, the slow loop again with constant weights, which scale every
// load and change nothing else (or, where they change more, as idea's
// holds at integers of weight, the slow loop reads Trial.Weight), and its
// first row's law with them; where
// it places balls that leave (Placer), its first row's law in the
// supermarket model on its engines.
func Run(t *testing.T, rows []Row, o Options) {
	has := map[string]bool{}
	for _, r := range rows {
		if _, err := process.Lookup(r.Process); err != nil {
			t.Errorf("row %s: %v", r, err)
		}
		has[r.Process] = true
	}
	for _, e := range process.Entries() {
		_, pending := o.Pending[e.Name]
		switch {
		case has[e.Name] && pending:
			t.Errorf("%s has a row: take it out of Pending", e.Name)
		case !has[e.Name] && !pending:
			t.Errorf("%s has no row in the process table: declare its slow loop and exact law (internal/proctable.Row) beside its tests", e.Name)
		}
	}
	weighed, left := map[string]bool{}, map[string]bool{} // processes checked with constant weights, with balls leaving
	for i, r := range rows {
		e, err := process.Lookup(r.Process)
		if err != nil {
			continue
		}
		// Constant weights and balls that leave are checked once a process
		// (its first row with a law), by the exact law: how the engine
		// treats the weights, and its arrivals' placement, are the
		// process's, whatever the row's parameters.
		weigh := e.Weighted && r.Law != nil && !weighed[r.Process]
		if weigh {
			weighed[r.Process] = true
		}
		leave := r.Law != nil && r.ArrivalRate == 0 && !left[r.Process] && leaves(t, r)
		if leave {
			left[r.Process] = true
		}
		t.Run(r.String(), func(t *testing.T) {
			t.Parallel()
			if r.Slow != nil || r.Step != nil || r.Whole != nil {
				checkSlow(t, r, o, nil)
				if e.Weighted {
					checkSlow(t, r, o, map[string]string{"weights": "const:2.5"})
				}
			}
			if r.Law == nil && r.Final == nil {
				return
			}
			checkLaw(t, r, core.EngineDirect, nil, o.LawTrials, uint64(1000+i))
			if weigh {
				checkLaw(t, r, core.EngineDirect, map[string]string{"weights": "const:2.5"}, o.LawTrials, uint64(3000+i))
			}
			if e.Symmetric() {
				checkLaw(t, r, core.EngineHistogram, nil, o.LawTrials, uint64(2000+i))
			}
			if leave {
				checkSupermarket(t, r, core.EngineDirect, o.LawTrials, uint64(4000+i))
				if e.Symmetric() {
					checkSupermarket(t, r, core.EngineHistogram, o.LawTrials, uint64(5000+i))
				}
			}
		})
	}
}

// spec builds r's spec with extra parameters, on an engine.
func spec(t *testing.T, r Row, extra map[string]string, com core.Common) *core.Spec {
	set := map[string]string{}
	for k, v := range r.Params {
		set[k] = v
	}
	for k, v := range extra {
		set[k] = v
	}
	s, err := core.NewSpec(r.Process, set, com)
	if err != nil {
		t.Fatalf("%s %v: %v", r, extra, err)
	}
	return s
}

// checkSlow runs the direct engine on one trial of each check's number of
// balls m, and the slow loop ball by ball on the same trial's streams, and
// compares every load (in units of the constant weight, if any).
func checkSlow(t *testing.T, r Row, o Options, extra map[string]string) {
	const seed, trial = 5, 3
	sizes := append(slices.Clone(o.Checks), o.SlowBalls)
	if r.SlowBalls != nil {
		sizes = r.SlowBalls
	}
	if r.SlowBins != 0 {
		o.SlowBins = r.SlowBins
	}
	for _, m := range sizes {
		rng := kernels.TrialStream(seed, trial, kernels.LaneChoices)
		noise := kernels.TrialStream(seed, trial, kernels.LaneNoise)
		structure := kernels.TrialStream(seed, trial, kernels.LaneStructure)
		s := spec(t, r, extra, r.common(o.SlowBins, m, 1, seed, core.EngineDirect, true))
		scale := s.Weights.Scale()
		tr := Trial{Choices: &rng, Noise: &noise, Structure: &structure, Balls: m, Seed: seed, Index: trial, Weight: scale}
		loads := make([]uint64, o.SlowBins)
		if r.Whole != nil {
			loads = r.Whole(o.SlowBins, tr)
		}
		for placed := uint64(0); placed < m && r.Whole == nil; {
			if r.Step != nil {
				placed += r.Step(loads, tr, placed)
				continue
			}
			r.Slow(loads, tr, placed)
			placed++
		}
		res := engine.RunTrial(s, trial, nil)
		after := fmt.Sprintf("after %d balls", m)
		switch {
		case r.ArrivalRate > 0:
			after = fmt.Sprintf("after %d events", m)
		case r.Whole != nil: // m is the trial's start, not the balls thrown
			after = fmt.Sprintf("at the end of the trial from --balls %d", m)
		}
		for i, want := range loads {
			if got := res.Loads[i] / scale; got != float64(want) {
				t.Fatalf("%s, %s, n = %d: %s bin %d holds %v on the direct engine, %d by the slow loop (the fast loop left the rule or its stream)",
					r, ballsText(extra), o.SlowBins, after, i, got, want)
			}
		}
	}
}

// Supermarket is the setting of the balls-leave check: arrivals at rate
// λn, each non-empty bin serving at rate 1, over Events uniformized events
// (core/dynamic.go): an arrival with probability λ/(1+λ), placed by the
// row's law with t the balls present, else a departure from a uniform bin
// of the n when it is non-empty.
var Supermarket = struct {
	Lambda float64
	Events int
}{0.7, 8}

// leaves reports whether r's process at r's parameters places balls when
// balls leave (the Placer capability, its placement not refused).
func leaves(t *testing.T, r Row) bool {
	s := spec(t, r, nil, core.Common{Bins: uint64(r.N), Balls: uint64(r.M), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
	pl, ok := s.Proc.(process.Placer)
	if !ok {
		return false
	}
	_, why := pl.Placement()
	return why == ""
}

// checkSupermarket tests r's process in the supermarket model against the
// exact law of its load vector after Supermarket.Events events (sorted on
// the histogram engine), and that the loads hold the balls present.
func checkSupermarket(t *testing.T, r Row, eng core.Engine, trials int, seed uint64) {
	lambda, events := Supermarket.Lambda, Supermarket.Events
	law := supermarketLaw(r.N, events, lambda/(1+lambda), r.Law)
	sorted := eng == core.EngineHistogram
	if sorted {
		law = SortedLaw(law)
	}
	dyn := core.Dynamic{ArrivalRate: lambda, Events: uint64(events)}
	s := spec(t, r, nil, core.Common{Bins: uint64(r.N), Trials: trials, Seed: seed, Alpha: 1, Engine: eng, KeepLoads: !sorted, Dynamic: dyn})
	obs := map[string]int{}
	for k := range trials {
		res := engine.RunTrial(s, uint64(k), nil)
		v := vector(res.Loads, res.Histogram, sorted)
		total := uint64(0)
		for _, b := range v {
			total += uint64(b)
		}
		if total != res.Balls {
			t.Fatalf("%s, balls leave, %s engine, trial %d: the loads hold %d balls, the result says %d present", r, eng, k, total, res.Balls)
		}
		obs[string(v)]++
	}
	law, obs = poolRare(law, obs, trials)
	if stat, limit, df := stattest.Law(law, obs, trials); stat > limit {
		t.Errorf("%s with balls leaving (λ = %g, %d events) on the %s engine: χ² = %.1f on %d df exceeds %.1f (p < 1e-4) against its exact law (%d trials, seed %d)",
			r, lambda, events, eng, stat, df, limit, trials, seed)
	}
}

// supermarketLaw propagates the law of load vectors through events
// uniformized events: with probability a an arrival placed by tr (t the
// balls present), else a departure from a uniform bin, if non-empty.
func supermarketLaw(n, events int, a float64, tr Transition) map[string]float64 {
	law := map[string]float64{string(make([]byte, n)): 1}
	for range events {
		next := map[string]float64{}
		for v, pv := range law {
			loads, present := make([]int, n), 0
			for i := range loads {
				loads[i] = int(v[i])
				present += loads[i]
			}
			for b, pb := range tr(loads, present) {
				if pb > 0 {
					w := []byte(v)
					w[b]++
					next[string(w)] += pv * a * pb
				}
			}
			for b := range n {
				w := []byte(v)
				if w[b] > 0 {
					w[b]--
				}
				next[string(w)] += pv * (1 - a) / float64(n)
			}
		}
		law = next
	}
	return law
}

// vector is a trial's load vector as bytes: bin by bin from loads, or
// sorted from the histogram's levels.
func vector(loads []float64, h result.Histogram, sorted bool) []byte {
	var v []byte
	if sorted {
		for _, l := range h {
			for range l.Count {
				v = append(v, byte(math.Round(l.Load)))
			}
		}
		slices.Sort(v)
		return v
	}
	for _, x := range loads {
		v = append(v, byte(math.Round(x)))
	}
	return v
}

// ballsText names the balls of a comparison: unit, or the weights given.
func ballsText(extra map[string]string) string {
	if w, ok := extra["weights"]; ok {
		return "--weights " + w
	}
	return "unit balls"
}

// checkLaw tests the vectors of trials seeded trials on eng against r's
// exact law: the load vectors on the direct engine, the sorted ones on the
// histogram engine.
func checkLaw(t *testing.T, r Row, eng core.Engine, extra map[string]string, trials int, seed uint64) {
	var law map[string]float64
	if r.Final != nil {
		law = r.Final()
	} else {
		law = ExactLaw(r.N, r.M, r.Law)
	}
	sorted := eng == core.EngineHistogram
	if sorted {
		law = SortedLaw(law)
	}
	s := spec(t, r, extra, r.common(uint64(r.N), uint64(r.M), trials, seed, eng, !sorted))
	scale := s.Weights.Scale()
	obs := map[string]int{}
	for k := range trials {
		res := engine.RunTrial(s, uint64(k), nil)
		v := make([]byte, 0, r.N)
		if sorted {
			for _, l := range res.Histogram {
				for range l.Count {
					v = append(v, byte(math.Round(l.Load)))
				}
			}
			slices.Sort(v)
		} else {
			for _, x := range res.Loads {
				v = append(v, byte(math.Round(x/scale)))
			}
		}
		obs[string(v)]++
	}
	law, obs = poolRare(law, obs, trials)
	stat, limit, df := stattest.Law(law, obs, trials)
	if stat > limit {
		m := fmt.Sprintf("m = %d", r.M)
		if r.ArrivalRate > 0 {
			m = fmt.Sprintf("λ = %g, %d events", r.ArrivalRate, r.M)
		}
		t.Errorf("%s on the %s engine, %s: χ² = %.1f on %d df exceeds %.1f (p < 1e-4) against its exact law for n = %d, %s (%d trials, seed %d)", r, eng, ballsText(extra), stat, df, limit, r.N, m, trials, seed)
	}
}

// pooled is the outcome poolRare merges rare outcomes into (no load vector
// of the tables' sizes is this string).
const pooled = "pooled"

// poolRare merges the outcomes expected fewer than 5 times into one, and
// that one, while still expected fewer than 5 times, with the least likely
// other outcome: stattest.Law pools them too but leaves a pooled cell of
// tiny expectation, where one observation (d-choice d = 3, n = 3, m = 5:
// [0 0 5], expected 0.04 times in 20000 trials) makes χ² ≈ 23 alone.
// Outcomes outside the law are kept as they are, so they still fail.
func poolRare(law map[string]float64, obs map[string]int, trials int) (map[string]float64, map[string]int) {
	pl, po := map[string]float64{}, map[string]int{}
	into := func(k string) string {
		if p, ok := law[k]; ok && p*float64(trials) < 5 {
			return pooled
		}
		return k
	}
	for k, p := range law {
		pl[into(k)] += p
	}
	for k, o := range obs {
		po[into(k)] += o
	}
	for pl[pooled] > 0 && pl[pooled]*float64(trials) < 5 && len(pl) > 2 {
		least := ""
		for k, p := range pl {
			if k != pooled && (least == "" || p < pl[least]) {
				least = k
			}
		}
		pl[pooled] += pl[least]
		po[pooled] += po[least]
		delete(pl, least)
		delete(po, least)
	}
	return pl, po
}

// ExactLaw propagates the law of the load vector (one byte a bin) over m
// balls in n bins.
func ExactLaw(n, m int, tr Transition) map[string]float64 {
	law := map[string]float64{string(make([]byte, n)): 1}
	for t := range m {
		next := map[string]float64{}
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
				next[string(w)] += pv * pb
			}
		}
		law = next
	}
	return law
}

// SortedLaw is the law of the sorted load vector.
func SortedLaw(law map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for v, p := range law {
		b := []byte(v)
		slices.Sort(b)
		out[string(b)] += p
	}
	return out
}
