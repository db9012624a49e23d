package bench

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/units"
)

// The supermarket model: events per second of JSQ(2) on both
// engines through engine.RunTrial (time averages kept, batch means and all),
// beside the naive loop one writes first: []int loads, math/rand/v2's
// top-level generator, a count of bins per level kept per event, and the
// time averages summed over the levels at every event. Every trial starts
// empty, so at n = 10^6 a short -benchtime times the transient (fewer
// levels, shorter searches): 10^7 events are 5 time units there, and
// JSQ(2) nears its fixed point after about 60 (λ = 0.9); the README's
// figures come from runs long enough to be near stationarity.

func naiveSupermarket(loads []int, events int, lambda float64, d int) []float64 {
	n := len(loads)
	atLeast := []int{n, 0} // atLeast[k]: bins with load ≥ k
	var sums []float64
	for range events {
		if rand.Float64() < lambda/(1+lambda) {
			best := rand.IntN(n)
			for k := 1; k < d; k++ {
				if j := rand.IntN(n); loads[j] < loads[best] {
					best = j
				}
			}
			loads[best]++
			if loads[best] == len(atLeast)-1 {
				atLeast = append(atLeast, 0)
			}
			atLeast[loads[best]]++
		} else if i := rand.IntN(n); loads[i] > 0 {
			atLeast[loads[i]]--
			loads[i]--
		}
		for k := 1; k < len(atLeast); k++ {
			if k > len(sums) {
				sums = append(sums, 0)
			}
			sums[k-1] += float64(atLeast[k])
		}
	}
	return sums
}

func BenchmarkSupermarket(b *testing.B) {
	for _, lambda := range []float64{0.9, 0.99} {
		for _, n := range []uint64{10_000, 1_000_000} {
			name := fmt.Sprintf("jsq2/lambda=%v/n=%s", lambda, units.FormatCount(n))
			for _, eng := range []core.Engine{core.EngineHistogram, core.EngineDirect} {
				b.Run(fmt.Sprintf("%s/%s", name, eng), func(b *testing.B) {
					s, err := core.NewSpec("two-choice", nil, core.Common{Bins: n, Trials: 1, Seed: 1, Alpha: 1, Engine: eng,
						Dynamic: core.Dynamic{ArrivalRate: lambda, Events: uint64(b.N)}})
					if err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					cpu := cpuSeconds()
					engine.RunTrial(s, 0, nil)
					reportEvents(b, cpu)
				})
			}
			b.Run(name+"/naive", func(b *testing.B) {
				loads := make([]int, n)
				b.ResetTimer()
				cpu := cpuSeconds()
				naiveSupermarket(loads, b.N, lambda, 2)
				reportEvents(b, cpu)
			})
		}
	}
}

// reportEvents reports events per second of wall-clock time, and per
// second of the process's CPU time (user + system, getrusage): on a shared
// machine the loop may get a fraction of a core, and the second is what it
// costs. The loops are single-threaded; the CPU time also holds the
// runtime's own (GC, a few per cent at most here: the loops allocate
// nothing per event).
func reportEvents(b *testing.B, cpu0 float64) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.N)/(cpuSeconds()-cpu0), "events/cpu-s")
	b.ReportMetric(0, "ns/op")
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) * 1e-9
}
