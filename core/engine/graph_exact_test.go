package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/internal/stattest"
)

// The processes on graphs and hypergraphs against the exact law of the load
// vector (exact_test.go), each transition written from the definition with
// explicit uniform tie-breaking.

// edgeExact: a uniform edge; with probability beta the less loaded endpoint
// (a tie split evenly), else either endpoint with probability 1/2.
func edgeExact(edges [][2]int, n int, beta float64) transition {
	return func(loads []int, _ int) []float64 {
		p := make([]float64, n)
		w := 1 / float64(len(edges))
		for _, e := range edges {
			u, v := e[0], e[1]
			p[u] += (1 - beta) * w / 2
			p[v] += (1 - beta) * w / 2
			switch {
			case loads[u] < loads[v]:
				p[u] += beta * w
			case loads[v] < loads[u]:
				p[v] += beta * w
			default:
				p[u] += beta * w / 2
				p[v] += beta * w / 2
			}
		}
		return p
	}
}

func graphEdges(t *testing.T, spec string) ([][2]int, int) {
	g, err := graph.Parse(spec, graph.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]int
	for e := range g.E {
		u, v := g.Edge(e)
		out = append(out, [2]int{int(u), int(v)})
	}
	return out, int(g.N)
}

// groupsExact: two windows (start pairs from starts, uniform), compared by
// sum or min (a tie split evenly), the leftmost least loaded bin of the
// lesser.
func groupsExact(n, k int, starts [][2]int, byMin bool) transition {
	return func(loads []int, _ int) []float64 {
		p := make([]float64, n)
		value := func(a int) (int, int) { // (sum or min, leftmost argmin)
			sum, best := 0, a
			for i := range k {
				b := (a + i) % n
				sum += loads[b]
				if loads[b] < loads[best] {
					best = b
				}
			}
			if byMin {
				return loads[best], best
			}
			return sum, best
		}
		w := 1 / float64(len(starts))
		for _, st := range starts {
			va, ba := value(st[0])
			vb, bb := value(st[1])
			switch {
			case va < vb:
				p[ba] += w
			case vb < va:
				p[bb] += w
			default:
				p[ba] += w / 2
				p[bb] += w / 2
			}
		}
		return p
	}
}

func alignedStarts(n, k int) [][2]int {
	var out [][2]int
	for a := 0; a < n; a += k {
		for b := 0; b < n; b += k {
			out = append(out, [2]int{a, b})
		}
	}
	return out
}

func disjointStarts(n, k int) [][2]int {
	var out [][2]int
	for a := range n {
		for b := range n {
			if d := (b - a + n) % n; d >= k && d <= n-k {
				out = append(out, [2]int{a, b})
			}
		}
	}
	return out
}

// hyperExact: a uniform hyperedge, then a uniform d-subset of it (or all of
// it), the least loaded bin of those, a tie split evenly.
func hyperExact(n int, edges [][]int, d int, all bool) transition {
	return func(loads []int, _ int) []float64 {
		p := make([]float64, n)
		for _, e := range edges {
			var subsets [][]int
			if all {
				subsets = [][]int{e}
			} else {
				var rec func(from int, cur []int)
				rec = func(from int, cur []int) {
					if len(cur) == d {
						subsets = append(subsets, append([]int(nil), cur...))
						return
					}
					for i := from; i < len(e); i++ {
						rec(i+1, append(cur, e[i]))
					}
				}
				rec(0, nil)
			}
			w := 1 / float64(len(edges)*len(subsets))
			for _, sub := range subsets {
				lo := math.MaxInt
				for _, b := range sub {
					lo = min(lo, loads[b])
				}
				var tied []int
				for _, b := range sub {
					if loads[b] == lo {
						tied = append(tied, b)
					}
				}
				for _, b := range tied {
					p[b] += w / float64(len(tied))
				}
			}
		}
		return p
	}
}

func hyperEdges(h *graph.Hypergraph) [][]int {
	var out [][]int
	var buf []uint64
	for e := range h.S {
		buf = h.Edge(buf[:0], e)
		var edge []int
		for _, b := range buf {
			edge = append(edge, int(b))
		}
		out = append(out, edge)
	}
	return out
}

func TestStructureProcessesMatchExactLaw(t *testing.T) {
	t.Parallel()
	trials := lawTrials(40000)
	path4, _ := graphEdges(t, "path:4")
	cycle4, _ := graphEdges(t, "cycle:4")
	torus33, _ := graphEdges(t, "torus:3,3")
	cube2, _ := graphEdges(t, "hypercube:2")
	k4, _ := graphEdges(t, "complete:4")
	k5, _ := graphEdges(t, "complete:5")
	rand52, err := graph.ParseHyper("random:3,3", 5, graph.Options{Seed: 77})
	if err != nil {
		t.Fatal(err)
	}
	cases := []exactCase{
		{"graphical", map[string]string{"graph": "path:4"}, 4, 6, edgeExact(path4, 4, 1)},
		{"graphical", map[string]string{"graph": "cycle:4"}, 4, 6, edgeExact(cycle4, 4, 1)},
		{"graphical", map[string]string{"graph": "torus:3,3"}, 9, 4, edgeExact(torus33, 9, 1)},
		{"graphical", map[string]string{"graph": "hypercube:2"}, 4, 6, edgeExact(cube2, 4, 1)},
		{"graphical", map[string]string{"graph": "complete:4"}, 4, 6, edgeExact(k4, 4, 1)},
		{"graphical", map[string]string{"graph": "complete:5"}, 5, 5, edgeExact(k5, 5, 1)},
		{"graphical", map[string]string{"graph": "path:4", "strategy": "one-plus-beta", "beta": "0.3"}, 4, 6, edgeExact(path4, 4, 0.3)},
		{"kp-groups", map[string]string{"group-size": "2"}, 4, 6, groupsExact(4, 2, alignedStarts(4, 2), false)},
		{"kp-groups", map[string]string{"group-size": "2", "group-rule": "min"}, 6, 5, groupsExact(6, 2, alignedStarts(6, 2), true)},
		{"kp-groups", map[string]string{"group-size": "3"}, 6, 5, groupsExact(6, 3, alignedStarts(6, 3), false)},
		{"kp-groups", map[string]string{"group-size": "2", "aligned": "false"}, 5, 5, groupsExact(5, 2, disjointStarts(5, 2), false)},
		{"kp-groups", map[string]string{"group-size": "2", "aligned": "false", "group-rule": "min"}, 5, 5, groupsExact(5, 2, disjointStarts(5, 2), true)},
		{"hypergraph", map[string]string{"hyperedges": "intervals:3"}, 4, 6, hyperExact(4, [][]int{{0, 1, 2}, {1, 2, 3}, {2, 3, 0}, {3, 0, 1}}, 2, false)},
		{"hypergraph", map[string]string{"hyperedges": "intervals:3", "d": "3"}, 4, 6, hyperExact(4, [][]int{{0, 1, 2}, {1, 2, 3}, {2, 3, 0}, {3, 0, 1}}, 3, false)},
		{"hypergraph", map[string]string{"hyperedges": "intervals:3", "probe-all": "true"}, 5, 5, hyperExact(5, [][]int{{0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1}}, 0, true)},
		{"hypergraph", map[string]string{"hyperedges": "random:3,3"}, 5, 5, hyperExact(5, hyperEdges(rand52), 2, false)},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s%v/n=%d,m=%d", c.process, c.params, c.n, c.m), func(t *testing.T) {
			seed := uint64(3000 + i)
			if c.params["hyperedges"] == "random:3,3" {
				seed = 77 // the hypergraph is drawn from the run's seed
			}
			law := exactLaw(c.n, c.m, c.law)
			obs := simulateVectors(t, c, trials, seed)
			stat, limit, df := stattest.Law(law, obs, trials)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
		})
	}
}

// The test sees a wrong tie rule: graphical with ties always to the first
// endpoint is refused.
func TestStructureExactLawHasPower(t *testing.T) {
	path4, _ := graphEdges(t, "path:4")
	first := func(loads []int, _ int) []float64 {
		p := make([]float64, 4)
		for _, e := range path4 {
			if loads[e[1]] < loads[e[0]] {
				p[e[1]] += 1.0 / 3
			} else {
				p[e[0]] += 1.0 / 3
			}
		}
		return p
	}
	c := exactCase{"graphical", map[string]string{"graph": "path:4"}, 4, 6, nil}
	stat, limit, _ := stattest.Law(exactLaw(4, 6, first), simulateVectors(t, c, 40000, 5), 40000)
	if stat <= limit {
		t.Errorf("graphical passed against ties to the first endpoint: χ² = %.1f ≤ %.1f", stat, limit)
	}
}
