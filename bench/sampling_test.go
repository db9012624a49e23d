package bench

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

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

// naiveDChoiceDistinct is d-choice of d distinct samples, each redrawn
// while it repeats an earlier one.
func naiveDChoiceDistinct(loads []int, m, d int) {
	n := len(loads)
	s := make([]int, d)
	for range m {
		for k := range s {
		draw:
			s[k] = rand.IntN(n)
			for _, x := range s[:k] {
				if x == s[k] {
					goto draw
				}
			}
		}
		best := s[0]
		for _, j := range s[1:] {
			if loads[j] < loads[best] {
				best = j
			}
		}
		loads[best]++
	}
}

// naiveOnePlusBetaDistinct is (1+β) whose second sample is redrawn while
// it repeats the first.
func naiveOnePlusBetaDistinct(loads []int, m int, beta float64) {
	n := len(loads)
	for range m {
		i := rand.IntN(n)
		if rand.Float64() < beta {
			j := rand.IntN(n)
			for j == i {
				j = rand.IntN(n)
			}
			if loads[j] < loads[i] {
				i = j
			}
		}
		loads[i]++
	}
}

var samplingCases = []benchCase{
	// The defaults, whose loops the options leave as they were.
	{"two-choice", "two-choice", nil, func(l []int, m int) { naiveDChoice(l, m, 2) }, nil, nil},
	{"d-choice-d3", "d-choice", map[string]string{"d": "3"}, func(l []int, m int) { naiveDChoice(l, m, 3) }, nil, nil},
	{"one-plus-beta-0.5", "one-plus-beta", map[string]string{"beta": "0.5"}, func(l []int, m int) { naiveOnePlusBeta(l, m, 0.5) }, nil, nil},
	{"two-choice-ties-index", "two-choice", map[string]string{"ties": "index"},
		func(l []int, m int) { naiveTwoChoiceIndex(l, m) }, nil, nil},
	{"one-plus-beta-0.5-ties-index", "one-plus-beta", map[string]string{"beta": "0.5", "ties": "index"},
		func(l []int, m int) { naiveOnePlusBetaIndex(l, m, 0.5) }, nil, nil},
	{"two-choice-distinct", "two-choice", map[string]string{"distinct": "true"},
		func(l []int, m int) { naiveDChoiceDistinct(l, m, 2) }, nil, nil},
	{"d-choice-d3-distinct", "d-choice", map[string]string{"d": "3", "distinct": "true"},
		func(l []int, m int) { naiveDChoiceDistinct(l, m, 3) }, nil, nil},
	{"one-plus-beta-0.5-distinct", "one-plus-beta", map[string]string{"beta": "0.5", "distinct": "true"},
		func(l []int, m int) { naiveOnePlusBetaDistinct(l, m, 0.5) }, nil, nil},
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds balls per CPU second to report's balls/s: on a machine
// shared with other work, wall time counts the time others held the core,
// CPU time does not.
func reportCPU(b *testing.B, start time.Duration) {
	report(b)
	if cpu := cpuTime() - start; cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "balls/cpu-s")
	}
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
			start := cpuTime()
			engine.RunTrial(s, 0, nil)
			reportCPU(b, start)
		})
		b.Run(c.name+"/naive", func(b *testing.B) {
			loads := make([]int, n)
			start := cpuTime()
			c.naive(loads, b.N)
			reportCPU(b, start)
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
