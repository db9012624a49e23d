package graph

import (
	"fmt"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// JoinedExpanders builds joined-expanders:n,d,k: two random d-regular
// graphs A on vertices 0…n/2−1 and B on n/2…n−1 (each drawn as
// random-regular:n/2,d is, RandomRegular), joined by exactly k edges while
// every vertex keeps degree d. It removes a random matching of k/2 edges
// from each half — edges taken in a random order, each kept when its
// endpoints are both still free — and rewires the i-th removed pair,
// {a, a'} from A and {b, b'} from B, into the cross edges {a, b} and
// {a', b'}, in the slots of the removed ones. So the graph is simple and
// d-regular, and the cut between the halves is k edges: the graph is at
// most k-edge-connected, while each half, an expander less a matching,
// stays far better connected inside for d ≥ 3 (the family of the
// paper's d/k factor).
//
// Parity fixes which k exist: the degrees of A sum to (n/2)·d = 2|E(A)| +
// k, so k ≡ (n/2)·d (mod 2); with n/2 even no odd k does (n = 1024: k =
// 2, 4, 8, …). This generator takes k even, 2 ≤ k ≤ n/2, d ≥ 3 and n/2·d
// even; a half too small for a matching of k/2 edges, or a joined graph
// that is not connected, is an error rather than a different graph.
func JoinedExpanders(spec string, n, d, k uint64, rng *kernels.PCG32) (*Graph, error) {
	switch {
	case n < 8 || n%2 == 1 || n > MaxVertices:
		return nil, fmt.Errorf("--graph %s: joined-expanders:n,d,k needs an even n, 8 ≤ n ≤ %d (two halves of n/2)", spec, uint64(MaxVertices))
	case d < 3:
		return nil, fmt.Errorf("--graph %s: joined-expanders:n,d,k needs degree d ≥ 3 (random 1- and 2-regular halves are not connected)", spec)
	case d >= n/2:
		return nil, fmt.Errorf("--graph %s: joined-expanders:n,d,k needs d < n/2 = %d, the size of a half", spec, n/2)
	case (n/2)%2 == 1 && d%2 == 1:
		return nil, fmt.Errorf("--graph %s: no %d-regular graph on a half of n/2 = %d vertices (n/2·d is odd)", spec, d, n/2)
	case k < 2 || k%2 == 1 || k > n/2:
		return nil, fmt.Errorf("--graph %s: joined-expanders:n,d,k needs an even k, 2 ≤ k ≤ n/2 = %d (the halves' degrees sum to n/2·d = 2·edges inside + k, so k is even here)", spec, n/2)
	}
	if n > 1<<32/d {
		return nil, fmt.Errorf("--graph %s: n·d/2 = %d·%d/2 edges is more than 2^31", spec, n, d)
	}
	h := n / 2
	// Two halves drawn one after the other, both kept, joined into one edge
	// array, then the graph and its connectivity check (8 bytes a vertex).
	halves := units.Add(regularBytes(h, d), units.Mul(4, units.Mul(n, d)))
	if err := checkBuild("--graph", spec, units.Add(halves, units.Add(explicitBytes(n, n*d/2), units.Mul(8, n)))); err != nil {
		return nil, err
	}
	a, how, err := drawHalf(spec, h, d, rng)
	if err != nil {
		return nil, err
	}
	b, _, err := drawHalf(spec, h, d, rng)
	if err != nil {
		return nil, err
	}
	for i := range b {
		b[i] += uint32(h)
	}
	ma, mb := randomMatching(a, h, k/2, 0, rng), randomMatching(b, h, k/2, uint32(h), rng)
	if uint64(len(ma)) < k/2 || uint64(len(mb)) < k/2 {
		return nil, fmt.Errorf("--graph %s: a half held a matching of only %d edges, short of k/2 = %d: lower k", spec, min(len(ma), len(mb)), k/2)
	}
	for i := range ma {
		ea, eb := ma[i], mb[i]
		a1, a2, b1, b2 := a[2*ea], a[2*ea+1], b[2*eb], b[2*eb+1]
		a[2*ea], a[2*ea+1] = a1, b1
		b[2*eb], b[2*eb+1] = a2, b2
	}
	g := NewExplicit(spec, n, append(a, b...), fmt.Sprintf(
		"two random %d-regular graphs on %d vertices each (%s), a random matching of %d edges in each rewired into %d edges across: %d-regular, cut of %d between the halves, drawn from the seed",
		d, h, how, k/2, k, d, k))
	if st := g.Stats(); !st.Connected() {
		return nil, fmt.Errorf("--graph %s: the joined graph has %d components (a half fell apart without its matching): try another seed", spec, st.Components)
	}
	return g, nil
}

// drawHalf draws one half of joined-expanders as RandomRegular does.
func drawHalf(spec string, h, d uint64, rng *kernels.PCG32) ([]uint32, string, error) {
	edges, how, err := drawRegular(h, d, rng)
	if err != nil {
		return nil, "", fmt.Errorf("--graph %s: %v", spec, err)
	}
	return edges, how, nil
}

// randomMatching returns up to want edge indices of edges (vertices from
// base to base+h−1) with pairwise distinct endpoints: the edges in a
// uniformly random order, each taken when both its endpoints are free.
func randomMatching(edges []uint32, h, want uint64, base uint32, rng *kernels.PCG32) []uint32 {
	m := uint64(len(edges) / 2)
	order := identityPoints(m)
	for i := m - 1; i > 0; i-- {
		j := rng.Bounded64(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	used := make([]bool, h)
	var out []uint32
	for _, e := range order {
		if uint64(len(out)) == want {
			break
		}
		u, v := edges[2*e]-base, edges[2*e+1]-base
		if !used[u] && !used[v] {
			used[u], used[v] = true, true
			out = append(out, e)
		}
	}
	return out
}
