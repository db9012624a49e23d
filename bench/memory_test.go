package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// naiveMemory is the memory process as one first writes it: math/rand/v2's
// top-level generator, []int loads, the candidates gathered in a reused
// slice, the cache taken as the first k of them after an insertion sort by
// load (stable: ties keep their order; equal in law to random ties).
func naiveMemory(loads []int, m, d, k int) {
	n := len(loads)
	cache := rand.Perm(n)[:k]
	cands := make([]int, 0, d+k)
	for range m {
		cands = append(cands[:0], cache...)
		for range d {
			if j := rand.IntN(n); !slices.Contains(cands, j) {
				cands = append(cands, j)
			}
		}
		best := cands[0]
		for _, j := range cands {
			if loads[j] < loads[best] {
				best = j
			}
		}
		loads[best]++
		for a := 1; a < len(cands); a++ {
			for b := a; b > 0 && loads[cands[b]] < loads[cands[b-1]]; b-- {
				cands[b], cands[b-1] = cands[b-1], cands[b]
			}
		}
		copy(cache, cands[:k])
	}
}

// BenchmarkMemory: one trial of b.N balls through engine.RunTrial beside the
// naive loop, at n = 10^4, for the papers' d = K = 1 and four general cases.
// bench/README.md's ratio rule: compare direct/X with naive/X of one run,
// by balls/cpu-s on a shared machine.
func BenchmarkMemory(b *testing.B) {
	const n = 10_000
	for _, c := range []struct{ d, k int }{{1, 1}, {2, 1}, {1, 2}, {1, 3}, {2, 2}} {
		name := fmt.Sprintf("d%d-k%d/n=1e4", c.d, c.k)
		b.Run("direct/"+name, func(b *testing.B) {
			s, err := core.NewSpec("memory", map[string]string{"d": fmt.Sprint(c.d), "k": fmt.Sprint(c.k)},
				core.Common{Bins: n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := cpuTime()
			engine.RunTrial(s, 0, nil)
			reportCPU(b, start)
		})
		b.Run("naive/"+name, func(b *testing.B) {
			start := cpuTime()
			naiveMemory(make([]int, n), b.N, c.d, c.k)
			reportCPU(b, start)
		})
	}
}

// naiveMemoryStale is memory reading stale loads as one first writes it:
// math/rand/v2, []int loads, the view a second []int (b > 0: copied at
// every batch end; else τ balls old, kept with a ring of bins), every tie
// random by shuffling the candidates before an insertion sort by view —
// the ball to the first, the cache the first k after the ball.
func naiveMemoryStale(loads []int, m, d, k, b, tau int) {
	n := len(loads)
	view := make([]int, n)
	ring := make([]int, max(tau, 1))
	cache := rand.Perm(n)[:k]
	cands := make([]int, 0, d+k)
	sortByView := func() {
		rand.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		for a := 1; a < len(cands); a++ {
			for c := a; c > 0 && view[cands[c]] < view[cands[c-1]]; c-- {
				cands[c], cands[c-1] = cands[c-1], cands[c]
			}
		}
	}
	for t := range m {
		cands = append(cands[:0], cache...)
		for range d {
			if j := rand.IntN(n); !slices.Contains(cands, j) {
				cands = append(cands, j)
			}
		}
		sortByView()
		i := cands[0]
		loads[i]++
		if b > 0 {
			if (t+1)%b == 0 {
				copy(view, loads)
			}
		} else {
			if t >= tau {
				view[ring[t%tau]]++
			}
			ring[t%tau] = i
		}
		sortByView()
		copy(cache, cands[:k])
	}
}

// BenchmarkMemoryStale: memory --batch n and --tau n (--delay fixed) through
// engine.RunTrial beside naiveMemoryStale, at n = 10^4, balls per CPU
// second (bench/README.md).
func BenchmarkMemoryStale(b *testing.B) {
	const n = 10_000
	for _, c := range []struct{ d, k int }{{1, 1}, {2, 1}, {1, 2}, {2, 2}} {
		for _, set := range []string{"batch", "tau"} {
			name := fmt.Sprintf("%s-n/d%d-k%d/n=1e4", set, c.d, c.k)
			b.Run("direct/"+name, func(b *testing.B) {
				s, err := core.NewSpec("memory", map[string]string{"d": fmt.Sprint(c.d), "k": fmt.Sprint(c.k), set: fmt.Sprint(n)},
					core.Common{Bins: n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				start := cpuTime()
				engine.RunTrial(s, 0, nil)
				reportCPU(b, start)
			})
			b.Run("naive/"+name, func(b *testing.B) {
				bb, tau := n, 0
				if set == "tau" {
					bb, tau = 0, n
				}
				start := cpuTime()
				naiveMemoryStale(make([]int, n), b.N, c.d, c.k, bb, tau)
				reportCPU(b, start)
			})
		}
	}
}
