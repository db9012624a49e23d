package bench

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/kernels"
)

// BenchmarkConcurrent: b.N balls of two-choice at n = 10^6 placed by
// GOMAXPROCS workers (run with -cpu 1,2), racy, on packed and padded loads,
// measuring the staleness of every 256th ball as balloc concurrent does.
func BenchmarkConcurrent(b *testing.B) {
	for _, layout := range []concurrency.Layout{concurrency.Packed, concurrency.Padded} {
		b.Run(fmt.Sprintf("two-choice/n=1e6/racy/%s", layout), func(b *testing.B) {
			s, err := core.NewSpec("two-choice", nil, core.Common{Bins: 1_000_000, Balls: uint64(max(b.N, 1_000_000)), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			res, err := concurrency.Run(concurrency.Config{Spec: s, Workers: runtime.GOMAXPROCS(0), Mode: concurrency.Racy,
				Layout: layout, MeasureEvery: 256})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(res.BallsPerS, "balls/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// bareAtomic is the baseline a concurrent worker is held to: two-choice
// with two atomic loads and one atomic add a ball, nothing measured or
// published.
func bareAtomic(cells []atomic.Uint32, r *kernels.PCG32, m int) {
	n := uint32(len(cells))
	for range m {
		i, j := r.Bounded2(n)
		if cells[j].Load() < cells[i].Load() {
			i = j
		}
		cells[i].Add(1)
	}
}

// lossyTwoChoice is what two cores give this access pattern with no
// coordination at all: two goroutines run the sequential engine's staged
// two-choice loop (kernels.TwoChoice) at once on one plain array of n
// loads, m/2 balls each, losing updates. No design that reads two random
// bins of a shared array and writes one per ball moves less between the
// cores, so lossy2/sequential bounds what two workers can gain on the
// machine. It returns balls/s. A data race by design: not under -race.
func lossyTwoChoice(n, m int, round uint64) float64 {
	loads := make([]uint32, n)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range 2 {
		wg.Go(func() {
			r := kernels.TrialStream(2, round, kernels.WorkerLane(w))
			kernels.TwoChoice(loads, &r, uint64(m/2), 0)
		})
	}
	wg.Wait()
	return float64(m) / time.Since(start).Seconds()
}

// BenchmarkConcurrentRatios runs, in the same process and interleaved over
// 3 rounds (best of each kept), 2^24 balls of two-choice on n = 2^20 bins
// by: the bare atomic loop, the sequential direct engine, racy with one and
// two workers, sharded with one and two, all measuring every 256th ball,
// and the lossy loop of two goroutines (lossyTwoChoice, the machine's
// ceiling for two workers); and reports each speed and the ratios it is
// held to (racy W=1 / bare ≥ 0.8; sharded W=2 / sharded W=1 ≥ 1.8; sharded
// W=2 / sequential ≥ 1), with lossy W=2 / sequential beside them.
// Two-worker figures need two idle cores. Run with -benchtime 1x.
func BenchmarkConcurrentRatios(b *testing.B) {
	const n, m = 1 << 20, 1 << 24
	spec, err := core.NewSpec("two-choice", nil, core.Common{Bins: n, Balls: m, Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
	if err != nil {
		b.Fatal(err)
	}
	best := map[string]float64{}
	keep := func(name string, v float64) { best[name] = max(best[name], v) }
	conc := func(mode concurrency.Mode, w int) float64 {
		res, err := concurrency.Run(concurrency.Config{Spec: spec, Workers: w, Mode: mode, MeasureEvery: 256})
		if err != nil {
			b.Fatal(err)
		}
		return res.BallsPerS
	}
	for round := range 3 * b.N {
		cells := make([]atomic.Uint32, n)
		r := kernels.TrialStream(1, uint64(round), kernels.LaneChoices)
		start := time.Now()
		bareAtomic(cells, &r, m)
		keep("bare", m/time.Since(start).Seconds())
		keep("sequential", engine.RunTrial(spec, uint64(round), nil).BallsPerS)
		keep("racy-1", conc(concurrency.Racy, 1))
		keep("racy-2", conc(concurrency.Racy, 2))
		keep("sharded-1", conc(concurrency.Sharded, 1))
		keep("sharded-2", conc(concurrency.Sharded, 2))
		if !raceOn {
			keep("lossy-2", lossyTwoChoice(n, m, uint64(round)))
		}
	}
	names := []string{"bare", "sequential", "racy-1", "racy-2", "sharded-1", "sharded-2"}
	if !raceOn {
		names = append(names, "lossy-2")
		b.ReportMetric(best["lossy-2"]/best["sequential"], "lossy2/sequential")
	}
	for _, k := range names {
		b.ReportMetric(best[k], k+"-balls/s")
	}
	b.ReportMetric(best["racy-1"]/best["bare"], "racy1/bare")
	b.ReportMetric(best["sharded-2"]/best["sharded-1"], "sharded2/sharded1")
	b.ReportMetric(best["sharded-2"]/best["sequential"], "sharded2/sequential")
	b.ReportMetric(0, "ns/op")
}
