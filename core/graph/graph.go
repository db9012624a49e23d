package graph

import (
	"fmt"
	"math/bits"
	"slices"
)

// Family is how a graph is stored. The implicit families compute an edge
// from its index and hold no memory per edge; the others hold it in CSR.
type Family int

const (
	Cycle     Family = iota + 1 // implicit: edges (i, i+1 mod n), n ≥ 3
	Path                        // implicit: edges (i, i+1), n ≥ 2
	Torus                       // implicit: a cycle in every dimension, sides ≥ 3
	Hypercube                   // implicit: edges (v, v xor 2^j)
	Complete                    // implicit: every pair, as circulant classes
	Explicit                    // generated or loaded: edge array plus CSR
)

// MaxVertices is the most vertices a graph may have: bins are 32-bit indices.
const MaxVertices = 1<<32 - 1

// Graph is an undirected graph on vertices 0..N-1 (the bins) whose edges are
// numbered 0..E-1. Edge(e) is the canonical numbering, the same for an
// implicit family and its Materialize twin, so that sampling e uniformly
// draws the same edge from either.
type Graph struct {
	Spec   string // as the user wrote it
	Family Family
	N      uint64 // vertices
	E      uint64 // edges

	Sides []uint64 // torus: the side of each dimension, first varying fastest
	K     int      // hypercube: dimension (N = 2^K)

	// Explicit graphs: edge e joins Edges[2e] and Edges[2e+1]; the CSR
	// adjacency of v is Adj[Offsets[v]:Offsets[v+1]], each edge listed at both
	// endpoints (a self-loop once).
	Edges   []uint32
	Offsets []uint64
	Adj     []uint32

	// Origin says how an explicit graph was made: the generator and its
	// guarantees, or the file and what was dropped from it.
	Origin string
}

// Edge returns the endpoints of edge e, 0 ≤ e < E: the slow, obvious
// definition of each family's numbering that the allocation loops follow.
//
//	cycle:   e ↦ (e, e+1 mod n)
//	path:    e ↦ (e, e+1)
//	torus:   e = j·n + v ↦ (v, v + stride_j, wrapping within its cycle), j the dimension
//	hypercube: e = j·n/2 + w ↦ (v, v + 2^j), v = w with a 0 bit inserted at position j
//	complete: e = (k−1)·n + i ↦ (i, i+k mod n) for k < n/2 (all i), and for even n,
//	          k = n/2 with i < n/2; n(n−1)/2 edges in all
func (g *Graph) Edge(e uint64) (u, v uint64) {
	if e >= g.E {
		panic(fmt.Sprintf("graph: edge %d of %d", e, g.E))
	}
	n := g.N
	switch g.Family {
	case Cycle:
		return e, (e + 1) % n
	case Path:
		return e, e + 1
	case Torus:
		j, v := e/n, e%n
		stride := uint64(1)
		for _, s := range g.Sides[:j] {
			stride *= s
		}
		side := g.Sides[j]
		if (v/stride)%side == side-1 {
			return v, v - (side-1)*stride
		}
		return v, v + stride
	case Hypercube:
		half := n / 2
		j, w := e/half, e%half
		low := w & (1<<j - 1)
		v := (w>>j)<<(j+1) | low
		return v, v | 1<<j
	case Complete:
		k, i := e/n+1, e%n
		return i, (i + k) % n
	case Explicit:
		return uint64(g.Edges[2*e]), uint64(g.Edges[2*e+1])
	}
	panic("graph: unknown family")
}

// Implicit reports whether the graph holds no memory per edge.
func (g *Graph) Implicit() bool { return g.Family != Explicit }

// Materialize returns the explicit twin of g: the same edges, numbered the
// same way, in an edge array with CSR adjacency. Explicit graphs return
// themselves.
func (g *Graph) Materialize() (*Graph, error) {
	if g.Family == Explicit {
		return g, nil
	}
	if g.E > 1<<31 {
		return nil, fmt.Errorf("graph %s: %d edges are too many to materialize", g.Spec, g.E)
	}
	edges := make([]uint32, 0, 2*g.E)
	for e := range g.E {
		u, v := g.Edge(e)
		edges = append(edges, uint32(u), uint32(v))
	}
	return NewExplicit(g.Spec, g.N, edges, "materialized "+g.Spec), nil
}

// NewExplicit builds an explicit graph on n vertices from an edge array
// (pairs), which it keeps, and its CSR adjacency.
func NewExplicit(spec string, n uint64, edges []uint32, origin string) *Graph {
	g := &Graph{Spec: spec, Family: Explicit, N: n, E: uint64(len(edges) / 2), Edges: edges, Origin: origin}
	g.Offsets = make([]uint64, n+1)
	for e := 0; e < len(edges); e += 2 {
		g.Offsets[edges[e]+1]++
		if edges[e] != edges[e+1] {
			g.Offsets[edges[e+1]+1]++
		}
	}
	for v := range n {
		g.Offsets[v+1] += g.Offsets[v]
	}
	g.Adj = make([]uint32, g.Offsets[n])
	next := slices.Clone(g.Offsets[:n])
	for e := 0; e < len(edges); e += 2 {
		u, v := edges[e], edges[e+1]
		g.Adj[next[u]] = v
		next[u]++
		if u != v {
			g.Adj[next[v]] = u
			next[v]++
		}
	}
	return g
}

// Degree returns the degree of v (a self-loop counts once).
func (g *Graph) Degree(v uint64) uint64 {
	n := g.N
	switch g.Family {
	case Cycle:
		return 2
	case Path:
		if n == 1 {
			return 0
		}
		if v == 0 || v == n-1 {
			return 1
		}
		return 2
	case Torus:
		return 2 * uint64(len(g.Sides))
	case Hypercube:
		return uint64(g.K)
	case Complete:
		return n - 1
	}
	return g.Offsets[v+1] - g.Offsets[v]
}

// Neighbors appends the neighbours of v to dst (with multiplicity).
func (g *Graph) Neighbors(dst []uint64, v uint64) []uint64 {
	n := g.N
	switch g.Family {
	case Cycle:
		return append(dst, (v+n-1)%n, (v+1)%n)
	case Path:
		if v > 0 {
			dst = append(dst, v-1)
		}
		if v+1 < n {
			dst = append(dst, v+1)
		}
		return dst
	case Torus:
		stride := uint64(1)
		for _, s := range g.Sides {
			c := (v / stride) % s
			up, down := v+stride, v-stride
			if c == s-1 {
				up = v - (s-1)*stride
			}
			if c == 0 {
				down = v + (s-1)*stride
			}
			dst = append(dst, down, up)
			stride *= s
		}
		return dst
	case Hypercube:
		for j := range g.K {
			dst = append(dst, v^1<<j)
		}
		return dst
	case Complete:
		for u := range n {
			if u != v {
				dst = append(dst, u)
			}
		}
		return dst
	}
	for _, u := range g.Adj[g.Offsets[v]:g.Offsets[v+1]] {
		dst = append(dst, uint64(u))
	}
	return dst
}

// newCycle and its siblings build the implicit families, checking sizes.
func newCycle(spec string, n uint64) (*Graph, error) {
	if n < 3 || n > MaxVertices {
		return nil, fmt.Errorf("--graph %s: a cycle needs 3 ≤ n ≤ %d", spec, uint64(MaxVertices))
	}
	return &Graph{Spec: spec, Family: Cycle, N: n, E: n}, nil
}

func newPath(spec string, n uint64) (*Graph, error) {
	if n < 2 || n > MaxVertices {
		return nil, fmt.Errorf("--graph %s: a path needs 2 ≤ n ≤ %d", spec, uint64(MaxVertices))
	}
	return &Graph{Spec: spec, Family: Path, N: n, E: n - 1}, nil
}

func newTorus(spec string, sides []uint64) (*Graph, error) {
	n := uint64(1)
	for _, s := range sides {
		if s < 3 {
			return nil, fmt.Errorf("--graph %s: every side of a torus must be at least 3 (sides of 2 make a hypercube: use hypercube:k)", spec)
		}
		hi, lo := bits.Mul64(n, s)
		if hi != 0 || lo > MaxVertices {
			return nil, fmt.Errorf("--graph %s: more than %d vertices", spec, uint64(MaxVertices))
		}
		n = lo
	}
	if len(sides) < 1 {
		return nil, fmt.Errorf("--graph %s: a torus needs at least one side", spec)
	}
	return &Graph{Spec: spec, Family: Torus, N: n, E: n * uint64(len(sides)), Sides: sides}, nil
}

func newHypercube(spec string, k uint64) (*Graph, error) {
	if k < 1 || k > 31 {
		return nil, fmt.Errorf("--graph %s: a hypercube needs dimension 1 ≤ k ≤ 31", spec)
	}
	n := uint64(1) << k
	return &Graph{Spec: spec, Family: Hypercube, N: n, E: n / 2 * k, K: int(k)}, nil
}

func newComplete(spec string, n uint64) (*Graph, error) {
	if n < 2 || n > MaxVertices {
		return nil, fmt.Errorf("--graph %s: a complete graph needs 2 ≤ n ≤ %d", spec, uint64(MaxVertices))
	}
	return &Graph{Spec: spec, Family: Complete, N: n, E: n * (n - 1) / 2}, nil
}
