package engine

import (
	"math"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/kernels"
)

// arcs is the fraction of the ring each bin owns (v = 1): node j takes the
// points after node j − 1 up to its own, node 0 those after the last.
func arcs(seed, trial uint64, n uint32) []float64 {
	st := kernels.TrialStream(seed, trial, kernels.LaneStructure)
	pos, bin := kernels.NewRing(&st, n, 1).Nodes()
	a := make([]float64, n)
	for j := range pos {
		prev := pos[(j+len(pos)-1)%len(pos)]
		a[bin[j]] = float64(pos[j]-prev) / math.Exp2(64) // wraps past 2^64 for node 0
	}
	return a
}

// bounded-hashing in the supermarket model with a capacity that never
// binds (c = 12 on 3 bins: ⌈4P⌉ > P − 1 jobs) is consistent hashing: bin j
// receives the jobs landing on its arc a_j, a Poisson stream of rate
// 3λ·a_j, and is an M/M/1 queue with ρ_j = 3λa_j, whose time-averaged
// queue is ρ_j/(1 − ρ_j). Over 6 rings (trials), the simulated jobs per
// bin against (1/3)Σ ρ_j/(1 − ρ_j) of each trial's own arcs: within 4
// standard errors (batch means), while the prediction of equal arcs
// (every ρ = λ) is more than 6 away — the test sees the ring.
func TestBoundedHashingSupermarketIsConsistentHashing(t *testing.T) {
	const n, lambda, trials = 3, 0.25, 6
	time := 40000.0
	if testing.Short() {
		time = 10000
	}
	dyn := core.Dynamic{ArrivalRate: lambda, Time: time, Warmup: 50}
	s := mustSpec(t, "bounded-hashing", map[string]string{"c": "12"}, core.Common{Bins: n, Seed: 6, Trials: trials, Dynamic: dyn})
	var diff, wrong, vars float64
	for k := range uint64(trials) {
		r := RunTrial(s, k, nil)
		want := 0.0
		for _, a := range arcs(6, k, n) {
			rho := n * lambda * a
			want += rho / (1 - rho) / n
		}
		diff += r.Dynamic.MeanQueue - want
		wrong += r.Dynamic.MeanQueue - lambda/(1-lambda)
		vars += r.Dynamic.MeanQueueSE * r.Dynamic.MeanQueueSE
		if p := r.Probes(); p == nil || p.Mean < 1 || p.Max < 1 {
			t.Fatalf("trial %d: probes %+v", k, p)
		}
	}
	se := math.Sqrt(vars)
	t.Logf("Σ(sim − pred) = %.4f ± %.4f; against equal arcs %.4f", diff, se, wrong)
	if math.Abs(diff) > 4*se {
		t.Errorf("mean queue off its arcs' M/M/1 prediction by %.2f standard errors", diff/se)
	}
	if math.Abs(wrong) < 6*se {
		t.Errorf("equal arcs' prediction only %.2f standard errors away: the test cannot see the ring", wrong/se)
	}
}

// What bounded-hashing refuses when balls leave, each in one line.
func TestBoundedHashingSupermarketRefusals(t *testing.T) {
	for _, tc := range []struct {
		c    core.Common
		with map[string]string
		want string
	}{
		{core.Common{Bins: 100, Balls: 1000, Dynamic: core.Dynamic{DeleteProb: 0.4}}, nil, "supermarket model only"},
		{core.Common{Bins: 100, Engine: core.EngineHistogram, Dynamic: core.Dynamic{ArrivalRate: 0.9, Time: 10}}, nil, "--engine histogram"},
		{core.Common{Bins: 100, Dynamic: core.Dynamic{ArrivalRate: 0.9, Time: 10, UpdatePeriod: 1}}, nil, "stale loads"},
		{core.Common{Bins: 100, Dynamic: core.Dynamic{ArrivalRate: 0.9, Time: 10}}, map[string]string{"initial": "fixed-point"}, "no fixed point"},
	} {
		params := map[string]string{"c": "1.25"}
		for k, v := range tc.with {
			params[k] = v
		}
		tc.c.Alpha, tc.c.Trials = 1, 1
		_, err := core.NewSpec("bounded-hashing", params, tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v %v: %v, want one line with %q", tc.c.Dynamic, tc.with, err, tc.want)
		}
	}
	dyn := core.Dynamic{ArrivalRate: 0.9, Time: 10}
	s := mustSpec(t, "bounded-hashing", map[string]string{"c": "1.25", "initial": "spike:40"}, core.Common{Bins: 100, Dynamic: dyn})
	if r := RunTrial(s, 0, nil); r.InitialBalls != 40 {
		t.Errorf("from spike:40: %d initial balls", r.InitialBalls)
	}
}
