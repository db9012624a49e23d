package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// The supermarket model with the Placers beyond the least of D samples
// (core/process/ballsleave.go and each process's file): quantile, two-thinning and adaptive through
// engine.RunTrial on both engines at n = 10^4, λ = 0.9, beside the naive
// loops one writes first — naiveSupermarket's shape (math/rand/v2, []int
// loads, a count of bins per level, the time sums over every level at
// every event) with the rank test read from the counts (quantile) and the
// average from a count of the balls present (thinning, adaptive), compared
// in float64.

func naivePlacerSupermarket(loads []int, events int, lambda float64, rule string, delta, theta float64) []float64 {
	n := len(loads)
	atLeast := []int{n, 0, 0} // atLeast[k]: bins with load ≥ k (a zero above the top)
	var sums []float64
	present := 0
	k := int(math.Ceil(float64(n) * delta))
	for range events {
		if rand.Float64() < lambda/(1+lambda) {
			i := rand.IntN(n)
			switch rule {
			case "quantile": // heavy: among the ⌈δn⌉ heaviest, ties in a random order
				above := atLeast[loads[i]+1]
				eq := atLeast[loads[i]] - above
				if above+rand.IntN(eq) < k {
					i = rand.IntN(n)
				}
			case "thinning":
				if float64(loads[i]) >= float64(present)/float64(n)+theta {
					i = rand.IntN(n)
				}
			case "adaptive":
				for float64(loads[i]) >= float64(present+1)/float64(n)+1 {
					i = rand.IntN(n)
				}
			}
			loads[i]++
			present++
			if loads[i]+1 == len(atLeast) {
				atLeast = append(atLeast, 0)
			}
			atLeast[loads[i]]++
		} else if i := rand.IntN(n); loads[i] > 0 {
			atLeast[loads[i]]--
			loads[i]--
			present--
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

func BenchmarkSupermarketPlacers(b *testing.B) {
	const n, lambda = 10_000, 0.9
	for _, c := range []struct {
		process, rule string
		params        map[string]string
	}{
		{"quantile", "quantile", map[string]string{"delta": "0.5"}},
		{"two-thinning", "thinning", map[string]string{"threshold": "0.5"}},
		{"adaptive", "adaptive", nil},
	} {
		for _, eng := range []core.Engine{core.EngineHistogram, core.EngineDirect} {
			b.Run(fmt.Sprintf("%s/n=1e4/%s", c.process, eng), func(b *testing.B) {
				s, err := core.NewSpec(c.process, c.params, core.Common{Bins: n, Trials: 1, Seed: 1, Alpha: 1, Engine: eng,
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
		b.Run(fmt.Sprintf("%s/n=1e4/naive", c.process), func(b *testing.B) {
			loads := make([]int, n)
			b.ResetTimer()
			cpu := cpuSeconds()
			naivePlacerSupermarket(loads, b.N, lambda, c.rule, 0.5, 0.5)
			reportEvents(b, cpu)
		})
	}
}
