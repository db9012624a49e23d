package graph

import (
	"fmt"
	"strings"
)

// Stats describes a graph as balloc reports it before a run: its size, the
// range of its degrees, and whether it is connected and simple.
type Stats struct {
	N, E                 uint64
	MinDegree, MaxDegree uint64 // as Degree counts them: a self-loop once
	Regular              bool   // every vertex has the same degree
	Components           uint64 // connected components, isolated vertices included
	SelfLoops            uint64 // edges {v, v}
	MultiEdges           uint64 // edges beyond the first between the same two vertices
}

// Connected reports whether the graph has one component.
func (s Stats) Connected() bool { return s.Components == 1 }

// Simple reports whether the graph has no self-loop and no repeated edge.
func (s Stats) Simple() bool { return s.SelfLoops == 0 && s.MultiEdges == 0 }

// Stats computes g's statistics: in closed form for the implicit families,
// in O(N + E) for the others.
func (g *Graph) Stats() Stats {
	s := Stats{N: g.N, E: g.E, Components: 1}
	if g.Family != Explicit {
		// Every implicit family is simple and connected (sides ≥ 3, n ≥ 3 for
		// a cycle); only the path has two degrees.
		s.MinDegree, s.MaxDegree = g.Degree(0), g.Degree(0)
		if g.Family == Path && g.N > 2 {
			s.MaxDegree = 2
		}
		s.Regular = s.MinDegree == s.MaxDegree
		return s
	}
	s.MinDegree = ^uint64(0)
	for v := range g.N {
		deg := g.Offsets[v+1] - g.Offsets[v]
		s.MinDegree = min(s.MinDegree, deg)
		s.MaxDegree = max(s.MaxDegree, deg)
	}
	if g.N == 0 {
		s.MinDegree = 0
	}
	s.Regular = s.MinDegree == s.MaxDegree

	// Repeated edges: each edge {u ≤ w} appears once in u's list among the
	// entries w ≥ u; stamping marks the ones already seen from u.
	stamp := make([]uint32, g.N)
	for u := range g.N {
		tag := uint32(u) + 1
		for _, w := range g.Adj[g.Offsets[u]:g.Offsets[u+1]] {
			if uint64(w) < u {
				continue
			}
			if uint64(w) == u {
				s.SelfLoops++
			}
			if stamp[w] == tag {
				s.MultiEdges++
			}
			stamp[w] = tag
		}
	}

	// Components by union–find with path halving.
	parent := stamp // reuse: stamp is done
	for v := range parent {
		parent[v] = uint32(v)
	}
	find := func(v uint32) uint32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	s.Components = g.N
	for e := 0; e < len(g.Edges); e += 2 {
		a, b := find(g.Edges[e]), find(g.Edges[e+1])
		if a != b {
			parent[max(a, b)] = min(a, b)
			s.Components--
		}
	}
	return s
}

// String writes the statistics on one line.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "n = %d vertices, %d edges, ", s.N, s.E)
	if s.Regular {
		fmt.Fprintf(&b, "%d-regular", s.MinDegree)
	} else {
		fmt.Fprintf(&b, "degrees %d–%d", s.MinDegree, s.MaxDegree)
	}
	if s.Connected() {
		b.WriteString(", connected")
	} else {
		fmt.Fprintf(&b, ", %d components (not connected)", s.Components)
	}
	if s.Simple() {
		b.WriteString(", simple")
	} else {
		fmt.Fprintf(&b, ", %d self-loops, %d repeated edges", s.SelfLoops, s.MultiEdges)
	}
	return b.String()
}
