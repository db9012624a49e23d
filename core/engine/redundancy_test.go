package engine

import (
	"math"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/theory"
)

// Redundancy-d with d = 1 is random routing to M/M/1 queues: the
// one-choice supermarket run on the direct engine, draw for draw (the same
// arrival coin and one Bounded(n) a job).
func TestRedundancyOneIsOneChoice(t *testing.T) {
	dyn := core.Dynamic{ArrivalRate: 0.8, Events: 300000, Warmup: 20}
	c := core.Common{Bins: 200, Seed: 9, Engine: core.EngineDirect, KeepLoads: true, Dynamic: dyn}
	red := RunTrial(mustSpec(t, "redundancy", map[string]string{"d": "1"}, c), 2, nil)
	one := RunTrial(mustSpec(t, "one-choice", nil, c), 2, nil)
	for i := range one.Loads {
		if red.Loads[i] != one.Loads[i] {
			t.Fatalf("bin %d: %v copies, one-choice %v balls", i, red.Loads[i], one.Loads[i])
		}
	}
	if red.Dynamic.MeanQueue != one.Dynamic.MeanQueue {
		t.Fatalf("mean queue %v, one-choice %v", red.Dynamic.MeanQueue, one.Dynamic.MeanQueue)
	}
	x := red.Redundancy()
	if x == nil || x.MeanJobs != red.Dynamic.MeanQueue || x.Cancelled != 0 || math.Abs(x.Predicted-1/(1-0.8)) > 1e-12 {
		t.Fatalf("the redundancy block at d = 1: %+v", x)
	}
}

// Redundancy-2's mean response time at n = 1000 against the paper's
// large-system E[T] = −ln(1 − λ)/λ² − 1/λ, within 4 standard errors (batch
// means over the trials, plus 1% for the O(1/n) finite-system bias); and
// d = 3's prediction is more than 8 standard errors away, so the test
// tells the copies apart.
func TestRedundancyResponseMatchesPaper(t *testing.T) {
	time, trials := 2000.0, 4
	if testing.Short() {
		time, trials = 400, 2
	}
	for _, lambda := range []float64{0.5, 0.8} {
		dyn := core.Dynamic{ArrivalRate: lambda, Time: time, Warmup: 40}
		s := mustSpec(t, "redundancy", map[string]string{"d": "2"}, core.Common{Bins: 1000, Seed: 4, Trials: trials, Dynamic: dyn})
		mean, ss := 0.0, 0.0
		for k := range trials {
			x := RunTrial(s, uint64(k), nil).Redundancy()
			mean += x.Response / float64(trials)
			ss += x.ResponseSE * x.ResponseSE
		}
		se := math.Sqrt(ss) / float64(trials)
		want := theory.RedundancyResponse(lambda, 2)
		if math.Abs(mean-want) > 4*se+0.01*want {
			t.Errorf("λ = %g: E[T] %.4f ± %.4f simulated, %.4f predicted", lambda, mean, se, want)
		}
		if three := theory.RedundancyResponse(lambda, 3); math.Abs(mean-three) < 8*se+0.01*want {
			t.Errorf("λ = %g: d = 3's %.4f is within reach of d = 2's %.4f ± %.4f: the test cannot tell d", lambda, three, mean, se)
		}
		t.Logf("λ = %g: E[T] %.4f ± %.4f simulated, %.4f predicted (d = 3: %.4f)", lambda, mean, se, want, theory.RedundancyResponse(lambda, 3))
	}
}
