package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// The processes that place several balls a step (twinning, packing,
// kd-choice) beside their naive versions, as BenchmarkDirect and
// BenchmarkNaive do for the others: one trial of b.N balls from empty bins
// through engine.RunTrial, against the loop one writes first (math/rand/v2,
// []int loads, the average as a float64 division), each placing exactly
// b.N balls (the last step cut).

var multiBallCases = []benchCase{
	{"twinning", "twinning", nil, naiveTwinning, nil, nil},
	{"packing", "packing", nil, naivePacking, nil, nil},
	{"kd-choice-k2-d4", "kd-choice", map[string]string{"k": "2", "d": "4"},
		func(l []int, m int) { naiveKDChoice(l, m, 2, 4) }, nil, nil},
	{"kd-choice-k3-d6", "kd-choice", map[string]string{"k": "3", "d": "6"},
		func(l []int, m int) { naiveKDChoice(l, m, 3, 6) }, nil, nil},
}

var multiBallSizes = []struct {
	name string
	n    uint64
}{{"n=1e4", 10_000}, {"n=1e7", 10_000_000}}

// BenchmarkMultiBall: one trial of b.N balls through engine.RunTrial.
func BenchmarkMultiBall(b *testing.B) {
	for _, c := range multiBallCases {
		for _, sz := range multiBallSizes {
			b.Run(fmt.Sprintf("%s/%s", c.name, sz.name), func(b *testing.B) {
				s, err := core.NewSpec(c.process, c.params, core.Common{Bins: sz.n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				engine.RunTrial(s, 0, nil)
				report(b)
			})
		}
	}
}

// BenchmarkMultiBallNaive: the naive loop for b.N balls, load array included.
func BenchmarkMultiBallNaive(b *testing.B) {
	for _, c := range multiBallCases {
		for _, sz := range multiBallSizes {
			b.Run(fmt.Sprintf("%s/%s", c.name, sz.name), func(b *testing.B) {
				c.naive(make([]int, sz.n), b.N)
				report(b)
			})
		}
	}
}

// naiveTwinning: a uniform bin, 2 balls when its load is below w/n, else 1.
func naiveTwinning(loads []int, m int) {
	n := len(loads)
	for w := 0; w < m; {
		i := rand.IntN(n)
		add := 1
		if float64(loads[i]) < float64(w)/float64(n) {
			add = 2
		}
		add = min(add, m-w)
		loads[i] += add
		w += add
	}
}

// naivePacking: a uniform bin raised to ⌈w/n⌉ + 1 when below w/n, else 1 ball.
func naivePacking(loads []int, m int) {
	n := len(loads)
	for w := 0; w < m; {
		i := rand.IntN(n)
		add := 1
		if avg := float64(w) / float64(n); float64(loads[i]) < avg {
			add = int(math.Ceil(avg)) + 1 - loads[i]
		}
		add = min(add, m-w)
		loads[i] += add
		w += add
	}
}

// naiveKDChoice: d uniform bins a step, sorted stably by load (sort.SliceStable),
// one ball on each of the first k.
func naiveKDChoice(loads []int, m, k, d int) {
	n := len(loads)
	slots := make([]int, d)
	for w := 0; w < m; {
		for j := range slots {
			slots[j] = rand.IntN(n)
		}
		sort.SliceStable(slots, func(a, b int) bool { return loads[slots[a]] < loads[slots[b]] })
		for _, b := range slots[:min(k, m-w)] {
			loads[b]++
			w++
		}
	}
}
