package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/graph"
)

// The processes on graphs and hypergraphs at n ≈ 10^4, single-threaded,
// beside naive loops over the same structures (math/rand/v2, []int loads, an
// explicit edge or hyperedge list, a coin per tie).

var graphCases = []struct {
	name    string
	process string
	bins    uint64 // 0: the graph fixes it
	params  map[string]string
}{
	{"graphical-cycle", "graphical", 0, map[string]string{"graph": "cycle:10000"}},
	{"graphical-torus", "graphical", 0, map[string]string{"graph": "torus:100,100"}},
	{"graphical-hypercube", "graphical", 0, map[string]string{"graph": "hypercube:13"}},
	{"graphical-random-regular-8", "graphical", 0, map[string]string{"graph": "random-regular:10000,8"}},
	{"kp-groups-k4", "kp-groups", 10_000, map[string]string{"group-size": "4"}},
	{"hypergraph-d2-k14", "hypergraph", 10_000, map[string]string{"hyperedges": "random:10000,14"}},
}

func graphSpec(b *testing.B, process string, bins uint64, params map[string]string, balls uint64) *core.Spec {
	s, err := core.NewSpec(process, params, core.Common{Bins: bins, Balls: balls, Trials: 1, Seed: 1, Alpha: 1})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkGraphs: one trial of b.N balls through engine.RunTrial.
func BenchmarkGraphs(b *testing.B) {
	for _, c := range graphCases {
		b.Run(c.name, func(b *testing.B) {
			s := graphSpec(b, c.process, c.bins, c.params, uint64(b.N))
			b.ResetTimer()
			engine.RunTrial(s, 0, nil)
			report(b)
		})
	}
}

// BenchmarkGraphsNaive: the naive loop on the same structure.
func BenchmarkGraphsNaive(b *testing.B) {
	for _, c := range graphCases {
		b.Run(c.name, func(b *testing.B) {
			s := graphSpec(b, c.process, c.bins, c.params, 1)
			loads := make([]int, s.Bins)
			b.ResetTimer()
			switch c.process {
			case "graphical":
				g, err := s.Graph().Materialize()
				if err != nil {
					b.Fatal(err)
				}
				naiveGraphical(loads, b.N, g.Edges)
			case "kp-groups":
				naiveKPGroups(loads, b.N, 4)
			case "hypergraph":
				h := s.Hypergraph()
				naiveHypergraph(loads, b.N, h.Members, int(h.K))
			default:
				panic(fmt.Sprint("no naive loop for ", c.process))
			}
			report(b)
		})
	}
}

func naiveGraphical(loads []int, m int, edges []uint32) {
	e := len(edges) / 2
	for range m {
		k := rand.IntN(e)
		u, v := edges[2*k], edges[2*k+1]
		if loads[v] < loads[u] || loads[v] == loads[u] && rand.IntN(2) == 1 {
			u = v
		}
		loads[u]++
	}
}

func naiveKPGroups(loads []int, m, k int) {
	groups := len(loads) / k
	sum := func(g int) (s int) {
		for _, l := range loads[g*k : (g+1)*k] {
			s += l
		}
		return s
	}
	for range m {
		a, b := rand.IntN(groups), rand.IntN(groups)
		if sb, sa := sum(b), sum(a); sb < sa || sb == sa && rand.IntN(2) == 1 {
			a = b
		}
		best := a * k
		for i := a*k + 1; i < (a+1)*k; i++ {
			if loads[i] < loads[best] {
				best = i
			}
		}
		loads[best]++
	}
}

func naiveHypergraph(loads []int, m int, members []uint32, k int) {
	s := len(members) / k
	for range m {
		e := rand.IntN(s)
		p := rand.IntN(k)
		q := rand.IntN(k - 1)
		if q >= p {
			q++
		}
		i, j := members[e*k+p], members[e*k+q]
		if loads[j] < loads[i] {
			i = j
		}
		loads[i]++
	}
}

var _ = graph.Families
