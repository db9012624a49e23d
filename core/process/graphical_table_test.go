package process_test

import (
	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/internal/proctable"
	"github.com/balloc/balloc/kernels"
)

// Graphical's rows: the slow loop on graphs of the battery's 12 bins (the
// cycle's and torus's own loops, the complete graph's general one, an edge
// list drawn from the seed, and (1+β)), the exact law on graphs of 3 and 4
// vertices. --strategy haar has no row: its next bin depends on the plan's
// tables (core/haar), whose own tests check its drifts.
func init() {
	greedy := map[string]string{}
	table = append(table,
		proctable.Row{Process: "graphical", Params: graphParams("cycle:12", greedy), Slow: slowGraphical("cycle:12", -1)},
		proctable.Row{Process: "graphical", Params: graphParams("torus:3,4", greedy), Slow: slowGraphical("torus:3,4", -1)},
		proctable.Row{Process: "graphical", Params: graphParams("complete:12", greedy), Slow: slowGraphical("complete:12", -1)},
		proctable.Row{Process: "graphical", Params: graphParams("random-regular:12,3", greedy), Slow: slowGraphical("random-regular:12,3", -1)},
		proctable.Row{Process: "graphical", Params: graphParams("cycle:12", map[string]string{"strategy": "one-plus-beta", "beta": "0.5"}), Slow: slowGraphical("cycle:12", 0.5)},
		proctable.Row{Process: "graphical", Params: graphParams("cycle:3", greedy), Law: graphicalLaw("cycle:3", 1), N: 3, M: 6},
		proctable.Row{Process: "graphical", Params: graphParams("path:4", greedy), Law: graphicalLaw("path:4", 1), N: 4, M: 5},
		proctable.Row{Process: "graphical", Params: graphParams("path:3", map[string]string{"strategy": "one-plus-beta", "beta": "0.25"}), Law: graphicalLaw("path:3", 0.25), N: 3, M: 6},
	)
}

func graphParams(spec string, more map[string]string) map[string]string {
	p := map[string]string{"graph": spec}
	for k, v := range more {
		p[k] = v
	}
	return p
}

// parseGraph is the graph of spec as a run of seed builds it (a random
// graph is drawn from the seed's structure stream).
func parseGraph(spec string, seed uint64) *graph.Graph {
	g, err := graph.Parse(spec, graph.Options{Seed: seed})
	if err != nil {
		panic(err)
	}
	return g
}

// slowGraphical: a uniform edge (u, v) of the graph (core/graph's
// numbering); with β ≥ 0, a β coin says whether the step is greedy; then
// one fair coin, the next bit of a 32-bit output (low bit first, a fresh
// output when the last is spent), drawn on every ball. A greedy ball takes
// the less loaded endpoint, v on a tie when the coin is 1; a non-greedy
// one takes v when the coin is 1, else u. β < 0: greedy, no β coin.
func slowGraphical(spec string, beta float64) func([]uint64, proctable.Trial, uint64) {
	var g *graph.Graph
	var word, left uint32
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		if t == 0 {
			g, word, left = parseGraph(spec, tr.Seed), 0, 0
		}
		u, v := g.Edge(uint64(tr.Choices.Bounded(uint32(g.E))))
		greedy := true
		if beta >= 0 {
			coin, err := kernels.NewBernoulli(beta)
			if err != nil {
				panic(err)
			}
			greedy = coin.Flip(tr.Choices)
		}
		if left == 0 {
			word, left = tr.Choices.Uint32(), 32
		}
		heads := word&1 == 1
		word, left = word>>1, left-1
		pick := u
		switch {
		case !greedy:
			if heads {
				pick = v
			}
		case loads[v] < loads[u], loads[v] == loads[u] && heads:
			pick = v
		}
		loads[pick]++
	}
}

// graphicalLaw: each edge 1/E; with probability β its less loaded
// endpoint (half each on a tie), else either endpoint, half each.
func graphicalLaw(spec string, beta float64) proctable.Transition {
	g := parseGraph(spec, 1)
	return func(loads []int, _ int) []float64 {
		p := make([]float64, g.N)
		w := 1 / float64(g.E)
		for e := range g.E {
			u, v := g.Edge(e)
			switch {
			case loads[u] < loads[v]:
				p[u] += beta * w
			case loads[v] < loads[u]:
				p[v] += beta * w
			default:
				p[u] += beta * w / 2
				p[v] += beta * w / 2
			}
			p[u] += (1 - beta) * w / 2
			p[v] += (1 - beta) * w / 2
		}
		return p
	}
}
