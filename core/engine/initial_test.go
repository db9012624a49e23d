package engine

import (
	"fmt"
	"github.com/balloc/balloc/internal/exactlaw"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/internal/stattest"
	"github.com/balloc/balloc/kernels"
)

// --initial (core/process/initial.go): each form ball for ball on a tiny
// case, the exact law from an initial vector on both engines with a power
// check, two-thinning reading the current average, bad files, and a spike's
// recovery.

func writeLoads(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "loads.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every form writes the vector it names, and then one-choice throws its
// balls on top exactly as a literal loop from that vector does (same draws).
func TestInitialFormsBallForBall(t *testing.T) {
	file := writeLoads(t, "# a comment\n2\n0\n\n7\n1\n")
	for _, c := range []struct {
		initial string
		want    []uint64
	}{
		{"zero", []uint64{0, 0, 0, 0}},
		{"uniform:3", []uint64{3, 3, 3, 3}},
		{"spike:5", []uint64{5, 0, 0, 0}},
		{"file:" + file, []uint64{2, 0, 7, 1}},
	} {
		for _, m := range []uint64{0, 50} {
			s := mustSpec(t, "one-choice", map[string]string{"initial": c.initial}, core.Common{Bins: 4, Balls: m, Seed: 9, KeepLoads: true, Checkpoints: min(m, 3)})
			r := RunTrial(s, 0, nil)
			want := slices.Clone(c.want)
			w0 := uint64(0)
			for _, x := range want {
				w0 += x
			}
			rng := kernels.TrialStream(9, 0, kernels.LaneChoices)
			for range m {
				want[rng.Bounded(4)]++
			}
			for i, x := range want {
				if r.Loads[i] != float64(x) {
					t.Fatalf("--initial %s, %d balls: bin %d holds %v, the literal loop %d", c.initial, m, i, r.Loads[i], x)
				}
			}
			if r.Balls != m || r.InitialBalls != w0 {
				t.Errorf("--initial %s: balls %d initial_balls %d, want %d and %d", c.initial, r.Balls, r.InitialBalls, m, w0)
			}
			if avg := float64(w0+m) / 4; r.Average != avg || r.Gap != r.MaxLoad-avg {
				t.Errorf("--initial %s: average %v gap %v, want the whole load's average %v", c.initial, r.Average, r.Gap, avg)
			}
			if m > 0 && r.Checkpoints[len(r.Checkpoints)-1].Balls != m {
				t.Errorf("--initial %s: the last checkpoint counts %d balls, want the %d thrown", c.initial, r.Checkpoints[len(r.Checkpoints)-1].Balls, m)
			}
		}
	}
}

// The default, zero, is the start of every process until now: the spec, its
// hash and its results are those of a spec that never mentions --initial.
func TestInitialZeroIsTodaysStart(t *testing.T) {
	for _, proc := range []string{"two-choice", "two-thinning"} {
		params := map[string]string{}
		if proc == "two-thinning" {
			params["threshold"] = "0.5"
		}
		a := mustSpec(t, proc, params, core.Common{Bins: 50, Balls: 5000, Seed: 3, KeepLoads: true})
		params["initial"] = "zero"
		b := mustSpec(t, proc, params, core.Common{Bins: 50, Balls: 5000, Seed: 3, KeepLoads: true})
		if a.Hash() != b.Hash() || a.ParamsText() != b.ParamsText() {
			t.Errorf("%s: --initial zero changes the spec: %s %q vs %s %q", proc, a.Hash(), a.ParamsText(), b.Hash(), b.ParamsText())
		}
		ra, rb := RunTrial(a, 0, nil), RunTrial(b, 0, nil)
		if !slices.Equal(ra.Loads, rb.Loads) || rb.InitialBalls != 0 {
			t.Errorf("%s: --initial zero changes the loads", proc)
		}
	}
}

// Two-thinning reads the current average (W0 + t)/n: ball for ball against
// the literal rule with W0 added.
func TestInitialTwoThinningReadsCurrentAverage(t *testing.T) {
	const n, m, w = 10, 3000, 7
	s := mustSpec(t, "two-thinning", map[string]string{"threshold": "0.5", "initial": fmt.Sprintf("uniform:%d", w)},
		core.Common{Bins: n, Balls: m, Seed: 5, KeepLoads: true, Checkpoints: 4})
	got := RunTrial(s, 0, nil).Loads
	loads := make([]uint64, n)
	for i := range loads {
		loads[i] = w
	}
	r := kernels.TrialStream(5, 0, kernels.LaneChoices)
	for ball := uint64(0); ball < m; ball++ {
		i := r.Bounded(n)
		// load < (W0 + t)/n + 1/2 ⇔ 2n·load < 2(W0 + t) + n
		if 2*n*loads[i] >= 2*(n*w+ball)+n {
			i = r.Bounded(n)
		}
		loads[i]++
	}
	for i := range loads {
		if got[i] != float64(loads[i]) {
			t.Fatalf("bin %d holds %v, the literal rule on the current average %d", i, got[i], loads[i])
		}
	}
}

// exactLawFrom propagates the law of the load vector for m balls from start;
// the transition sees t + w0 balls placed (the current total).
func exactLawFrom(start []int, m int, tr transition) map[vec]float64 {
	v := make([]byte, len(start))
	w0 := 0
	for i, x := range start {
		v[i] = byte(x)
		w0 += x
	}
	law := map[vec]float64{vec(v): 1}
	for t := range m {
		next := map[vec]float64{}
		for v, pv := range law {
			loads := make([]int, len(v))
			for i := range loads {
				loads[i] = int(v[i])
			}
			for b, pb := range tr(loads, w0+t) {
				if pb > 0 {
					w := []byte(v)
					w[b]++
					next[vec(w)] += pv * pb
				}
			}
		}
		law = next
	}
	return law
}

type initialCase struct {
	process string
	params  map[string]string
	initial string
	start   []int
	n, m    int
	law     transition
}

func initialCases() []initialCase {
	return []initialCase{
		{"two-choice", nil, "spike:3", []int{3, 0, 0}, 3, 5, dChoiceExact(3, 2)},
		{"one-plus-beta", map[string]string{"beta": "0.5"}, "spike:4", []int{4, 0, 0, 0}, 4, 4, mix(0.5, uniformChoice(4), dChoiceExact(4, 2))},
		{"two-thinning", map[string]string{"threshold": "0.5"}, "uniform:1", []int{1, 1, 1}, 3, 6, thinningExact(3, 0.5)},
		{"quantile", map[string]string{"delta": "0.5"}, "spike:2", []int{2, 0, 0, 0}, 4, 4, quantileExact(4, 0.5)},
		{"k-thinning", map[string]string{"k": "3", "thresholds": "0,1"}, "spike:3", []int{3, 0, 0}, 3, 5, kThinningExact(3, []float64{0, 1})},
		{"k-thinning", map[string]string{"k": "3", "thresholds": "quantile"}, "spike:3", []int{3, 0, 0, 0}, 4, 4, kThinningQuantileExact(3)},
		{"k-threshold", map[string]string{"offsets": "0,1"}, "spike:3", []int{3, 0, 0}, 3, 5, exactlaw.KThreshold(3, 0, 1)},
		{"k-quantile", map[string]string{"deltas": "0.5,0.25"}, "spike:3", []int{3, 0, 0, 0}, 4, 4, exactlaw.KQuantile(4, 0.5, 0.25)},
		{"threshold", nil, "spike:3", []int{3, 0, 0}, 3, 5, thresholdLimitTransition(3, 3+5)},
		{"adaptive", nil, "spike:3", []int{3, 0, 0}, 3, 5, retryExact(3, adaptiveLimit(3, 1))},
		// not symmetric: the direct engine only; the group sums start from the spike
		{"kp-groups", map[string]string{"group-size": "2"}, "spike:3", []int{3, 0, 0, 0}, 4, 4, groupsExact(4, 2, alignedStarts(4, 2), false)},
	}
}

func (c initialCase) spec(t *testing.T, engine core.Engine, trials int, seed uint64) *core.Spec {
	params := map[string]string{"initial": c.initial}
	for k, v := range c.params {
		params[k] = v
	}
	return mustSpec(t, c.process, params, core.Common{Bins: uint64(c.n), Balls: uint64(c.m), Trials: trials, Seed: seed, Engine: engine, KeepLoads: engine == core.EngineDirect})
}

// tally counts the final vectors: bin by bin on the direct engine, sorted
// from the histogram's levels on the histogram engine.
func tally(t *testing.T, s *core.Spec, trials int) map[vec]int {
	obs := map[vec]int{}
	for k := range trials {
		r := lawTrial(s, uint64(k))
		var b []byte
		if r.Loads != nil {
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
		if len(b) != int(s.Bins) {
			t.Fatalf("%d bins in the result, want %d", len(b), s.Bins)
		}
		obs[vec(b)]++
	}
	return obs
}

// From an initial vector, both engines follow the exact law of the process
// started there (χ², p < 1e-4 per case).
func TestInitialMatchesExactLaw(t *testing.T) {
	t.Parallel()
	trials := lawTrials(30000)
	for i, c := range initialCases() {
		law := exactLawFrom(c.start, c.m, c.law)
		for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			if eng == core.EngineHistogram && c.process == "kp-groups" {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s/%s", c.process, c.initial, eng), func(t *testing.T) {
				want := law
				if eng == core.EngineHistogram {
					want = sortedLaw(law)
				}
				obs := tally(t, c.spec(t, eng, trials, uint64(300+i)), trials)
				if stat, limit, df := stattest.Law(want, obs, trials); stat > limit {
					t.Errorf("χ² = %.1f on %d df exceeds %.1f", stat, df, limit)
				}
			})
		}
	}
}

// The law test has power: the same total started elsewhere (uniform:1
// against spike:3), and two-thinning reading t/n instead of the current
// average, are both refused.
func TestInitialExactLawHasPower(t *testing.T) {
	trials := lawTrials(30000)
	c := initialCases()[0]
	wrong := exactLawFrom([]int{1, 1, 1}, c.m, c.law)
	if stat, limit, _ := stattest.Law(wrong, tally(t, c.spec(t, core.EngineDirect, trials, 1), trials), trials); stat <= limit {
		t.Errorf("spike:3 passed as uniform:1: χ² = %.1f ≤ %.1f", stat, limit)
	}
	th := initialCases()[2]
	thin := thinningExact(3, 0.5)
	fromZero := func(loads []int, t int) []float64 { return thin(loads, t-3) } // t/n of thrown balls only
	wrong = exactLawFrom(th.start, th.m, fromZero)
	if stat, limit, _ := stattest.Law(wrong, tally(t, th.spec(t, core.EngineDirect, trials, 2), trials), trials); stat <= limit {
		t.Errorf("two-thinning on the current average passed as on t/n: χ² = %.1f ≤ %.1f", stat, limit)
	}
}

// A bad --initial is one line naming the flag (and a file's line).
func TestInitialErrors(t *testing.T) {
	bad := writeLoads(t, "1\n2\nx3\n")
	short := writeLoads(t, "1\n2\n")
	for _, c := range []struct {
		process, initial string
		bins             uint64
		engine           core.Engine
		want             string
	}{
		{"one-choice", "file:" + bad, 3, "", "--initial file:" + bad + " line 3: \"x3\" is not a load"},
		{"one-choice", "file:" + short, 3, "", "2 loads for 3 bins"},
		{"one-choice", "file:" + filepath.Join(t.TempDir(), "none"), 3, "", "--initial file:"},
		{"one-choice", "uniform", 3, "", "give uniform:L"},
		{"one-choice", "spike:1x", 3, "", "--initial \"spike:1x\": want spike:L"},
		{"one-choice", "pile:3", 3, "", "want zero, uniform:L, spike:L or file:PATH"},
		{"one-choice", "spike:100000000", 3, core.EngineHistogram, "--engine histogram: --initial spike:100000000 spans"},
		{"idea", "spike:3", 3, "", "the vector engine"},
	} {
		_, err := core.NewSpec(c.process, map[string]string{"initial": c.initial}, core.Common{Bins: c.bins, Balls: 10, Trials: 1, Alpha: 1, Engine: c.engine})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--initial %s: error %v, want one line with %q", c.initial, err, c.want)
		}
	}
	// n from the file when --bins is absent.
	s := mustSpec(t, "one-choice", map[string]string{"initial": "file:" + short}, core.Common{Balls: 4})
	if s.Bins != 2 {
		t.Errorf("--initial file with 2 loads and no --bins: %d bins", s.Bins)
	}
}

// Recovery from a spike: two-choice from spike:L on n bins keeps the spike
// until the average reaches it (the gap falls as L − t/n), then the gap
// returns to two-choice's own, log log n + O(1); on both engines.
func TestInitialSpikeRecovery(t *testing.T) {
	const n, spike = 1000, 200
	for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
		s := mustSpec(t, "two-choice", map[string]string{"initial": fmt.Sprintf("spike:%d", spike)}, core.Common{Bins: n, Balls: 400 * n, Seed: 4, Checkpoints: 8, Engine: eng})
		r := RunTrial(s, 0, nil)
		for _, c := range r.Checkpoints[:3] { // t/n = 50, 100, 150
			want := spike - (float64(spike)+float64(c.Balls))/n
			if math.Abs(c.Gap-want) > 1e-9 {
				t.Errorf("%s: after %d balls the gap is %v, want the spike's %v", eng, c.Balls, c.Gap, want)
			}
		}
		if r.Gap > 4 {
			t.Errorf("%s: the gap after %d balls is %v: no recovery from the spike", eng, r.Balls, r.Gap)
		}
		t.Logf("%s: spike:%d on %d bins, gap at checkpoints %v", eng, spike, n, gapsOf(r.Checkpoints))
	}
}

func gapsOf(cs []result.Checkpoint) []float64 {
	var g []float64
	for _, c := range cs {
		g = append(g, math.Round(c.Gap*100)/100)
	}
	return g
}

// b-Batch from an initial vector: the first batch decides on the initial
// loads (kernels.Batch.Start), ball for ball against the literal rule, with
// batches both below n (pending list) and above it (whole copies).
func TestInitialBBatchBallForBall(t *testing.T) {
	const n, m = 8, 400
	for _, b := range []uint64{3, 20} {
		s := mustSpec(t, "b-batch", map[string]string{"batch": fmt.Sprint(b), "initial": "spike:6"}, core.Common{Bins: n, Balls: m, Seed: 8, KeepLoads: true})
		got := RunTrial(s, 0, nil).Loads
		loads := make([]uint64, n)
		loads[0] = 6
		frozen := slices.Clone(loads)
		r := kernels.TrialStream(8, 0, kernels.LaneChoices)
		for ball := uint64(0); ball < m; ball++ {
			if ball%b == 0 {
				copy(frozen, loads)
			}
			i, j := r.Bounded(n), r.Bounded(n)
			if frozen[j] < frozen[i] {
				i = j
			}
			loads[i]++
		}
		for i := range loads {
			if got[i] != float64(loads[i]) {
				t.Fatalf("b=%d: bin %d holds %v, the literal rule %d", b, i, got[i], loads[i])
			}
		}
	}
}

// Random weights from an initial vector: one-choice's bins do not depend on
// the loads and the weights come from their own stream, so each bin holds
// its initial load plus exactly what it holds from empty bins.
func TestInitialWeightedAddsToTheLoads(t *testing.T) {
	file := writeLoads(t, "4\n0\n9\n2\n1\n")
	for initial, want := range map[string][]uint64{"uniform:3": {3, 3, 3, 3, 3}, "spike:7": {7, 0, 0, 0, 0}, "file:" + file: {4, 0, 9, 2, 1}} {
		c := core.Common{Bins: 5, Balls: 300, Seed: 12, KeepLoads: true}
		from := mustSpec(t, "one-choice", map[string]string{"weights": "exp:1", "initial": initial}, c)
		zero := mustSpec(t, "one-choice", map[string]string{"weights": "exp:1"}, c)
		a, b := RunTrial(from, 0, nil), RunTrial(zero, 0, nil)
		start := make([]uint64, 5)
		w0 := 0.0
		for i := range start {
			start[i] = uint64(a.Loads[i] - b.Loads[i] + 0.5)
			w0 += float64(start[i])
			if start[i] != want[i] || math.Abs(a.Loads[i]-b.Loads[i]-float64(start[i])) > 1e-9 {
				t.Fatalf("--initial %s: bin %d holds %v from it and %v from empty bins", initial, i, a.Loads[i], b.Loads[i])
			}
		}
		if w0 != float64(from.InitialBalls()) || math.Abs(a.Average-b.Average-w0/5) > 1e-9 {
			t.Errorf("--initial %s: %v initial weight, average %v against %v from empty bins", initial, w0, a.Average, b.Average)
		}
	}
}

// thresholdLimitTransition is Threshold from --initial's W0 balls: the
// limit is the final average (W0 + m)/n + 1, w = W0 + m.
func thresholdLimitTransition(n, w int) transition { return retryExact(n, thresholdLimit(n, w)) }

// Two-thinning in batches from --initial: the first batch compares the
// initial loads, frozen, with (W0 + t₀)/n + θ — the literal rule, ball for
// ball (θ = 1/2, n = 8: a load passes when 8·load < W0 + t₀ + 4).
func TestInitialBatchedTwoThinningBallForBall(t *testing.T) {
	const n, m, w0 = 8, 400, 6
	for _, b := range []uint64{3, 20} {
		s := mustSpec(t, "two-thinning", map[string]string{"threshold": "0.5", "batch": fmt.Sprint(b), "initial": "spike:6"},
			core.Common{Bins: n, Balls: m, Seed: 9, KeepLoads: true})
		got := RunTrial(s, 0, nil).Loads
		loads := make([]uint64, n)
		loads[0] = w0
		frozen := slices.Clone(loads)
		r := kernels.TrialStream(9, 0, kernels.LaneChoices)
		var t0 uint64
		for ball := uint64(0); ball < m; ball++ {
			if ball%b == 0 {
				copy(frozen, loads)
				t0 = ball
			}
			i := r.Bounded(n)
			if 8*frozen[i] >= w0+t0+4 {
				i = r.Bounded(n)
			}
			loads[i]++
		}
		for i := range loads {
			if got[i] != float64(loads[i]) {
				t.Fatalf("b=%d: bin %d holds %v, the literal rule %d", b, i, got[i], loads[i])
			}
		}
	}
}

// A delayed process starts from --initial zero only (its record of past
// loads starts empty): one line naming --tau.
func TestInitialRefusedWithDelay(t *testing.T) {
	for _, c := range []struct {
		process string
		params  map[string]string
	}{
		{"d-choice", map[string]string{"d": "3", "tau": "4"}},
		{"one-plus-beta", map[string]string{"beta": "0.5", "tau": "4"}},
		{"quantile", map[string]string{"delta": "0.5", "tau": "4"}},
		{"two-thinning", map[string]string{"threshold": "1", "tau": "4"}},
	} {
		c.params["initial"] = "spike:3"
		_, err := core.NewSpec(c.process, c.params, core.Common{Bins: 4, Balls: 10, Trials: 1, Alpha: 1})
		if err == nil || !strings.Contains(err.Error(), "--tau") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s --tau 4 --initial spike:3: error %v, want one line naming --tau", c.process, err)
		}
	}
}

// Twinning and packing from --initial: W, the balls before a step, counts
// the initial ones — the literal rules, ball for ball on the direct engine,
// and on a sorted vector sampled by rank for the histogram engine.
func TestInitialTwinningPackingBallForBall(t *testing.T) {
	const n, m, w0 = 8, 300, 24
	for _, name := range []string{"twinning", "packing"} {
		loads := make([]uint64, n)
		loads[0] = w0
		r := kernels.TrialStream(10, 0, kernels.LaneChoices)
		w := uint64(w0)
		for placed := uint64(0); placed < m; {
			i := r.Bounded(n)
			a := uint64(1)
			if n*loads[i] < w { // load < W/n
				a = 2
				if name == "packing" {
					a = (w+n-1)/n + 1 - loads[i] // up to ⌈W/n⌉ + 1
				}
			}
			a = min(a, m-placed) // the last step cut to fit
			loads[i] += a
			placed += a
			w += a
		}
		// The histogram engine samples a rank of the sorted loads: the same
		// rule on a sorted vector, the sampled level's last bin taking the balls.
		want := make([]uint64, n)
		want[n-1] = w0
		r = kernels.TrialStream(10, 0, kernels.LaneChoices)
		w = w0
		for placed := uint64(0); placed < m; {
			x := r.Bounded(n)
			for x+1 < n && want[x+1] == want[x] {
				x++
			}
			a := uint64(1)
			if n*want[x] < w {
				a = 2
				if name == "packing" {
					a = (w+n-1)/n + 1 - want[x]
				}
			}
			a = min(a, m-placed)
			want[x] += a
			slices.Sort(want)
			placed += a
			w += a
		}
		for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			s := mustSpec(t, name, map[string]string{"initial": "spike:24"}, core.Common{Bins: n, Balls: m, Seed: 10, Engine: eng, KeepLoads: eng == core.EngineDirect})
			r := RunTrial(s, 0, nil)
			var got []uint64
			if r.Loads != nil {
				for i, x := range r.Loads {
					if uint64(x) != loads[i] {
						t.Fatalf("%s direct: bin %d holds %v, the literal rule %d", name, i, x, loads[i])
					}
				}
				continue
			}
			for _, l := range r.Histogram {
				for range l.Count {
					got = append(got, uint64(l.Load))
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s histogram: sorted loads %v, the literal rule %v", name, got, want)
			}
		}
	}
}

// Memory from --initial on the histogram engine against the exact chain of
// loads and cache started there (the first cache K distinct uniform bins,
// their loads the start's). The direct loop breaks ties by position, which
// is the law of random ties only for exchangeable bins: from [3, 1, 0] it
// is refused with --engine direct and auto runs the histogram engine; from
// uniform:1 it runs and follows the law.
func TestInitialMemoryMatchesExactLaw(t *testing.T) {
	trials := lawTrials(30000)
	path := writeLoads(t, "3\n1\n0\n")
	if _, err := core.NewSpec("memory", map[string]string{"initial": "file:" + path}, core.Common{Bins: 3, Balls: 4, Trials: 1, Alpha: 1, Engine: core.EngineDirect}); err == nil || !strings.Contains(err.Error(), "by position") {
		t.Errorf("memory --engine direct from [3 1 0]: %v, want a refusal naming the ties", err)
	}
	if s := mustSpec(t, "memory", map[string]string{"initial": "file:" + path}, core.Common{Bins: 3, Balls: 4}); s.ResolvedEngine() != core.EngineHistogram {
		t.Errorf("memory --engine auto from [3 1 0]: engine %s, want histogram", s.ResolvedEngine())
	}
	for _, c := range []struct{ d, k int }{{1, 1}, {1, 2}} {
		law := memoryExactFrom([]int{3, 1, 0}, 4, c.d, c.k, extremeK(true), false)
		t.Run(fmt.Sprintf("d=%d,k=%d/histogram", c.d, c.k), func(t *testing.T) {
			s := mustSpec(t, "memory", map[string]string{"d": fmt.Sprint(c.d), "k": fmt.Sprint(c.k), "initial": "file:" + path},
				core.Common{Bins: 3, Balls: 4, Trials: trials, Seed: 11, Engine: core.EngineHistogram})
			obs := tally(t, s, trials)
			if stat, limit, df := stattest.Law(sortedLaw(law), obs, trials); stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f", stat, df, limit)
			}
		})
		uni := memoryExactFrom([]int{1, 1, 1}, 4, c.d, c.k, extremeK(true), false)
		t.Run(fmt.Sprintf("d=%d,k=%d/direct/uniform:1", c.d, c.k), func(t *testing.T) {
			s := mustSpec(t, "memory", map[string]string{"d": fmt.Sprint(c.d), "k": fmt.Sprint(c.k), "initial": "uniform:1"},
				core.Common{Bins: 3, Balls: 4, Trials: trials, Seed: 12, Engine: core.EngineDirect, KeepLoads: true})
			obs := tally(t, s, trials)
			if stat, limit, df := stattest.Law(uni, obs, trials); stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f", stat, df, limit)
			}
		})
	}
}

// The law test has power from the start: the chain of a cache that keeps
// the most loaded is refused. (The histogram cache left at load 0, as
// before it read the start, fails TestInitialMemoryMatchesExactLaw at
// χ² = 6822 on 8 df, limit 31.8.)
func TestInitialMemoryExactLawHasPower(t *testing.T) {
	trials := lawTrials(30000)
	path := writeLoads(t, "3\n1\n0\n")
	wrong := memoryExactFrom([]int{3, 1, 0}, 4, 1, 1, extremeK(false), false)
	s := mustSpec(t, "memory", map[string]string{"initial": "file:" + path}, core.Common{Bins: 3, Balls: 4, Trials: trials, Seed: 11, Engine: core.EngineHistogram})
	if stat, limit, _ := stattest.Law(sortedLaw(wrong), tally(t, s, trials), trials); stat <= limit {
		t.Errorf("a cache keeping the most loaded passes: χ² = %.1f ≤ %.1f", stat, limit)
	}
}

// The sampling options from --initial: quantile with --distinct ranks the
// start (kernels.StartQuantile on its counts), and d-choice with --ties
// index in batches freezes it for the first batch — against the exact law
// of the process started there, and the literal rule ball for ball.
func TestInitialSamplingOptions(t *testing.T) {
	trials := lawTrials(30000)
	// --distinct: the second sample is another bin than the first.
	distinctQuantile := func(n int) transition {
		return func(loads []int, _ int) []float64 {
			p := make([]float64, n)
			sorted := slices.Clone(loads)
			slices.Sort(sorted)
			k := (n + 1) / 2 // ⌈n/2⌉ heaviest, δ = ½
			bound := sorted[n-k]
			above, at := 0, 0
			for _, v := range loads {
				if v > bound {
					above++
				} else if v == bound {
					at++
				}
			}
			for i, v := range loads {
				heavy := 0.0
				switch {
				case v > bound:
					heavy = 1
				case v == bound:
					heavy = float64(k-above) / float64(at)
				}
				p[i] += (1 - heavy) / float64(n)
				for j := range loads {
					if j != i {
						p[j] += heavy / float64(n) / float64(n-1)
					}
				}
			}
			return p
		}
	}
	law := exactLawFrom([]int{3, 0, 0, 0}, 4, distinctQuantile(4))
	s := mustSpec(t, "quantile", map[string]string{"delta": "0.5", "distinct": "true", "initial": "spike:3"},
		core.Common{Bins: 4, Balls: 4, Trials: trials, Seed: 13, Engine: core.EngineDirect, KeepLoads: true})
	if stat, limit, df := stattest.Law(law, tally(t, s, trials), trials); stat > limit {
		t.Errorf("quantile --distinct from spike:3: χ² = %.1f on %d df exceeds %.1f", stat, df, limit)
	}
	// --ties index in batches: the batch's balls compare the frozen start.
	const n, m, b = 6, 300, 3 // b < n: the frozen loads follow the batches' bins
	s = mustSpec(t, "d-choice", map[string]string{"d": "2", "batch": fmt.Sprint(b), "ties": "index", "initial": "spike:5"},
		core.Common{Bins: n, Balls: m, Seed: 14, KeepLoads: true})
	got := RunTrial(s, 0, nil).Loads
	loads := make([]uint64, n)
	loads[0] = 5
	frozen := slices.Clone(loads)
	r := kernels.TrialStream(14, 0, kernels.LaneChoices)
	for ball := uint64(0); ball < m; ball++ {
		if ball%b == 0 {
			copy(frozen, loads)
		}
		i, j := r.Bounded(n), r.Bounded(n)
		if frozen[j] < frozen[i] || (frozen[j] == frozen[i] && j < i) {
			i = j
		}
		loads[i]++
	}
	for i := range loads {
		if got[i] != float64(loads[i]) {
			t.Fatalf("--ties index --batch %d: bin %d holds %v, the literal rule %d", b, i, got[i], loads[i])
		}
	}
}

// The deletions model starts from empty bins: --initial beside
// --delete-prob is one line naming --initial. The supermarket model takes
// it (supermarket_initial_test.go).
func TestInitialRefusedWhenBallsLeave(t *testing.T) {
	for _, c := range []struct {
		dyn   core.Dynamic
		balls uint64
		ok    bool
	}{{core.Dynamic{ArrivalRate: 0.5, Events: 100}, 0, true}, {core.Dynamic{DeleteProb: 0.3, Delete: "ball"}, 10, false}} {
		dyn := c.dyn
		_, err := core.NewSpec("two-choice", map[string]string{"initial": "spike:3"}, core.Common{Bins: 4, Balls: c.balls, Trials: 1, Alpha: 1, Dynamic: dyn})
		switch {
		case c.ok && err != nil:
			t.Errorf("%+v with --initial spike:3: %v, want it taken", dyn, err)
		case !c.ok && (err == nil || !strings.Contains(err.Error(), "--initial spike:3") || strings.Contains(err.Error(), "\n")):
			t.Errorf("%+v with --initial spike:3: %v, want one line naming --initial", dyn, err)
		}
	}
}
