package bench

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// --tau n --delay fixed for threshold, adaptive, twinning, packing and
// kd-choice (core/process/delay.go) beside the delayed loop one writes
// first: math/rand/v2, []int loads, the loads τ balls ago kept with a ring
// of bins (naiveDelaySteps, naiveDelayFixed's for steps of several balls),
// limits and averages as float64 divisions, kd-choice's slots sorted. One
// trial of b.N balls at n = 10^4, τ = n.

// naiveDelaySteps: pick returns a step's bins from the loads τ balls ago
// and t; every ball enters the ring.
func naiveDelaySteps(loads []int, m, tau int, pick func(past []int, t int) []int) {
	past := make([]int, len(loads))
	ring := make([]int, tau)
	var owed []int
	for t := range m {
		if len(owed) == 0 {
			owed = pick(past, t)
		}
		i := owed[0]
		owed = owed[1:]
		loads[i]++
		if t >= tau {
			past[ring[t%tau]]++
		}
		ring[t%tau] = i
	}
}

func naiveTwinningDelay(l []int, m, tau int, packing bool) {
	n := len(l)
	naiveDelaySteps(l, m, tau, func(past []int, t int) []int {
		i := rand.IntN(n)
		avg := float64(t) / float64(n)
		a := 1
		if float64(past[i]) < avg {
			a = 2
			if packing {
				a = (t+n-1)/n + 1 - past[i] // raised to ⌈t/n⌉ + 1
			}
		}
		out := make([]int, a)
		for j := range out {
			out[j] = i
		}
		return out
	})
}

var tau2Cases = []struct {
	name    string
	process string
	params  map[string]string
	naive   func(loads []int, m, tau int)
}{
	{"threshold", "threshold", nil, func(l []int, m, tau int) {
		n := len(l)
		limit := float64(m)/float64(n) + 1
		naiveDelayFixed(l, m, tau, func(past []int, _ int) int {
			for {
				if i := rand.IntN(n); float64(past[i]) < limit {
					return i
				}
			}
		})
	}},
	{"adaptive", "adaptive", nil, func(l []int, m, tau int) {
		n := len(l)
		naiveDelayFixed(l, m, tau, func(past []int, t int) int {
			for {
				if i := rand.IntN(n); float64(past[i]) < float64(t+1)/float64(n)+1 {
					return i
				}
			}
		})
	}},
	{"twinning", "twinning", nil, func(l []int, m, tau int) { naiveTwinningDelay(l, m, tau, false) }},
	{"packing", "packing", nil, func(l []int, m, tau int) { naiveTwinningDelay(l, m, tau, true) }},
	{"kd-choice-2,4", "kd-choice", map[string]string{"k": "2", "d": "4"}, func(l []int, m, tau int) {
		n := len(l)
		naiveDelaySteps(l, m, tau, func(past []int, _ int) []int {
			slots := make([]int, 4)
			for j := range slots {
				slots[j] = rand.IntN(n)
			}
			sort.SliceStable(slots, func(a, b int) bool { return past[slots[a]] < past[slots[b]] })
			return slots[:2]
		})
	}},
}

// BenchmarkTau2: one trial of b.N balls through engine.RunTrial.
func BenchmarkTau2(b *testing.B) {
	for _, c := range tau2Cases {
		b.Run(c.name, func(b *testing.B) {
			p := map[string]string{"tau": fmt.Sprint(batchAnyBins)}
			for k, v := range c.params {
				p[k] = v
			}
			s, err := core.NewSpec(c.process, p, core.Common{Bins: batchAnyBins, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			engine.RunTrial(s, 0, nil)
			report(b)
		})
	}
}

// BenchmarkTau2Naive: the naive delayed loop for b.N balls.
func BenchmarkTau2Naive(b *testing.B) {
	for _, c := range tau2Cases {
		b.Run(c.name, func(b *testing.B) {
			c.naive(make([]int, batchAnyBins), b.N, batchAnyBins)
			report(b)
		})
	}
}
