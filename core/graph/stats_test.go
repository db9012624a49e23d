package graph

import (
	"fmt"
	"testing"

	"github.com/balloc/balloc/kernels"
)

// slowStats is the obvious computation of Stats from Edge(e) alone: degrees
// by counting endpoints (a self-loop once, as Degree counts it), repeats by
// a map of unordered pairs, components by breadth-first search.
func slowStats(g *Graph) Stats {
	s := Stats{N: g.N, E: g.E}
	deg := make([]uint64, g.N)
	seen := map[[2]uint64]bool{}
	adj := make([][]uint64, g.N)
	for e := range g.E {
		u, v := g.Edge(e)
		deg[u]++
		if u != v {
			deg[v]++
		} else {
			s.SelfLoops++
		}
		key := [2]uint64{min(u, v), max(u, v)}
		if seen[key] {
			s.MultiEdges++
		}
		seen[key] = true
		adj[u] = append(adj[u], v)
		adj[v] = append(adj[v], u)
	}
	if g.N > 0 {
		s.MinDegree, s.MaxDegree = deg[0], deg[0]
	}
	for _, k := range deg {
		s.MinDegree = min(s.MinDegree, k)
		s.MaxDegree = max(s.MaxDegree, k)
	}
	s.Regular = s.MinDegree == s.MaxDegree
	visited := make([]bool, g.N)
	for r := range g.N {
		if visited[r] {
			continue
		}
		s.Components++
		visited[r] = true
		queue := []uint64{r}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, w := range adj[v] {
				if !visited[w] {
					visited[w] = true
					queue = append(queue, w)
				}
			}
		}
	}
	return s
}

// TestStatsImplicit: each implicit family's closed-form Stats equal the
// computed Stats of its Materialize twin and the slow computation, and say
// what the family is: connected, simple, regular but for a path of 3 or more.
func TestStatsImplicit(t *testing.T) {
	var graphs []*Graph
	add := func(g *Graph, err error) {
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, g)
	}
	for _, n := range []uint64{3, 4, 5, 10} {
		add(newCycle(fmt.Sprintf("cycle:%d", n), n))
	}
	for _, n := range []uint64{2, 3, 4, 9} {
		add(newPath(fmt.Sprintf("path:%d", n), n))
	}
	for _, sides := range [][]uint64{{3}, {4}, {3, 3}, {3, 4}, {5, 3, 4}, {3, 3, 3, 3}} {
		add(newTorus(fmt.Sprintf("torus:%v", sides), sides))
	}
	for _, k := range []uint64{1, 2, 3, 6} {
		add(newHypercube(fmt.Sprintf("hypercube:%d", k), k))
	}
	for _, n := range []uint64{2, 3, 4, 5, 8, 9} {
		add(newComplete(fmt.Sprintf("complete:%d", n), n))
	}
	for _, g := range graphs {
		s := g.Stats()
		m, err := g.Materialize()
		if err != nil {
			t.Fatal(err)
		}
		if ms, slow := m.Stats(), slowStats(g); s != ms || s != slow {
			t.Errorf("%s: closed form %+v, materialized %+v, slow %+v", g.Spec, s, ms, slow)
		}
		wantRegular := !(g.Family == Path && g.N > 2)
		if s.Components != 1 || !s.Simple() || s.Regular != wantRegular {
			t.Errorf("%s: %v", g.Spec, s)
		}
	}
}

// TestStatsExplicit compares Stats of explicit graphs with self-loops,
// repeated edges (in either orientation) and several components with the
// slow computation: hand-made cases with their counts written out, and
// random multigraphs.
func TestStatsExplicit(t *testing.T) {
	cases := []struct {
		name  string
		n     uint64
		edges []uint32
		want  Stats
	}{
		{"empty", 0, nil, Stats{Regular: true}},
		{"one vertex", 1, nil, Stats{N: 1, Regular: true, Components: 1}},
		{"isolated", 3, nil, Stats{N: 3, Regular: true, Components: 3}},
		{"loop", 1, []uint32{0, 0}, Stats{N: 1, E: 1, MinDegree: 1, MaxDegree: 1, Regular: true, Components: 1, SelfLoops: 1}},
		// {0,1} three times (once reversed), two loops at 2, the path
		// 3–4–5, and 6 alone: degrees 3 3 2 1 2 1 0.
		{"mixed", 7, []uint32{0, 1, 1, 0, 2, 2, 3, 4, 0, 1, 4, 5, 2, 2}, Stats{
			N: 7, E: 7, MinDegree: 0, MaxDegree: 3, Components: 4, SelfLoops: 2, MultiEdges: 3}},
		// A triangle with one edge doubled and a loop: connected.
		{"triangle", 3, []uint32{0, 1, 1, 2, 2, 0, 2, 1, 1, 1}, Stats{
			N: 3, E: 5, MinDegree: 2, MaxDegree: 4, Components: 1, SelfLoops: 1, MultiEdges: 1}},
	}
	for _, c := range cases {
		g := NewExplicit("file:test", c.n, c.edges, "")
		if s, slow := g.Stats(), slowStats(g); s != c.want || slow != c.want {
			t.Errorf("%s: Stats %+v, slow %+v, want %+v", c.name, s, slow, c.want)
		}
	}

	rng := kernels.NewPCG32(12, 34)
	for trial := range 2000 {
		n := 1 + uint64(rng.Bounded(40))
		m := rng.Bounded(uint32(2 * n))
		edges := make([]uint32, 0, 2*m)
		for e := range m {
			var u, v uint32
			switch {
			case e > 0 && rng.Bounded(5) == 0: // an earlier edge again, either way round
				j := rng.Bounded(e)
				u, v = edges[2*j], edges[2*j+1]
				if rng.Bounded(2) == 0 {
					u, v = v, u
				}
			case rng.Bounded(8) == 0:
				u = rng.Bounded(uint32(n))
				v = u
			default:
				u, v = rng.Bounded(uint32(n)), rng.Bounded(uint32(n))
			}
			edges = append(edges, u, v)
		}
		g := NewExplicit("file:test", n, edges, "")
		if s, slow := g.Stats(), slowStats(g); s != slow {
			t.Fatalf("trial %d, n = %d, edges %v: Stats %+v, slow %+v", trial, n, edges, s, slow)
		}
	}
}

func TestStatsString(t *testing.T) {
	for _, c := range []struct {
		s    Stats
		want string
	}{
		{Stats{N: 10, E: 15, MinDegree: 3, MaxDegree: 3, Regular: true, Components: 1},
			"n = 10 vertices, 15 edges, 3-regular, connected, simple"},
		{Stats{N: 7, E: 7, MaxDegree: 3, Components: 4, SelfLoops: 2, MultiEdges: 3},
			"n = 7 vertices, 7 edges, degrees 0–3, 4 components (not connected), 2 self-loops, 3 repeated edges"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}
