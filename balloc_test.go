package balloc_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/balloc/balloc"
)

// run is NewSpec and RunParallel, failing the test on an error.
func run(t *testing.T, c balloc.Config, workers int) []balloc.Result {
	t.Helper()
	spec, err := balloc.NewSpec(c)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := spec.RunParallel(context.Background(), workers)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// oneChoice is one-choice written as its definition: one uniform bin.
func oneChoice(_ int, _ uint64, loads []uint32, r *balloc.Rand) int { return r.Intn(len(loads)) }

// twoChoice is two-choice (Azar, Broder, Karlin, Upfal, "Balanced
// Allocations", 1999) written by a user: two uniform bins, the ball to the
// strictly lighter, ties to the first; tiesToSecond sends ties to the
// second instead.
type twoChoice struct{ tiesToSecond bool }

func (c twoChoice) NewTrial(int) balloc.TrialRule { return c }

func (c twoChoice) Choose(_ uint64, loads []uint32, r *balloc.Rand) int {
	i, j := r.Intn(len(loads)), r.Intn(len(loads))
	if loads[j] < loads[i] || c.tiesToSecond && loads[j] == loads[i] {
		return j
	}
	return i
}

// A Rule that draws as a built-in process draws gives that process's
// trials, ball for ball: the rule's loop (the slow obvious one) against
// the process's kernel, with checkpoints, potentials and max_gap; a rule
// that breaks ties the other way is told apart.
func TestRuleIsTheBuiltIn(t *testing.T) {
	base := balloc.Config{Bins: 1000, Balls: 100000, Trials: 3, Seed: 12, Checkpoints: 6, LogCheckpoints: true, Alpha: 0.3, Engine: balloc.EngineDirect}
	for _, c := range []struct {
		process string
		rule    balloc.Rule
		same    bool
	}{
		{"one-choice", balloc.RuleFunc(oneChoice), true},
		{"two-choice", twoChoice{}, true},
		{"two-choice", twoChoice{tiesToSecond: true}, false},
	} {
		builtIn, own := base, base
		builtIn.Process, own.Rule = c.process, c.rule
		want, got := run(t, builtIn, 1), run(t, own, 2)
		if same := reflect.DeepEqual(got, want); same != c.same {
			t.Errorf("rule %#v vs %s: equal %v, want %v\nrule:     %+v\nbuilt-in: %+v", c.rule, c.process, same, c.same, got[0], want[0])
		}
	}
}

// Errors name the Config field or the parameter at fault, with its value
// as given, never a command-line flag.
func TestErrorsInGoTerms(t *testing.T) {
	for _, c := range []struct {
		cfg  balloc.Config
		want string // the whole message, or its start when it ends in …
	}{
		{balloc.Config{Process: "d-choice", Params: balloc.Params{"d": 0}, Bins: 10, Balls: 10},
			"balloc: parameter d = 0: want an integer in [1, min(bins, 1048576)]"},
		{balloc.Config{Process: "d-choice", Params: balloc.Params{"d": 2.5}, Bins: 10, Balls: 10},
			"balloc: parameter d = 2.5: want an integer in …"},
		{balloc.Config{Process: "d-choice", Params: balloc.Params{"d": true}, Bins: 10, Balls: 10},
			"balloc: parameter d = true: want a number or a string, not a bool"},
		{balloc.Config{Process: "d-choice", Params: balloc.Params{"d": []int{2, 3}}, Bins: 10, Balls: 10},
			"balloc: parameter d = []int{2, 3}: want a number, a string or a bool, not []int (a list is one Spec per value)"},
		{balloc.Config{Process: "d-choice", Params: balloc.Params{"beta": 0.5}, Bins: 10, Balls: 10},
			"balloc: parameter beta does not apply to d-choice …"},
		{balloc.Config{Process: "d-choice", Params: balloc.Params{"nope": 1}, Bins: 10, Balls: 10},
			`balloc: parameter "nope": no process takes it …`},
		{balloc.Config{Process: "one-plus-beta", Bins: 10, Balls: 10},
			"balloc: one-plus-beta needs parameter beta: a probability in [0, 1]"},
		{balloc.Config{Process: "one-plus-beta", Params: balloc.Params{"beta": 1.5}, Bins: 10, Balls: 10},
			"balloc: parameter beta = 1.5: want a probability in [0, 1]"},
		{balloc.Config{Process: "two-choice", Params: balloc.Params{"weights": "exp"}, Bins: 10, Balls: 10},
			`balloc: parameter weights = "exp": want unit, …`},
		{balloc.Config{Process: "two-choice", Bins: 10, Balls: 10, Checkpoints: 11},
			"balloc: Checkpoints = 11: want at most Balls (10), one checkpoint per ball at most"},
		{balloc.Config{Process: "two-choice", Bins: 10, Balls: 10, Trials: -1}, "balloc: Trials = -1: …"},
		{balloc.Config{Process: "two-choice", Bins: 10, Balls: 10, Engine: "fast"}, `balloc: Engine = "fast": …`},
		{balloc.Config{Process: "two-choice", Bins: 10, Balls: 10, Initial: "spike:x"}, `balloc: Initial = "spike:x": …`},
		{balloc.Config{Process: "two-choice", Bins: 10, Supermarket: &balloc.Supermarket{ArrivalRate: 0.5}},
			"balloc: Supermarket.Time is required with Supermarket.ArrivalRate (or Supermarket.Events E)"},
		{balloc.Config{Process: "two-choice", Bins: 10, Supermarket: &balloc.Supermarket{ArrivalRate: 1.5, Time: 1}},
			"balloc: Supermarket.ArrivalRate = 1.5: …"},
		{balloc.Config{Process: "threshold", Bins: 10, Balls: 10, Theory: true}, "balloc: Theory: no fluid limit for threshold"},
		{balloc.Config{Bins: 10, Balls: 10}, "balloc: Config has neither Process nor Rule; …"},
		{balloc.Config{Rule: twoChoice{}, Process: "two-choice", Bins: 10, Balls: 10}, "balloc: Config sets both Rule and Process …"},
		{balloc.Config{Rule: twoChoice{}, Bins: 10, Balls: 1 << 32}, "balloc: Balls = 4294967296: …"},
	} {
		_, err := balloc.NewSpec(c.cfg)
		if err == nil {
			t.Errorf("%+v: no error, want %q", c.cfg, c.want)
			continue
		}
		got := err.Error()
		ok := got == c.want
		if head, cut := strings.CutSuffix(c.want, "…"); cut {
			ok = strings.HasPrefix(got, head)
		}
		if !ok || strings.Contains(got, "--") {
			t.Errorf("%+v:\n got %q\nwant %q (and no flag)", c.cfg, got, c.want)
		}
	}
}

// A Rule that chooses a bin out of range fails its trial with an error,
// not a panic.
func TestRuleOutOfRange(t *testing.T) {
	spec, err := balloc.NewSpec(balloc.Config{Rule: balloc.RuleFunc(func(int, uint64, []uint32, *balloc.Rand) int { return 7 }), Bins: 5, Balls: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spec.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "chose bin 7 of 5 for ball 0 of trial 0") {
		t.Errorf("error %v, want one naming bin 7, ball 0, trial 0", err)
	}
}

// A cancelled run returns ctx.Err() within one chunk of balls: the
// progress callback cancels at its first call and is never called again,
// having seen a small part of a run far too long to finish, on each engine,
// with balls that leave, and for a Rule.
func TestCancelStopsWithinAChunk(t *testing.T) {
	for _, c := range []balloc.Config{
		{Process: "two-choice", Bins: 1000, Balls: 1 << 40, Engine: balloc.EngineDirect},
		{Process: "two-choice", Bins: 1e6, Balls: 1 << 50, Engine: balloc.EngineHistogram},
		{Process: "one-plus-beta", Params: balloc.Params{"beta": 0.5}, Bins: 1 << 40, Balls: 1 << 60, Engine: balloc.EngineHistogram},
		{Process: "two-choice", Bins: 1000, Supermarket: &balloc.Supermarket{ArrivalRate: 0.9, Events: 1 << 60}},
		{Process: "two-choice", Bins: 1000, Balls: 1 << 60, Deletions: &balloc.Deletions{Prob: 0.3}},
		{Rule: twoChoice{}, Bins: 1000, Balls: math.MaxUint32 - 1},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		calls, seen := 0, uint64(0)
		c.Progress = func(_ int, balls uint64) {
			if calls, seen = calls+1, balls; calls > 3 {
				panic(fmt.Sprintf("%s %v: still running after cancellation", c.Process, c.Engine)) // not a hang
			}
			cancel()
		}
		c.Trials = 3
		spec, err := balloc.NewSpec(c)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := spec.Run(ctx)
		if !errors.Is(err, context.Canceled) || len(rs) != 0 || calls != 1 || seen >= spec.Balls()/1000 {
			t.Errorf("%s %v: cancelled at the first progress call: error %v, %d results, %d calls, %d of %d balls seen; want context.Canceled, none, 1 call, under a thousandth",
				c.Process, c.Engine, err, len(rs), calls, seen, spec.Balls())
		}
		cancel()
	}
}

// A context done before the run starts stops it before any ball.
func TestCancelBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []balloc.Config{
		{Process: "two-choice", Bins: 1000, Balls: 1e6, Trials: 4},
		{Rule: twoChoice{}, Bins: 1000, Balls: 1e6, Trials: 4},
	} {
		c.Progress = func(int, uint64) { t.Errorf("%s: progress called after cancellation", c.Process) }
		spec, err := balloc.NewSpec(c)
		if err != nil {
			t.Fatal(err)
		}
		if rs, err := spec.RunParallel(ctx, 2); !errors.Is(err, context.Canceled) || len(rs) != 0 {
			t.Errorf("%s: %d results, error %v; want none and context.Canceled", c.Process, len(rs), err)
		}
		if _, err := spec.Trial(ctx, 0); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Trial: error %v, want context.Canceled", c.Process, err)
		}
	}
}

// Cancelling a parallel run in its third trial keeps the trials finished
// before, in order, and runs no more than the workers hold.
func TestCancelledRunKeepsOrderedTrialsBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	started := map[int]bool{}
	spec, err := balloc.NewSpec(balloc.Config{Process: "two-choice", Bins: 1000, Balls: 1 << 24, Trials: 20, Seed: 3,
		Progress: func(trial int, balls uint64) {
			mu.Lock()
			defer mu.Unlock()
			started[trial] = true
			if trial == 2 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := spec.RunParallel(ctx, 2)
	if !errors.Is(err, context.Canceled) || len(rs) > 2 {
		t.Fatalf("%d results, error %v; want at most trials 0 and 1, and context.Canceled", len(rs), err)
	}
	for k, r := range rs {
		if r.Trial != k {
			t.Errorf("result %d is trial %d", k, r.Trial)
		}
	}
	if len(started) > 5 {
		t.Errorf("%d trials started after the third was cancelled with 2 workers", len(started))
	}
}

// Progress reports every ball of every trial, its count rising to Balls.
func TestProgressCountsEveryBall(t *testing.T) {
	for _, c := range []balloc.Config{
		{Process: "two-choice", Bins: 1000, Balls: 9e6 + 3, Trials: 3, Checkpoints: 3},
		{Process: "one-plus-beta", Params: balloc.Params{"beta": 0.5}, Bins: 1000, Balls: 1e6, Trials: 3, Engine: balloc.EngineHistogram},
		{Rule: twoChoice{}, Bins: 1000, Balls: 1e5 + 7, Trials: 3, Checkpoints: 5, LogCheckpoints: true},
	} {
		var mu sync.Mutex
		last := map[int]uint64{}
		c.Progress = func(trial int, balls uint64) {
			mu.Lock()
			defer mu.Unlock()
			if balls <= last[trial] {
				t.Errorf("%s trial %d: progress %d after %d", c.Process, trial, balls, last[trial])
			}
			last[trial] = balls
		}
		run(t, c, 2)
		for k := range c.Trials {
			if last[k] != c.Balls {
				t.Errorf("%s trial %d: progress reached %d of %d balls", c.Process, k, last[k], c.Balls)
			}
		}
	}
}

// memoryRule is the memory process of Mitzenmacher, Prabhakar and Shah
// ("Load Balancing with Memory", FOCS 2002), d = k = 1, as a user writes
// it: one uniform bin against the bin remembered from the last ball, the
// ball to the lighter (ties to the sample), the lighter remembered. The
// remembered bin is per-trial state. Each trial's state checks that it
// sees its own trial's balls only, numbered 0, 1, … in order.
type memoryRule struct {
	mu    sync.Mutex
	made  map[int]int // NewTrial calls per trial
	wrong []string    // what a trial's state saw that was not its own
}

type memoryTrial struct {
	rule   *memoryRule
	trial  int
	next   uint64 // the ball number expected
	cached int    // -1 before the first ball
}

func (m *memoryRule) NewTrial(trial int) balloc.TrialRule {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.made[trial]++
	return &memoryTrial{rule: m, trial: trial, cached: -1}
}

func (t *memoryTrial) Choose(ball uint64, loads []uint32, r *balloc.Rand) int {
	if ball != t.next {
		t.rule.mu.Lock()
		t.rule.wrong = append(t.rule.wrong, fmt.Sprintf("trial %d's state got ball %d, want %d", t.trial, ball, t.next))
		t.rule.mu.Unlock()
	}
	t.next = ball + 1
	i := r.Intn(len(loads))
	if t.cached >= 0 && loads[t.cached] < loads[i] {
		i = t.cached
	}
	t.cached = i
	return i
}

// A Rule's per-trial state is its trial's alone (one NewTrial a trial,
// balls in order), and the results do not depend on the workers.
func TestRuleStateForAnyWorkers(t *testing.T) {
	var first []balloc.Result
	for _, workers := range []int{1, 3, 8} {
		rule := &memoryRule{made: map[int]int{}}
		rs := run(t, balloc.Config{Rule: rule, Bins: 500, Balls: 20000, Trials: 8, Seed: 4, Checkpoints: 4}, workers)
		for k := range 8 {
			if rule.made[k] != 1 {
				t.Errorf("%d workers: trial %d made %d states, want 1", workers, k, rule.made[k])
			}
		}
		if len(rule.made) != 8 || len(rule.wrong) > 0 {
			t.Errorf("%d workers: states for trials %v; %v", workers, rule.made, rule.wrong)
		}
		if first == nil {
			first = rs
		} else if !reflect.DeepEqual(rs, first) {
			t.Errorf("%d workers: results differ from 1 worker's", workers)
		}
	}
	// The memory rule is not one-choice: its remembered bin keeps the gap
	// far lower (the check that the state is used at all).
	one := run(t, balloc.Config{Rule: balloc.RuleFunc(oneChoice), Bins: 500, Balls: 20000, Trials: 8, Seed: 4}, 2)
	for k := range 8 {
		if first[k].Gap >= one[k].Gap {
			t.Errorf("trial %d: memory's gap %g, one-choice's %g; want memory's lower", k, first[k].Gap, one[k].Gap)
		}
	}
}

// Spec.Fluid is the process's fluid limit: one-choice's at m/n = c is
// Poisson(c), P(load ≥ i) = 1 − Σ_{j<i} e^{−c} c^j/j!.
func TestFluidOneChoiceIsPoisson(t *testing.T) {
	spec, err := balloc.NewSpec(balloc.Config{Process: "one-choice", Bins: 1000, Balls: 2000})
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.Fluid()
	if err != nil {
		t.Fatal(err)
	}
	cdf, term := 0.0, math.Exp(-2)
	for i := range 8 {
		if got, want := p.AtLeast(i), 1-cdf; math.Abs(got-want) > 1e-6 {
			t.Errorf("P(load ≥ %d) = %.8f, want %.8f", i, got, want)
		}
		cdf += term
		term *= 2 / float64(i+1)
	}
	for _, c := range []balloc.Config{
		{Process: "one-choice", Bins: 10, Balls: 10, Deletions: &balloc.Deletions{Prob: 0.2}},
		{Rule: twoChoice{}, Bins: 10, Balls: 10},
	} {
		spec, err := balloc.NewSpec(c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := spec.Fluid(); err == nil {
			t.Errorf("%+v: a fluid limit, want none", c)
		}
	}
}

// Processes lists the catalogue with each process's parameters, defaults
// and engines, and a listed parameter runs.
func TestProcessesListsTheCatalogue(t *testing.T) {
	ps := balloc.Processes()
	names := map[string]balloc.Process{}
	for _, p := range ps {
		names[p.Name] = p
	}
	for _, want := range []string{"one-choice", "two-choice", "d-choice", "one-plus-beta", "memory", "rbb"} {
		if _, ok := names[want]; !ok {
			t.Errorf("Processes lacks %s", want)
		}
	}
	dc := names["d-choice"]
	if !dc.Histogram || !dc.Fluid || !slices.ContainsFunc(dc.Params, func(p balloc.Param) bool { return p.Name == "d" && p.Default == "2" }) {
		t.Errorf("d-choice: %+v; want the histogram engine, a fluid limit and d (default 2)", dc)
	}
	if _, err := balloc.NewSpec(balloc.Config{Process: "d-choice", Params: balloc.Params{"d": 3}, Bins: 10, Balls: 10}); err != nil {
		t.Error(err)
	}
}

// A panic of the user's Progress is the user's: it reaches the caller as
// it was raised, not mistaken for a cancellation.
func TestProgressPanicPropagates(t *testing.T) {
	spec, err := balloc.NewSpec(balloc.Config{Process: "two-choice", Bins: 100, Balls: 1000,
		Progress: func(int, uint64) { panic("the user's") }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer func() {
		if r := recover(); r != "the user's" {
			t.Errorf("recovered %v, want the user's panic", r)
		}
	}()
	spec.Trial(ctx, 0)
	t.Error("Trial returned after its progress callback panicked")
}

// A Spec says what it will run: its trials, bins and balls, the engine
// auto resolved with why, and its parameters with defaults; a Rule runs on
// its own loop (reported as direct, no reason, no parameters). Top is the
// highest load the fluid limit predicts.
func TestSpecSaysWhatItRuns(t *testing.T) {
	spec, err := balloc.NewSpec(balloc.Config{Process: "one-plus-beta", Params: balloc.Params{"beta": 0.5}, Bins: 100, Balls: 1000, Trials: 3})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Trials() != 3 || spec.Bins() != 100 || spec.Balls() != 1000 {
		t.Errorf("trials %d bins %d balls %d, want 3 100 1000", spec.Trials(), spec.Bins(), spec.Balls())
	}
	if spec.Engine() != balloc.EngineDirect || !strings.Contains(spec.EngineReason(), "est.") {
		t.Errorf("engine %q (%q), want direct with the cost model's estimates", spec.Engine(), spec.EngineReason())
	}
	if got := spec.Params(); !reflect.DeepEqual(got, map[string]any{"beta": 0.5}) {
		t.Errorf("params %v, want beta 0.5", got)
	}
	p, err := spec.Fluid()
	if err != nil {
		t.Fatal(err)
	}
	if top := p.Top(); top < 11 || p.AtLeast(top) <= 0 || p.AtLeast(top+1) > 0 {
		t.Errorf("Top %d: P(≥ top) = %g, P(≥ top+1) = %g; want the highest load with a positive prediction, past m/n", top, p.AtLeast(top), p.AtLeast(top+1))
	}
	rule, err := balloc.NewSpec(balloc.Config{Rule: twoChoice{}, Bins: 10, Balls: 10})
	if err != nil {
		t.Fatal(err)
	}
	if rule.Engine() != balloc.EngineDirect || rule.EngineReason() != "" || rule.Params() != nil || rule.Trials() != 1 {
		t.Errorf("a Rule: engine %q (%q), params %v, trials %d", rule.Engine(), rule.EngineReason(), rule.Params(), rule.Trials())
	}
}
