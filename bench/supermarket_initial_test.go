package bench

import (
	"fmt"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/units"
)

// The supermarket's histogram loop at stationarity: JSQ(2) from --initial
// fixed-point (every bin's load i.i.d. from the mean field's fixed point,
// core/supermarket_initial.go), so even a short -benchtime times the loop
// on the levels of the stationary state, at any n — beside the same naive
// loop as BenchmarkSupermarket (dynamic_test.go), started empty (at n =
// 10^4 it nears stationarity within the benchmark's 10^7 events). Events
// per wall and per CPU second (reportEvents).
func BenchmarkSupermarketFromFixedPoint(b *testing.B) {
	for _, lambda := range []float64{0.9, 0.99} {
		for _, n := range []uint64{10_000, 1_000_000, 1_000_000_000} {
			b.Run(fmt.Sprintf("jsq2/lambda=%v/n=%s/histogram", lambda, units.FormatCount(n)), func(b *testing.B) {
				s, err := core.NewSpec("two-choice", map[string]string{"initial": "fixed-point"}, core.Common{Bins: n, Trials: 1, Seed: 1, Alpha: 1,
					Engine: core.EngineHistogram, Dynamic: core.Dynamic{ArrivalRate: lambda, Events: uint64(b.N)}})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				cpu := cpuSeconds()
				engine.RunTrial(s, 0, nil)
				reportEvents(b, cpu)
			})
		}
		b.Run(fmt.Sprintf("jsq2/lambda=%v/n=1e4/naive", lambda), func(b *testing.B) {
			loads := make([]int, 10_000)
			b.ResetTimer()
			cpu := cpuSeconds()
			naiveSupermarket(loads, b.N, lambda, 2)
			reportEvents(b, cpu)
		})
	}
}
