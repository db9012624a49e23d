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
