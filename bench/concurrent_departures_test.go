package bench

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/kernels"
)

// bareDepartures is the naive loop a departures worker is held to: the
// supermarket model's two-choice events on atomic loads, literally — the
// arrival coin, then two uniform bins read with atomic loads and an atomic
// add on the lighter, or one uniform bin decremented by a compare-and-swap
// loop when non-empty — nothing measured or published.
func bareDepartures(cells []atomic.Uint32, r *kernels.PCG32, arrive *kernels.Bernoulli, events int) {
	n := uint32(len(cells))
	for range events {
		if !arrive.Flip(r) {
			c := &cells[r.Bounded(n)]
			for v := c.Load(); v > 0 && !c.CompareAndSwap(v, v-1); v = c.Load() {
			}
			continue
		}
		i, j := r.Bounded(n), r.Bounded(n)
		if cells[j].Load() < cells[i].Load() {
			i = j
		}
		cells[i].Add(1)
	}
}

// BenchmarkConcurrentDeparturesRatios runs, in the same process and
// interleaved over 3 rounds (best of each kept), 2^24 events of the
// supermarket model with two-choice at n = 10^4, λ = 0.9, by: the bare
// atomic loop, the sequential direct and histogram engines, balloc
// concurrent --arrival-rate racy with one and two workers and cas with
// one, and emulated with 1 and 64 workers, all measuring every 256th event;
// and reports each speed (events/s) and the ratios racy W=1 / bare and
// racy W=2 / racy W=1. Two-worker figures need two idle cores. Run with
// -benchtime 1x.
func BenchmarkConcurrentDeparturesRatios(b *testing.B) {
	const n, E, lambda = 10_000, 1 << 24, 0.9
	mk := func(engineName core.Engine) *core.Spec {
		s, err := core.NewSpec("two-choice", nil, core.Common{Bins: n, Trials: 1, Seed: 1, Alpha: 1, Engine: engineName,
			Dynamic: core.Dynamic{ArrivalRate: lambda, Events: E}})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	direct, hist := mk(core.EngineDirect), mk(core.EngineHistogram)
	arrive, err := kernels.NewBernoulli(lambda / (1 + lambda))
	if err != nil {
		b.Fatal(err)
	}
	best := map[string]float64{}
	keep := func(name string, v float64) { best[name] = max(best[name], v) }
	conc := func(mode concurrency.Mode, w int, emu bool) float64 {
		res, err := concurrency.Run(concurrency.Config{Spec: direct, Workers: w, Mode: mode, MeasureEvery: 256, Emulate: emu})
		if err != nil {
			b.Fatal(err)
		}
		return res.BallsPerS
	}
	for round := range 3 * b.N {
		cells := make([]atomic.Uint32, n)
		r := kernels.TrialStream(1, uint64(round), kernels.LaneChoices)
		start := time.Now()
		bareDepartures(cells, &r, &arrive, E)
		keep("bare", E/time.Since(start).Seconds())
		keep("sequential-direct", engine.RunTrial(direct, uint64(round), nil).BallsPerS)
		keep("sequential-histogram", engine.RunTrial(hist, uint64(round), nil).BallsPerS)
		keep("racy-W=1", conc(concurrency.Racy, 1, false))
		keep("racy-W=2", conc(concurrency.Racy, 2, false))
		keep("cas-W=1", conc(concurrency.CAS, 1, false))
		keep("emulated-W=1", conc(concurrency.Racy, 1, true))
		keep("emulated-W=64", conc(concurrency.Racy, 64, true))
	}
	for _, k := range []string{"bare", "sequential-direct", "sequential-histogram", "racy-W=1", "racy-W=2", "cas-W=1", "emulated-W=1", "emulated-W=64"} {
		b.ReportMetric(best[k], k+"-events/s")
	}
	b.ReportMetric(best["racy-W=1"]/best["bare"], "racy-W=1/bare")
	b.ReportMetric(best["racy-W=2"]/best["racy-W=1"], "racy-W=2/W=1")
	b.ReportMetric(0, "ns/op")
	b.Logf("racy W=1 / bare %.2f, racy W=2 / W=1 %.2f", best["racy-W=1"]/best["bare"], best["racy-W=2"]/best["racy-W=1"])
}
