package haar

import (
	"math/bits"

	"github.com/balloc/balloc/core/graph"
)

// Closed-form flows. Node i's Haar demand gives every vertex of S_l a net
// inflow of 1/|S_l| and takes 1/|S_r| from every vertex of S_r (the
// paper's "divide the drift evenly among all vertices"), so a unit
// flow goes from S_r to S_l. For the families below the electrical flow in
// G[S_i] has a closed form, which is what these functions emit: the same flow
// conjugate gradients would find, exactly and in O(|S_i|) (O(|S_l||S_r|) for
// the complete graph, whose G[S_i] has that many cut edges). Flows are
// signed along Graph.Edge's orientation x → y, and for these families
// positions are vertices (Order is the identity) except on the torus.

// pathFlow routes node [lo, hi) of a path or cycle, split at mid, along the
// path of positions lo … hi−1: across the edge (p, p+1) the flow toward lo
// is the demand of lo … p (prefix sums). The root of a cycle has the wrap
// edge (n−1, 0) too; its electrical flow adds to the path flow the
// circulation c that minimises Σ(f+c)², c = −mean over all n edges.
func (b *builder) pathFlow(lo, mid, hi uint32) {
	nl, nr := float64(mid-lo), float64(hi-mid)
	value := func(p uint32) float64 {
		if p < mid {
			return -float64(p-lo+1) / nl
		}
		return -float64(hi-1-p) / nr
	}
	wrap := b.g.Family == graph.Cycle && lo == 0 && hi == b.n
	c := 0.0
	if wrap {
		sum := 0.0
		for p := lo; p+1 < hi; p++ {
			sum += value(p)
		}
		c = -sum / float64(b.n)
	}
	for p := lo; p+1 < hi; p++ {
		if f := value(p) + c; f != 0 {
			b.emit(p, f) // cycle and path: edge p is (p, p+1)
		}
	}
	if wrap && c != 0 {
		b.emit(b.n-1, c)
	}
}

// torusFlow routes a torus box split across dimension dim. The demand
// depends on that coordinate alone and every line of the box along dim
// balances on its own (|S_l| and |S_r| are the line counts times the two
// halves' lengths), so the potential that solves the box's Laplacian system
// depends on that coordinate alone, and the electrical flow is the path
// (or, when the box spans the whole side, cycle) flow of pathFlow on every
// line, divided by the number of lines; edges across other dimensions
// carry nothing.
func (b *builder) torusFlow(it item, dim int) {
	sides := b.g.Sides
	l := it.box[2*dim+1]
	half := (l + 1) / 2
	lines := (it.hi - it.lo) / l
	nl, nr := float64(half*lines), float64((l-half)*lines)
	prof := make([]float64, l) // prof[t]: the edge from offset t to t+1 along dim (t = l−1: the wrap)
	sum := 0.0
	for t := range l - 1 {
		if t < half {
			prof[t] = -float64(t+1) / nl
		} else {
			prof[t] = -float64(l-1-t) / nr
		}
		sum += prof[t]
	}
	wrap := uint64(l) == sides[dim]
	if wrap {
		c := -sum / float64(l)
		for t := range prof {
			prof[t] += c
		}
	}
	dims := len(sides)
	stride := make([]uint32, dims)
	v, st := uint32(0), uint32(1)
	for d := range dims {
		stride[d] = st
		v += it.box[2*d] * st
		st *= uint32(sides[d])
	}
	base := uint32(dim) * b.n // torus edge j·n + v is (v, v's successor in dimension j)
	off := make([]uint32, dims)
	for {
		if t := off[dim]; (t+1 < l || wrap) && prof[t] != 0 {
			b.emit(base+v, prof[t])
		}
		d := 0
		for ; d < dims; d++ {
			off[d]++
			v += stride[d]
			if off[d] < it.box[2*d+1] {
				break
			}
			v -= off[d] * stride[d]
			off[d] = 0
		}
		if d == dims {
			return
		}
	}
}

// cubeFlow routes a subcube [lo, hi) split on its highest free coordinate j:
// G[S_i] is a cube and, by symmetry, its electrical flow sends 1/|S_r| from
// every vertex of S_r across its dimension-j edge and nothing else.
func (b *builder) cubeFlow(lo, hi uint32) {
	half := (hi - lo) / 2
	j := uint32(bits.TrailingZeros32(half))
	f := -1 / float64(half) // x = w ∈ S_l, y = w|half ∈ S_r: the flow runs y → x
	for w := lo; w < lo+half; w++ {
		b.emit(j*(b.n/2)+((w>>(j+1))<<j|w&(half-1)), f)
	}
}

// completeFlow routes node [lo, hi) of the complete graph: G[S_i] is K_s,
// whose Laplacian is s·I − J, so the potential is the demand divided by s
// and only the |S_l|·|S_r| cut edges carry flow, each (1/|S_l| + 1/|S_r|)/s.
func (b *builder) completeFlow(lo, mid, hi uint32) {
	f := -(1/float64(mid-lo) + 1/float64(hi-mid)) / float64(hi-lo) // from u ∈ S_l to v ∈ S_r
	for u := lo; u < mid; u++ {
		for v := mid; v < hi; v++ {
			e, uIsX := completeEdge(b.n, u, v)
			if uIsX {
				b.emit(e, f)
			} else {
				b.emit(e, -f)
			}
		}
	}
}

// completeGraphFlow routes node [lo, hi) of the complete graph in all of
// K_n (RouteGraph): the Laplacian is n·I − J, so the potential is the
// demand divided by n — +1/(n|S_r|) on S_r, −1/(n|S_l|) on S_l, 0 outside
// S_i — and edge {u, v} carries φ_u − φ_v: the cut edges
// (1/|S_l| + 1/|S_r|)/n, an edge from S_l or S_r to a vertex outside S_i
// 1/(n|S_l|) or 1/(n|S_r|) (the two-hop paths the paper's templates use),
// edges within a child nothing.
func (b *builder) completeGraphFlow(lo, mid, hi uint32) {
	n := b.n
	phi := func(v uint32) float64 {
		switch {
		case v >= lo && v < mid:
			return -1 / (float64(n) * float64(mid-lo))
		case v >= mid && v < hi:
			return 1 / (float64(n) * float64(hi-mid))
		}
		return 0
	}
	for u := lo; u < hi; u++ {
		for v := range n {
			if v == u || (v >= lo && v < hi && (v < u || (u < mid) == (v < mid))) {
				continue // each pair once; no flow within a child
			}
			x, y := min(u, v), max(u, v)
			e, xFirst := completeEdge(n, x, y)
			if f := phi(x) - phi(y); xFirst {
				b.emit(e, f)
			} else {
				b.emit(e, -f)
			}
		}
	}
}

// completeEdge is the inverse of Graph.Edge on complete:n for u < v: the
// edge's index, and whether u is its first endpoint.
func completeEdge(n, u, v uint32) (uint32, bool) {
	k := v - u
	if 2*k <= n { // k = n/2 is listed once, from i = u < n/2
		return (k-1)*n + u, true
	}
	k = n - k
	return (k-1)*n + v, false
}
