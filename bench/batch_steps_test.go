package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// --batch b for k-thinning, threshold/adaptive, twinning/packing and
// kd-choice (core/process/batch.go) beside the batched loop one writes
// first: math/rand/v2, []int loads, a frozen copy of the whole array at each
// batch's start (and for quantile thresholds a sorted one), the average as
// a float64 division. One trial of b.N balls at n = 10^4, batches of 100
// (below n: the kernels list the batch's bins) and of n.

var batchAnyCases = []struct {
	name    string
	process string
	params  map[string]string
	naive   func(loads []int, m, b int)
}{
	{"k-thinning-0.5,1", "k-thinning", map[string]string{"k": "3", "thresholds": "0.5,1"},
		func(l []int, m, b int) { naiveBatchedKThinning(l, m, b, []float64{0.5, 1}) }},
	{"k-thinning-quantile", "k-thinning", map[string]string{"k": "3", "thresholds": "quantile"},
		func(l []int, m, b int) { naiveBatchedKThinningQuantile(l, m, b, 3) }},
	{"adaptive", "adaptive", nil, naiveBatchedAdaptive},
	{"twinning", "twinning", nil, func(l []int, m, b int) { naiveBatchedTwinning(l, m, b, false) }},
	{"packing", "packing", nil, func(l []int, m, b int) { naiveBatchedTwinning(l, m, b, true) }},
	{"kd-choice-k2-d4", "kd-choice", map[string]string{"k": "2", "d": "4"},
		func(l []int, m, b int) { naiveBatchedKD(l, m, b, 2, 4) }},
}

const batchAnyBins = 10_000

var batchAnySizes = []int{100, batchAnyBins}

// BenchmarkBatchAny: one trial of b.N balls through engine.RunTrial.
func BenchmarkBatchAny(b *testing.B) {
	for _, c := range batchAnyCases {
		for _, bs := range batchAnySizes {
			b.Run(fmt.Sprintf("%s/b=%d", c.name, bs), func(b *testing.B) {
				p := map[string]string{"batch": fmt.Sprint(bs)}
				for k, v := range c.params {
					p[k] = v
				}
				s, err := core.NewSpec(c.process, p, core.Common{Bins: batchAnyBins, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
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
}

// BenchmarkBatchAnyNaive: the naive batched loop for b.N balls.
func BenchmarkBatchAnyNaive(b *testing.B) {
	for _, c := range batchAnyCases {
		for _, bs := range batchAnySizes {
			b.Run(fmt.Sprintf("%s/b=%d", c.name, bs), func(b *testing.B) {
				start := cpuTime()
				c.naive(make([]int, batchAnyBins), b.N, bs)
				reportCPU(b, start)
			})
		}
	}
}

// naiveBatchedKThinning: up to K samples, sample j < K kept when its frozen
// load < t₀/n + θj.
func naiveBatchedKThinning(loads []int, m, b int, thetas []float64) {
	n := len(loads)
	frozen := make([]int, n)
	for t := 0; t < m; t++ {
		t0 := t - t%b
		if t == t0 {
			copy(frozen, loads)
		}
		i := rand.IntN(n)
		for _, th := range thetas {
			if float64(frozen[i]) < float64(t0)/float64(n)+th {
				break
			}
			i = rand.IntN(n)
		}
		loads[i]++
	}
}

// naiveBatchedKThinningQuantile: sample j kept when its frozen load is at
// most sorted(frozen)[⌊n(1 − 2^(−1/c))⌋], c the choices left.
func naiveBatchedKThinningQuantile(loads []int, m, b, k int) {
	n := len(loads)
	frozen, sorted := make([]int, n), make([]int, n)
	for t := 0; t < m; t++ {
		if t%b == 0 {
			copy(frozen, loads)
			copy(sorted, loads)
			slices.Sort(sorted)
		}
		i := rand.IntN(n)
		for c := k; c > 1; c-- {
			if frozen[i] <= sorted[int(float64(n)*(1-math.Pow(2, -1/float64(c))))] {
				break
			}
			i = rand.IntN(n)
		}
		loads[i]++
	}
}

// naiveBatchedAdaptive: samples until a frozen load < (t₀ + 1)/n + 1.
func naiveBatchedAdaptive(loads []int, m, b int) {
	n := len(loads)
	frozen := make([]int, n)
	for t := 0; t < m; t++ {
		t0 := t - t%b
		if t == t0 {
			copy(frozen, loads)
		}
		for {
			i := rand.IntN(n)
			if float64(frozen[i]) < float64(t0+1)/float64(n)+1 {
				loads[i]++
				break
			}
		}
	}
}

// naiveBatchedTwinning: a step's bin by its frozen load against t₀/n.
func naiveBatchedTwinning(loads []int, m, b int, packing bool) {
	n := len(loads)
	frozen := make([]int, n)
	owed, bin := 0, 0
	for t := 0; t < m; t++ {
		t0 := t - t%b
		if t == t0 {
			copy(frozen, loads)
		}
		if owed == 0 {
			bin = rand.IntN(n)
			owed = 1
			if avg := float64(t0) / float64(n); float64(frozen[bin]) < avg {
				owed = 2
				if packing {
					owed = int(math.Ceil(avg)) + 1 - frozen[bin]
				}
			}
		}
		loads[bin]++
		owed--
	}
}

// naiveBatchedKD: d samples sorted by frozen load, one ball to each of the
// k first.
func naiveBatchedKD(loads []int, m, b, k, d int) {
	n := len(loads)
	frozen := make([]int, n)
	slots := make([]int, d)
	next := k
	for t := 0; t < m; t++ {
		if t%b == 0 {
			copy(frozen, loads)
		}
		if next == k {
			for j := range slots {
				slots[j] = rand.IntN(n)
			}
			sort.SliceStable(slots, func(x, y int) bool { return frozen[slots[x]] < frozen[slots[y]] })
			next = 0
		}
		loads[slots[next]]++
		next++
	}
}

// k-thinning --tau n --delay fixed beside the naive delayed loop (bench's
// naiveDelayFixed: the loads τ balls ago kept with a ring of bins).
var kThinningDelayCases = []struct {
	name  string
	th    string
	naive func(loads []int, m, tau int)
}{
	{"k-thinning-0.5,1", "0.5,1", func(l []int, m, tau int) {
		n := len(l)
		naiveDelayFixed(l, m, tau, func(past []int, t int) int {
			i := rand.IntN(n)
			for _, th := range []float64{0.5, 1} {
				if float64(past[i]) < float64(t)/float64(n)+th {
					break
				}
				i = rand.IntN(n)
			}
			return i
		})
	}},
	{"k-thinning-quantile", "quantile", func(l []int, m, tau int) {
		n := len(l)
		sorted := make([]int, n)
		naiveDelayFixed(l, m, tau, func(past []int, _ int) int {
			copy(sorted, past) // the ranks of the vector τ balls ago, every ball: the loop one writes first
			slices.Sort(sorted)
			i := rand.IntN(n)
			for c := 3; c > 1; c-- {
				if past[i] <= sorted[int(float64(n)*(1-math.Pow(2, -1/float64(c))))] {
					break
				}
				i = rand.IntN(n)
			}
			return i
		})
	}},
}

func BenchmarkKThinningDelay(b *testing.B) {
	for _, c := range kThinningDelayCases {
		b.Run(c.name, func(b *testing.B) {
			s, err := core.NewSpec("k-thinning", map[string]string{"k": "3", "thresholds": c.th, "tau": fmt.Sprint(batchAnyBins)},
				core.Common{Bins: batchAnyBins, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			engine.RunTrial(s, 0, nil)
			report(b)
		})
	}
}

func BenchmarkKThinningDelayNaive(b *testing.B) {
	for _, c := range kThinningDelayCases {
		b.Run(c.name, func(b *testing.B) {
			c.naive(make([]int, batchAnyBins), b.N, batchAnyBins)
			report(b)
		})
	}
}
