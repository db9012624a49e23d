package bench

import (
	"math"
	"math/rand/v2"
	"sort"
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

// naiveDChoiceIndex is d-choice with ties to the lowest bin index.
func naiveDChoiceIndex(loads []int, m, d int) {
	n := len(loads)
	for range m {
		best := rand.IntN(n)
		for k := 1; k < d; k++ {
			if j := rand.IntN(n); loads[j] < loads[best] || loads[j] == loads[best] && j < best {
				best = j
			}
		}
		loads[best]++
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

// naiveWeighted draws a bin by binary search on cumulative weights: what
// one writes first for unequal probabilities.
type naiveWeighted struct{ cum []float64 }

func newNaiveWeighted(n int, w func(i int) float64) naiveWeighted {
	cum := make([]float64, n)
	t := 0.0
	for i := range cum {
		t += w(i)
		cum[i] = t
	}
	return naiveWeighted{cum}
}

func (nw naiveWeighted) draw() int {
	return sort.SearchFloat64s(nw.cum, rand.Float64()*nw.cum[len(nw.cum)-1])
}

func zipfWeight(s float64) func(int) float64 {
	return func(i int) float64 { return math.Pow(float64(i+1), -s) }
}

func naiveTwoChoiceWeighted(loads []int, m int, w func(int) float64) {
	nw := newNaiveWeighted(len(loads), w)
	for range m {
		i, j := nw.draw(), nw.draw()
		if loads[j] < loads[i] {
			i = j
		}
		loads[i]++
	}
}

func naiveOnePlusBetaWeighted(loads []int, m int, beta float64, w func(int) float64) {
	nw := newNaiveWeighted(len(loads), w)
	for range m {
		i := nw.draw()
		if rand.Float64() < beta {
			if j := nw.draw(); loads[j] < loads[i] {
				i = j
			}
		}
		loads[i]++
	}
}

func naiveDChoiceWeighted(loads []int, m, d int, w func(int) float64) {
	nw := newNaiveWeighted(len(loads), w)
	for range m {
		best := nw.draw()
		for k := 1; k < d; k++ {
			if j := nw.draw(); loads[j] < loads[best] {
				best = j
			}
		}
		loads[best]++
	}
}

// naiveTwoChoiceWeightedDistinct redraws a second sample equal to the
// first and breaks ties by a coin.
func naiveTwoChoiceWeightedDistinct(loads []int, m int, w func(int) float64) {
	nw := newNaiveWeighted(len(loads), w)
	for range m {
		i, j := nw.draw(), nw.draw()
		for j == i {
			j = nw.draw()
		}
		if loads[j] < loads[i] || loads[j] == loads[i] && rand.IntN(2) == 1 {
			i = j
		}
		loads[i]++
	}
}

// naiveQuantileDraws is naiveQuantile (naive_loops_test.go) with the
// samples of draw, and with distinct a second sample equal to the first
// drawn again.
func naiveQuantileDraws(loads []int, m int, delta float64, draw func() int, distinct bool) {
	n := len(loads)
	k := int(math.Ceil(delta * float64(n)))
	count := []int{n}
	for range m {
		i := draw()
		above := 0
		for v := loads[i] + 1; v < len(count); v++ {
			above += count[v]
		}
		if e := count[loads[i]]; above < k && (above+e <= k || rand.IntN(e) < k-above) {
			j := draw()
			for distinct && j == i {
				j = draw()
			}
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

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

var samplingCases = []benchCase{
	// The defaults, whose loops the options leave as they were.
	{"two-choice", "two-choice", nil, func(l []int, m int) { naiveDChoice(l, m, 2) }, nil, nil},
	{"d-choice-d3", "d-choice", map[string]string{"d": "3"}, func(l []int, m int) { naiveDChoice(l, m, 3) }, nil, nil},
	{"one-plus-beta-0.5", "one-plus-beta", map[string]string{"beta": "0.5"}, func(l []int, m int) { naiveOnePlusBeta(l, m, 0.5) }, nil, nil},
	{"quantile-0.5", "quantile", map[string]string{"delta": "0.5"}, func(l []int, m int) { naiveQuantile(l, m, 0.5) }, nil, nil},
	{"two-choice-ties-index", "two-choice", map[string]string{"ties": "index"},
		func(l []int, m int) { naiveTwoChoiceIndex(l, m) }, nil, nil},
	{"one-plus-beta-0.5-ties-index", "one-plus-beta", map[string]string{"beta": "0.5", "ties": "index"},
		func(l []int, m int) { naiveOnePlusBetaIndex(l, m, 0.5) }, nil, nil},
	{"d-choice-d3-ties-index", "d-choice", map[string]string{"d": "3", "ties": "index"},
		func(l []int, m int) { naiveDChoiceIndex(l, m, 3) }, nil, nil},
	{"two-choice-distinct", "two-choice", map[string]string{"distinct": "true"},
		func(l []int, m int) { naiveDChoiceDistinct(l, m, 2) }, nil, nil},
	{"d-choice-d3-distinct", "d-choice", map[string]string{"d": "3", "distinct": "true"},
		func(l []int, m int) { naiveDChoiceDistinct(l, m, 3) }, nil, nil},
	{"one-plus-beta-0.5-distinct", "one-plus-beta", map[string]string{"beta": "0.5", "distinct": "true"},
		func(l []int, m int) { naiveOnePlusBetaDistinct(l, m, 0.5) }, nil, nil},
	{"two-choice-zipf1", "two-choice", map[string]string{"sampling": "zipf:1"},
		func(l []int, m int) { naiveTwoChoiceWeighted(l, m, zipfWeight(1)) }, nil, nil},
	{"d-choice-d3-zipf1", "d-choice", map[string]string{"d": "3", "sampling": "zipf:1"},
		func(l []int, m int) { naiveDChoiceWeighted(l, m, 3, zipfWeight(1)) }, nil, nil},
	{"one-plus-beta-0.5-zipf1", "one-plus-beta", map[string]string{"beta": "0.5", "sampling": "zipf:1"},
		func(l []int, m int) { naiveOnePlusBetaWeighted(l, m, 0.5, zipfWeight(1)) }, nil, nil},
	{"quantile-0.5-distinct", "quantile", map[string]string{"delta": "0.5", "distinct": "true"},
		func(l []int, m int) { naiveQuantileDraws(l, m, 0.5, func() int { return rand.IntN(len(l)) }, true) }, nil, nil},
	// A law quantile keeps balanced: under zipf:1 the loads spread by m/n
	// and the naive rank test's walk over the counts grows with them.
	{"quantile-0.5-twoclass", "quantile", map[string]string{"delta": "0.5", "sampling": "twoclass:0.5,2"},
		func(l []int, m int) {
			naiveQuantileDraws(l, m, 0.5, newNaiveWeighted(len(l), func(i int) float64 { return float64(1 + b2i(i < len(l)/2)) }).draw, false)
		}, nil, nil},
	{"two-choice-zipf1-distinct", "two-choice", map[string]string{"sampling": "zipf:1", "distinct": "true"},
		func(l []int, m int) { naiveTwoChoiceWeightedDistinct(l, m, zipfWeight(1)) }, nil, nil},
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

// The default rows (two-choice, d-choice-d3, one-plus-beta-0.5, quantile-0.5)
// run the loops the options leave untouched: to compare before and after a
// change, build this file's test binary in both trees (go test -c) and run
// them in turn, -test.bench 'Sampling/(two-choice|d-choice-d3|one-plus-beta-0.5)/direct'.

// BenchmarkSampling runs each option on the direct engine (and --distinct
// on the histogram engine) and its naive loop, at n = 10^4, interleaved.
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
		if c.params["distinct"] == "true" && c.params["sampling"] == "" {
			b.Run(c.name+"/histogram", func(b *testing.B) {
				s, err := core.NewSpec(c.process, c.params, core.Common{Bins: n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineHistogram})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				start := cpuTime()
				engine.RunTrial(s, 0, nil)
				reportCPU(b, start)
			})
		}
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
