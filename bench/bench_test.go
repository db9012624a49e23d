package bench

import (
	"fmt"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

type benchCase struct {
	name    string // sub-benchmark name, also the table row
	process string
	params  map[string]string
	naive   func(loads []int, m int) // nil: no naive version (or naiveW)
	naiveW  func(loads []float64, m int)
	// perN, when set, gives the parameters at n bins (τ = n, b = n).
	perN func(n uint64) map[string]string
}

func (c benchCase) paramsAt(n uint64) map[string]string {
	if c.perN != nil {
		return c.perN(n)
	}
	return c.params
}

func nParam(name string) func(uint64) map[string]string {
	return func(n uint64) map[string]string { return map[string]string{name: fmt.Sprint(n)} }
}

var cases = []benchCase{
	{"one-choice", "one-choice", nil,
		func(l []int, m int) { naiveOneChoice(l, m) }, nil, nil},
	{"two-choice", "two-choice", nil,
		func(l []int, m int) { naiveDChoice(l, m, 2) }, nil, nil},
	{"d-choice-d3", "d-choice", map[string]string{"d": "3"},
		func(l []int, m int) { naiveDChoice(l, m, 3) }, nil, nil},
	{"one-plus-beta-0.5", "one-plus-beta", map[string]string{"beta": "0.5"},
		func(l []int, m int) { naiveOnePlusBeta(l, m, 0.5) }, nil, nil},
	{"always-go-left-d2", "always-go-left", map[string]string{"d": "2"},
		func(l []int, m int) { naiveAlwaysGoLeft(l, m, 2) }, nil, nil},
	{"two-thinning-1", "two-thinning", map[string]string{"threshold": "1"},
		func(l []int, m int) { naiveTwoThinning(l, m, 1) }, nil, nil},
	{"quantile-0.5", "quantile", map[string]string{"delta": "0.5"},
		func(l []int, m int) { naiveQuantile(l, m, 0.5) }, nil, nil},
	{"two-choice-exp1", "two-choice", map[string]string{"weights": "exp:1"},
		nil, func(l []float64, m int) { naiveWeightedDChoice(l, m, 2) }, nil},
	{"g-adv-comp-g4", "g-adv-comp", map[string]string{"g": "4"},
		func(l []int, m int) { naiveGComp(l, m, 4, false) }, nil, nil},
	{"g-myopic-comp-g4", "g-myopic-comp", map[string]string{"g": "4"},
		func(l []int, m int) { naiveGComp(l, m, 4, true) }, nil, nil},
	{"sigma-noisy-load-2", "sigma-noisy-load", map[string]string{"sigma": "2"},
		func(l []int, m int) { naiveSigmaNoisyLoad(l, m, 2) }, nil, nil},
	{"rho-noisy-comp-gauss2", "rho-noisy-comp", map[string]string{"rho": "gauss:2"},
		func(l []int, m int) { naiveRhoGauss(l, m, 2) }, nil, nil},
	{"tau-delay-fixed-n", "tau-delay", nil,
		func(l []int, m int) { naiveTauDelayFixed(l, m, len(l)) }, nil, nParam("tau")},
	{"tau-delay-adversarial-n", "tau-delay", nil,
		func(l []int, m int) { naiveTauDelayAdversarial(l, m, len(l)) }, nil,
		func(n uint64) map[string]string {
			return map[string]string{"tau": fmt.Sprint(n), "delay": "adversarial"}
		}},
	{"tau-delay-uniform-n", "tau-delay", nil,
		func(l []int, m int) { naiveTauDelayUniform(l, m, len(l)) }, nil,
		func(n uint64) map[string]string { return map[string]string{"tau": fmt.Sprint(n), "delay": "uniform"} }},
	{"b-batch-n", "b-batch", nil,
		func(l []int, m int) { naiveBatch(l, m, len(l)) }, nil, nParam("batch")},
}

var sizes = []struct {
	name string
	n    uint64
}{{"n=1e4", 10_000}, {"n=1e7", 10_000_000}}

func report(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "balls/s")
	b.ReportMetric(0, "ns/op") // per ball, ns/op is 1e9 / balls/s: keep one
}

// BenchmarkDirect: one trial of b.N balls through engine.RunTrial.
func BenchmarkDirect(b *testing.B) {
	for _, c := range cases {
		for _, sz := range sizes {
			b.Run(fmt.Sprintf("%s/%s", c.name, sz.name), func(b *testing.B) {
				s, err := core.NewSpec(c.process, c.paramsAt(sz.n), core.Common{Bins: sz.n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1})
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

// BenchmarkNaive: the naive loop for b.N balls, load array included.
func BenchmarkNaive(b *testing.B) {
	for _, c := range cases {
		if c.naive == nil && c.naiveW == nil {
			continue // no obvious naive version: the ratio column shows –
		}
		for _, sz := range sizes {
			b.Run(fmt.Sprintf("%s/%s", c.name, sz.name), func(b *testing.B) {
				if c.naive != nil {
					c.naive(make([]int, sz.n), b.N)
				} else {
					c.naiveW(make([]float64, sz.n), b.N)
				}
				report(b)
			})
		}
	}
}
