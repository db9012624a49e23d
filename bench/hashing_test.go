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

// bounded-hashing beside the loop one writes first, in the same run:
//
//	go test ./bench/ -run '^$' -bench 'Hashing' -benchtime 2000000x -count 3

var hashingCases = []struct {
	name   string
	n      uint64
	c      float64
	vnodes int
}{
	{"c=1.1", 1000, 1.1, 1},
	{"c=1.25", 1000, 1.25, 1},
	{"c=2", 1000, 2, 1},
	{"c=1.25-vnodes=100", 1000, 1.25, 100},
	{"c=1.25", 100_000, 1.25, 1},
}

// naiveHashing draws the ring (rand.Uint64 a point, sorted), finds each
// ball's first point by binary search (sort.Search) and walks it with the
// capacity ⌈c(t+1)/n⌉ in floating point, counting the probes.
func naiveHashing(loads []int, m int, c float64, v int) (probes, most int) {
	n := len(loads)
	type node struct {
		pos uint64
		bin int
	}
	ring := make([]node, 0, n*v)
	for b := range n {
		for range v {
			ring = append(ring, node{rand.Uint64(), b})
		}
	}
	sort.Slice(ring, func(i, j int) bool { return ring[i].pos < ring[j].pos })
	for t := range m {
		limit := math.Ceil(c * float64(t+1) / float64(n))
		u := rand.Uint64()
		i := sort.Search(len(ring), func(i int) bool { return ring[i].pos >= u })
		k := 1
		for i %= len(ring); float64(loads[ring[i].bin]) >= limit; i = (i + 1) % len(ring) {
			k++
		}
		loads[ring[i].bin]++
		probes, most = probes+k, max(most, k)
	}
	return probes, most
}

func BenchmarkHashing(b *testing.B) {
	for _, c := range hashingCases {
		b.Run(fmt.Sprintf("%s/n=%d", c.name, c.n), func(b *testing.B) {
			s, err := core.NewSpec("bounded-hashing", map[string]string{"c": fmt.Sprint(c.c), "vnodes": fmt.Sprint(c.vnodes)},
				core.Common{Bins: c.n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start := cpuTime()
			engine.RunTrial(s, 0, nil)
			reportCPU(b, start)
		})
	}
}

func BenchmarkHashingNaive(b *testing.B) {
	for _, c := range hashingCases {
		b.Run(fmt.Sprintf("%s/n=%d", c.name, c.n), func(b *testing.B) {
			start := cpuTime()
			naiveHashing(make([]int, c.n), b.N, c.c, c.vnodes)
			reportCPU(b, start)
		})
	}
}
