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

// τ-Delay as a setting of d-choice, one-plus-beta, quantile and
// two-thinning, and two-thinning in batches, at n = 10^4 with τ = b = n:
// balloc's direct engine beside the naive loop of each, in one benchmark so
// that -count interleaves them.
//
//	go test ./bench -run '^$' -bench DelayAny -benchtime 2000000x -count 3

// Naive delayed loops, with the rules of core/process/delay.go.

// naiveDelayFixed keeps the loads τ balls ago and a ring of bins; pick
// chooses the bin from the past loads.
func naiveDelayFixed(loads []int, m, tau int, pick func(past []int, t int) int) {
	past := make([]int, len(loads))
	ring := make([]int, tau)
	for t := range m {
		i := pick(past, t)
		loads[i]++
		if t >= tau {
			past[ring[t%tau]]++
		}
		ring[t%tau] = i
	}
}

func naiveDChoiceFixed(loads []int, m, d, tau int) {
	n := len(loads)
	naiveDelayFixed(loads, m, tau, func(past []int, _ int) int {
		best := rand.IntN(n)
		for k := 1; k < d; k++ {
			if j := rand.IntN(n); past[j] < past[best] {
				best = j
			}
		}
		return best
	})
}

func naiveOnePlusBetaFixed(loads []int, m int, beta float64, tau int) {
	n := len(loads)
	naiveDelayFixed(loads, m, tau, func(past []int, _ int) int {
		i := rand.IntN(n)
		if rand.Float64() < beta {
			if j := rand.IntN(n); past[j] < past[i] {
				i = j
			}
		}
		return i
	})
}

func naiveTwoThinningFixed(loads []int, m int, theta float64, tau int) {
	n := len(loads)
	naiveDelayFixed(loads, m, tau, func(past []int, t int) int {
		i := rand.IntN(n)
		if float64(past[i]) >= float64(t)/float64(n)+theta {
			i = rand.IntN(n)
		}
		return i
	})
}

// naiveDChoiceAdversarial tries each sample shown τ balls ago against the
// others shown now, and keeps the heaviest that wins.
func naiveDChoiceAdversarial(loads []int, m, d, tau int) {
	n := len(loads)
	s := make([]int, d)
	naiveDelayFixed(loads, m, tau, func(past []int, _ int) int {
		for k := range s {
			s[k] = rand.IntN(n)
		}
		best := -1
		for h := range s {
			w, rw := 0, -1
			for q, j := range s {
				r := loads[j]
				if q == h {
					r = past[j]
				}
				if rw < 0 || r < rw {
					w, rw = q, r
				}
			}
			if w == h && (best < 0 || loads[s[h]] > loads[s[best]]) {
				best = h
			}
		}
		return s[best]
	})
}

// naiveQuantileFixed ranks the sampled bin among the loads τ balls ago by
// summing the counts per load above it, as naiveQuantile does now; the
// counts follow the past loads.
func naiveQuantileFixed(loads []int, m int, delta float64, tau int) {
	n := len(loads)
	k := int(math.Ceil(delta * float64(n)))
	count := []int{n}
	past := make([]int, n)
	ring := make([]int, tau)
	for t := range m {
		i := rand.IntN(n)
		above := 0
		for v := past[i] + 1; v < len(count); v++ {
			above += count[v]
		}
		if e := count[past[i]]; above < k && (above+e <= k || rand.IntN(e) < k-above) {
			i = rand.IntN(n)
		}
		loads[i]++
		if t >= tau {
			u := ring[t%tau]
			count[past[u]]--
			if past[u]++; past[u] == len(count) {
				count = append(count, 0)
			}
			count[past[u]]++
		}
		ring[t%tau] = i
	}
}

// naiveUniform keeps every bin's allocation times and finds a read's load
// by binary search; pick chooses the bin from loadAt(i, a).
func naiveUniform(loads []int, m int, pick func(loadAt func(i, a int) int, t int) int) {
	times := make([][]int, len(loads))
	for t := range m {
		i := pick(func(i, a int) int { return sort.SearchInts(times[i], t-a) }, t)
		loads[i]++
		times[i] = append(times[i], t)
	}
}

func naiveDChoiceUniform(loads []int, m, d, tau int) {
	n := len(loads)
	naiveUniform(loads, m, func(loadAt func(i, a int) int, _ int) int {
		best := rand.IntN(n)
		bl := loadAt(best, rand.IntN(tau+1))
		for k := 1; k < d; k++ {
			j := rand.IntN(n)
			if lj := loadAt(j, rand.IntN(tau+1)); lj < bl {
				best, bl = j, lj
			}
		}
		return best
	})
}

func naiveTwoThinningUniform(loads []int, m int, theta float64, tau int) {
	n := len(loads)
	naiveUniform(loads, m, func(loadAt func(i, a int) int, t int) int {
		i := rand.IntN(n)
		if float64(loadAt(i, rand.IntN(tau+1))) >= float64(t)/float64(n)+theta {
			i = rand.IntN(n)
		}
		return i
	})
}

// naiveTwoThinningBatch copies the loads at each batch start and compares
// with the average then.
func naiveTwoThinningBatch(loads []int, m int, theta float64, b int) {
	n := len(loads)
	frozen := make([]int, n)
	limit := 0.0
	for t := range m {
		if t%b == 0 {
			copy(frozen, loads)
			limit = float64(t)/float64(n) + theta
		}
		i := rand.IntN(n)
		if float64(frozen[i]) >= limit {
			i = rand.IntN(n)
		}
		loads[i]++
	}
}

func BenchmarkDelayAny(b *testing.B) {
	const n = 10_000
	tau := fmt.Sprint(n)
	for _, c := range []struct {
		name    string
		process string
		params  map[string]string
		naive   func(loads []int, m int)
	}{
		{"d-choice-d3-fixed", "d-choice", map[string]string{"d": "3", "tau": tau},
			func(l []int, m int) { naiveDChoiceFixed(l, m, 3, n) }},
		{"d-choice-d3-uniform", "d-choice", map[string]string{"d": "3", "tau": tau, "delay": "uniform"},
			func(l []int, m int) { naiveDChoiceUniform(l, m, 3, n) }},
		{"d-choice-d3-adversarial", "d-choice", map[string]string{"d": "3", "tau": tau, "delay": "adversarial"},
			func(l []int, m int) { naiveDChoiceAdversarial(l, m, 3, n) }},
		{"one-plus-beta-0.5-fixed", "one-plus-beta", map[string]string{"beta": "0.5", "tau": tau},
			func(l []int, m int) { naiveOnePlusBetaFixed(l, m, 0.5, n) }},
		{"quantile-0.5-fixed", "quantile", map[string]string{"delta": "0.5", "tau": tau},
			func(l []int, m int) { naiveQuantileFixed(l, m, 0.5, n) }},
		{"two-thinning-1-fixed", "two-thinning", map[string]string{"threshold": "1", "tau": tau},
			func(l []int, m int) { naiveTwoThinningFixed(l, m, 1, n) }},
		{"two-thinning-1-uniform", "two-thinning", map[string]string{"threshold": "1", "tau": tau, "delay": "uniform"},
			func(l []int, m int) { naiveTwoThinningUniform(l, m, 1, n) }},
		{"two-thinning-1-batch", "two-thinning", map[string]string{"threshold": "1", "batch": tau},
			func(l []int, m int) { naiveTwoThinningBatch(l, m, 1, n) }},
	} {
		b.Run(c.name+"/direct", func(b *testing.B) {
			s, err := core.NewSpec(c.process, c.params, core.Common{Bins: n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1})
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
