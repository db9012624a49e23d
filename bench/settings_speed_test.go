package bench

import (
	"fmt"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// The loops that the delayed, batched and distinct settings run, each
// beside its naive loop (the ones of delay_choice_test.go,
// delay_steps_test.go, batch_steps_test.go, naive_loops_test.go and
// sampling_test.go) in one benchmark, so that -count interleaves every pair. n = 10^4, τ = n,
// b = n. balls/cpu-s is the figure to read on a shared machine.
//
//	go test ./bench -run '^$' -bench TauSpeed -benchtime 0.3s -count 5

var tauSpeedCases = []benchCase{
	{"d-choice-d3-tau-fixed", "d-choice", map[string]string{"d": "3", "tau": "10000"},
		func(l []int, m int) { naiveDChoiceFixed(l, m, 3, len(l)) }, nil, nil},
	{"d-choice-d3-tau-adversarial", "d-choice", map[string]string{"d": "3", "tau": "10000", "delay": "adversarial"},
		func(l []int, m int) { naiveDChoiceAdversarial(l, m, 3, len(l)) }, nil, nil},
	{"one-plus-beta-0.5-tau-fixed", "one-plus-beta", map[string]string{"beta": "0.5", "tau": "10000"},
		func(l []int, m int) { naiveOnePlusBetaFixed(l, m, 0.5, len(l)) }, nil, nil},
	{"quantile-0.5-tau-fixed", "quantile", map[string]string{"delta": "0.5", "tau": "10000"},
		func(l []int, m int) { naiveQuantileFixed(l, m, 0.5, len(l)) }, nil, nil},
	{"two-thinning-1-tau-fixed", "two-thinning", map[string]string{"threshold": "1", "tau": "10000"},
		func(l []int, m int) { naiveTwoThinningFixed(l, m, 1, len(l)) }, nil, nil},
	{"tau-delay-fixed", "tau-delay", map[string]string{"tau": "10000"},
		func(l []int, m int) { naiveTauDelayFixed(l, m, len(l)) }, nil, nil},
	{"k-thinning-0.5,1-tau-fixed", "k-thinning", map[string]string{"k": "3", "thresholds": "0.5,1", "tau": "10000"},
		func(l []int, m int) { kThinningDelayCases[0].naive(l, m, len(l)) }, nil, nil},
	{"quantile-0.5-distinct", "quantile", map[string]string{"delta": "0.5", "distinct": "true"},
		samplingCases[13].naive, nil, nil},
	{"packing-batch-n", "packing", map[string]string{"batch": "10000"},
		func(l []int, m int) { batchAnyCases[4].naive(l, m, len(l)) }, nil, nil},
}

func init() {
	for _, c := range tau2Cases {
		naive := c.naive
		p := map[string]string{"tau": "10000"}
		for k, v := range c.params {
			p[k] = v
		}
		tauSpeedCases = append(tauSpeedCases, benchCase{c.name + "-tau-fixed", c.process, p,
			func(l []int, m int) { naive(l, m, len(l)) }, nil, nil})
	}
}

// BenchmarkTauSpeed runs each case's direct engine loop, then its naive loop.
func BenchmarkTauSpeed(b *testing.B) {
	const n = 10_000
	if samplingCases[13].name != "quantile-0.5-distinct" || batchAnyCases[4].name != "packing" || kThinningDelayCases[0].name != "k-thinning-0.5,1" {
		b.Fatal("tauSpeedCases index the other files' tables: their order changed")
	}
	for _, c := range tauSpeedCases {
		b.Run(c.name+"/direct", func(b *testing.B) {
			s, err := core.NewSpec(c.process, c.params, core.Common{Bins: n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
			if err != nil {
				b.Fatal(fmt.Errorf("%s: %v", c.name, err))
			}
			b.ResetTimer()
			start := cpuTime()
			engine.RunTrial(s, 0, nil)
			reportCPU(b, start)
		})
		b.Run(c.name+"/naive", func(b *testing.B) {
			start := cpuTime()
			c.naive(make([]int, n), b.N)
			reportCPU(b, start)
		})
	}
}
