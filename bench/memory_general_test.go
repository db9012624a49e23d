package bench

import (
	"fmt"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// memoryGeneralPairs are (d, K) pairs past d, K ≤ 2: the generated loops
// of d, K ≤ 3 (kernels/memory_stale_loops.go) and the general stale loop.
var memoryGeneralPairs = []struct{ d, k int }{{1, 3}, {2, 3}, {3, 1}, {3, 2}, {3, 3}, {1, 4}, {4, 4}}

// BenchmarkMemoryStaleGeneral: memory --batch n and --tau n (--delay
// fixed) for memoryGeneralPairs through engine.RunTrial beside
// naiveMemoryStale (memory_test.go), at n = 10^4, interleaved, balls per
// CPU second.
//
//	go test ./bench -run '^$' -bench MemoryStaleGeneral -benchtime 0.3s -count 5
func BenchmarkMemoryStaleGeneral(b *testing.B) {
	const n = 10_000
	for _, c := range memoryGeneralPairs {
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
