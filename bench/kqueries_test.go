package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// k-threshold and k-quantile (two samples, k queries each) beside the loop
// one writes first, in the same run:
//
//	go test ./bench/ -run '^$' -bench 'KQueries' -benchtime 4000000x -count 3 -cpu 1

var kQueriesCases = []struct {
	name, process, flag string
	values              []float64
	engine              core.Engine
}{
	{"k-threshold-0,2", "k-threshold", "offsets", []float64{0, 2}, core.EngineDirect},
	{"k-threshold-0,2-histogram", "k-threshold", "offsets", []float64{0, 2}, core.EngineHistogram},
	{"k-threshold-0,1,2,3", "k-threshold", "offsets", []float64{0, 1, 2, 3}, core.EngineDirect},
	{"k-quantile-0.5,0.1", "k-quantile", "deltas", []float64{0.5, 0.1}, core.EngineDirect},
	{"k-quantile-0.5,0.1-histogram", "k-quantile", "deltas", []float64{0.5, 0.1}, core.EngineHistogram},
	{"k-quantile-0.5,0.2,0.05,0.01", "k-quantile", "deltas", []float64{0.5, 0.2, 0.05, 0.01}, core.EngineDirect},
}

var kQueriesSizes = []uint64{10_000, 1_000_000}

// naiveKThreshold: two rand.IntN samples, each load compared with
// t/n + g in floating point for every g; the fewer yes answers wins, the
// first on a tie.
func naiveKThreshold(loads []int, m int, offsets []float64) {
	n := len(loads)
	level := func(v, t int) int {
		l := 0
		for _, g := range offsets {
			if float64(v) >= float64(t)/float64(n)+g {
				l++
			}
		}
		return l
	}
	for t := range m {
		i, j := rand.IntN(n), rand.IntN(n)
		if level(loads[j], t) < level(loads[i], t) {
			i = j
		}
		loads[i]++
	}
}

// naiveKQuantile keeps a count of bins per load (as naiveQuantile) and
// places each sample at its rank: the bins above its load summed, plus a
// uniform place among the bins at its load; query j says yes below
// ⌈δ_j n⌉.
func naiveKQuantile(loads []int, m int, deltas []float64) {
	n := len(loads)
	k := make([]int, len(deltas))
	for j, d := range deltas {
		k[j] = int(math.Ceil(d * float64(n)))
	}
	count := []int{n}
	level := func(v int) int {
		pos := rand.IntN(count[v])
		for u := v + 1; u < len(count); u++ {
			pos += count[u]
		}
		l := 0
		for _, kj := range k {
			if pos < kj {
				l++
			}
		}
		return l
	}
	for range m {
		i, j := rand.IntN(n), rand.IntN(n)
		if level(loads[j]) < level(loads[i]) {
			i = j
		}
		count[loads[i]]--
		loads[i]++
		if loads[i] == len(count) {
			count = append(count, 0)
		}
		count[loads[i]]++
	}
}

func kQueriesValue(xs []float64) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(x)
	}
	return s
}

func BenchmarkKQueries(b *testing.B) {
	for _, c := range kQueriesCases {
		for _, n := range kQueriesSizes {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				s, err := core.NewSpec(c.process, map[string]string{c.flag: kQueriesValue(c.values)},
					core.Common{Bins: n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: c.engine})
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

func BenchmarkKQueriesNaive(b *testing.B) {
	for _, c := range kQueriesCases {
		if c.engine == core.EngineHistogram {
			continue // the direct row's naive loop is the baseline
		}
		for _, n := range kQueriesSizes {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				start := cpuTime()
				if c.process == "k-threshold" {
					naiveKThreshold(make([]int, n), b.N, c.values)
				} else {
					naiveKQuantile(make([]int, n), b.N, c.values)
				}
				reportCPU(b, start)
			})
		}
	}
}
