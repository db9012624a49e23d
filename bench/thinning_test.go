package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// The thinning family (two-thinning, k-thinning, threshold, adaptive) at n = 10^4 beside
// naive loops written the obvious way, in the same run:
//
//	go test ./bench/ -run '^$' -bench 'Thinning' -benchtime 2000000x -count 3

var thinningCases = []benchCase{
	{"two-thinning-1", "two-thinning", map[string]string{"threshold": "1"},
		func(l []int, m int) { naiveTwoThinning(l, m, 1) }, nil, nil},
	{"k-thinning-3-0.5,1", "k-thinning", map[string]string{"k": "3", "thresholds": "0.5,1"},
		func(l []int, m int) { naiveKThinning(l, m, []float64{0.5, 1}) }, nil, nil},
	{"k-thinning-4-0,0,0", "k-thinning", map[string]string{"k": "4", "thresholds": "0,0,0"},
		func(l []int, m int) { naiveKThinning(l, m, []float64{0, 0, 0}) }, nil, nil},
	{"k-thinning-3-quantile", "k-thinning", map[string]string{"k": "3", "thresholds": "quantile"},
		func(l []int, m int) { naiveKThinningQuantile(l, m, 3) }, nil, nil},
	{"threshold", "threshold", nil, func(l []int, m int) { naiveRetry(l, m, false) }, nil, nil},
	{"adaptive", "adaptive", nil, func(l []int, m int) { naiveRetry(l, m, true) }, nil, nil},
}

// naiveRetry samples until the load is below m/n + 1 (threshold) or
// i/n + 1 for ball i from 1 (adaptive), in floating point as
// daniel-stoneuk/load-balancing writes them, counting the probes.
func naiveRetry(loads []int, m int, adaptive bool) (probes, most int) {
	n := len(loads)
	for t := range m {
		limit := float64(m)/float64(n) + 1
		if adaptive {
			limit = float64(t+1)/float64(n) + 1
		}
		k := 1
		i := rand.IntN(n)
		for float64(loads[i]) >= limit {
			i = rand.IntN(n)
			k++
		}
		probes, most = probes+k, max(most, k)
		loads[i]++
	}
	return probes, most
}

// naiveKThinning: up to K = len(thetas)+1 samples, sample j kept when its
// load < t/n + θj in floating point, the K-th kept.
func naiveKThinning(loads []int, m int, thetas []float64) {
	n := len(loads)
	for t := range m {
		i := rand.IntN(n)
		for _, theta := range thetas {
			if float64(loads[i]) < float64(t)/float64(n)+theta {
				break
			}
			i = rand.IntN(n)
		}
		loads[i]++
	}
}

// naiveKThinningQuantile keeps a count of bins per load (as naiveQuantile)
// and finds the load at ascending position ⌊n(1 − 2^(−1/c))⌋ by summing the
// counts from the heaviest load down, for every test.
func naiveKThinningQuantile(loads []int, m, k int) {
	n := len(loads)
	idx := make([]int, k-1)
	for j := range idx {
		idx[j] = int(math.Floor(float64(n) * (1 - math.Pow(2, -1/float64(k-j)))))
	}
	count := []int{n}
	for range m {
		i := rand.IntN(n)
		for _, p := range idx {
			b, above := len(count)-1, count[len(count)-1]
			for above < n-p {
				b--
				above += count[b]
			}
			if loads[i] <= b {
				break
			}
			i = rand.IntN(n)
		}
		count[loads[i]]--
		loads[i]++
		if loads[i] == len(count) {
			count = append(count, 0)
		}
		count[loads[i]]++
	}
}

func BenchmarkThinning(b *testing.B) {
	for _, c := range thinningCases {
		b.Run(c.name+"/n=1e4", func(b *testing.B) {
			s, err := core.NewSpec(c.process, c.params, core.Common{Bins: 10_000, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := cpuTime()
			engine.RunTrial(s, 0, nil)
			reportCPU(b, start)
		})
	}
}

func BenchmarkThinningNaive(b *testing.B) {
	for _, c := range thinningCases {
		b.Run(fmt.Sprintf("%s/n=1e4", c.name), func(b *testing.B) {
			start := cpuTime()
			c.naive(make([]int, 10_000), b.N)
			reportCPU(b, start)
		})
	}
}
