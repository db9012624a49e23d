package bench

import (
	"fmt"
	"testing"

	"github.com/balloc/balloc/core"
)

type benchCase struct {
	name    string // sub-benchmark name, also the table row
	process string
	params  map[string]string
	naive   func(n, m int)
}

var cases = []benchCase{
	{"one-choice", "one-choice", nil,
		func(n, m int) { naiveOneChoice(make([]int, n), m) }},
	{"two-choice", "two-choice", nil,
		func(n, m int) { naiveDChoice(make([]int, n), m, 2) }},
	{"d-choice-d3", "d-choice", map[string]string{"d": "3"},
		func(n, m int) { naiveDChoice(make([]int, n), m, 3) }},
	{"one-plus-beta-0.5", "one-plus-beta", map[string]string{"beta": "0.5"},
		func(n, m int) { naiveOnePlusBeta(make([]int, n), m, 0.5) }},
	{"always-go-left-d2", "always-go-left", map[string]string{"d": "2"},
		func(n, m int) { naiveAlwaysGoLeft(make([]int, n), m, 2) }},
	{"two-thinning-1", "two-thinning", map[string]string{"threshold": "1"},
		func(n, m int) { naiveTwoThinning(make([]int, n), m, 1) }},
	{"two-choice-exp1", "two-choice", map[string]string{"weights": "exp:1"},
		func(n, m int) { naiveWeightedDChoice(make([]float64, n), m, 2) }},
}

var sizes = []struct {
	name string
	n    uint64
}{{"n=1e4", 10_000}, {"n=1e7", 10_000_000}}

func report(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "balls/s")
	b.ReportMetric(0, "ns/op") // per ball, ns/op is 1e9 / balls/s: keep one
}

// BenchmarkDirect: one trial of b.N balls through core.RunTrial.
func BenchmarkDirect(b *testing.B) {
	for _, c := range cases {
		for _, sz := range sizes {
			b.Run(fmt.Sprintf("%s/%s", c.name, sz.name), func(b *testing.B) {
				s, err := core.NewSpec(c.process, c.params, core.Common{Bins: sz.n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				core.RunTrial(s, 0, nil)
				report(b)
			})
		}
	}
}

// BenchmarkNaive: the naive loop for b.N balls, load array included.
func BenchmarkNaive(b *testing.B) {
	for _, c := range cases {
		for _, sz := range sizes {
			b.Run(fmt.Sprintf("%s/%s", c.name, sz.name), func(b *testing.B) {
				c.naive(int(sz.n), b.N)
				report(b)
			})
		}
	}
}
