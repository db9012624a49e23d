package bench

import (
	"math/rand/v2"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// The sampling and tie options of d-choice and one-plus-beta
// (core/process/sampling.go) beside naive loops of the same rules, at
// n = 10^4: go test -bench 'Sampling' ./bench/.

// naiveTwoChoiceIndex is two-choice with ties to the lower bin index.
func naiveTwoChoiceIndex(loads []int, m int) {
	n := len(loads)
	for range m {
		i, j := rand.IntN(n), rand.IntN(n)
		if loads[j] < loads[i] || loads[j] == loads[i] && j < i {
			i = j
		}
		loads[i]++
	}
}

// naiveOnePlusBetaIndex is (1+β) with ties to the lower bin index.
func naiveOnePlusBetaIndex(loads []int, m int, beta float64) {
	n := len(loads)
	for range m {
		i := rand.IntN(n)
		if rand.Float64() < beta {
			if j := rand.IntN(n); loads[j] < loads[i] || loads[j] == loads[i] && j < i {
				i = j
			}
		}
		loads[i]++
	}
}

var samplingCases = []benchCase{
	{"two-choice-ties-index", "two-choice", map[string]string{"ties": "index"},
		func(l []int, m int) { naiveTwoChoiceIndex(l, m) }, nil, nil},
	{"one-plus-beta-0.5-ties-index", "one-plus-beta", map[string]string{"beta": "0.5", "ties": "index"},
		func(l []int, m int) { naiveOnePlusBetaIndex(l, m, 0.5) }, nil, nil},
}

// BenchmarkSampling runs each option on the direct engine and its naive
// loop, at n = 10^4, interleaved: Direct then Naive per case.
func BenchmarkSampling(b *testing.B) {
	const n = 10_000
	for _, c := range samplingCases {
		b.Run(c.name+"/direct", func(b *testing.B) {
			s, err := core.NewSpec(c.process, c.params, core.Common{Bins: n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			engine.RunTrial(s, 0, nil)
			report(b)
		})
		b.Run(c.name+"/naive", func(b *testing.B) {
			c.naive(make([]int, n), b.N)
			report(b)
		})
	}
}

// The naive loops place every ball.
func TestSamplingNaiveLoopsPlaceEveryBall(t *testing.T) {
	for _, c := range samplingCases {
		loads := make([]int, 100)
		c.naive(loads, 10000)
		sum := 0
		for _, x := range loads {
			sum += x
		}
		if sum != 10000 {
			t.Errorf("%s placed %d balls", c.name, sum)
		}
	}
}
