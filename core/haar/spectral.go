package haar

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/balloc/balloc/kernels"
)

// General graphs: recursive spectral bisection with a BFS
// fallback, and electrical flows (electrical.go). Sets are position ranges
// of Order; G[S] is read from an incidence list by testing each
// neighbour's position, so no subgraph is ever copied.

// generalState is the incidence list of a materialized graph and the
// scratch its traversals share.
type generalState struct {
	off      []int    // incidences of v: off[v]:off[v+1]; self-loops left out
	nbr, eid []uint32 // neighbour and edge index of each incidence

	stamp []uint32 // stamp[v] == epoch: v visited in the current traversal
	loc   []uint32 // and its index in q
	epoch uint32
	q     []uint32 // visit order
	par   []uint32 // BFS tree: the parent's index in q, and the edge to it
	pedge []uint32
}

// lanczosSteps bounds the Krylov space of a Fiedler vector: cost
// O(steps²·|S|) per set with full reorthogonalisation. Forty steps give a
// smooth, low-energy vector, which is all a median split needs; where G[S]
// is an expander, λ2 ≈ λ3 and no step count would single out λ2's vector,
// but every low-energy split is then about as good.
const lanczosSteps = 40

func (b *builder) prepareGeneral() error {
	g, n := b.g, int(b.n)
	gs := &b.gen
	gs.off = make([]int, n+1)
	for e := 0; e < len(g.Edges); e += 2 {
		if u, v := g.Edges[e], g.Edges[e+1]; u != v {
			gs.off[u+1]++
			gs.off[v+1]++
		}
	}
	for v := range n {
		gs.off[v+1] += gs.off[v]
	}
	gs.nbr = make([]uint32, gs.off[n])
	gs.eid = make([]uint32, gs.off[n])
	next := slices.Clone(gs.off[:n])
	for e := 0; e < len(g.Edges); e += 2 {
		u, v := g.Edges[e], g.Edges[e+1]
		if u == v {
			continue
		}
		gs.nbr[next[u]], gs.eid[next[u]] = v, uint32(e/2)
		gs.nbr[next[v]], gs.eid[next[v]] = u, uint32(e/2)
		next[u]++
		next[v]++
	}
	gs.stamp = make([]uint32, n)
	b.side = make([]uint8, n)
	gs.loc = make([]uint32, n)
	// Order is the identity here, so the root's range is every vertex.
	gs.newTraversal()
	b.bfs(0, 0, b.n)
	if len(gs.q) != n {
		return fmt.Errorf("haar: graph %s is disconnected (vertex 0 reaches %d of %d): no strategy moves balls between components", g.Spec, len(gs.q), n)
	}
	return nil
}

// newTraversal forgets every visit mark in O(1) (O(n) once per 2^32).
func (gs *generalState) newTraversal() {
	gs.epoch++
	if gs.epoch == 0 {
		clear(gs.stamp)
		gs.epoch = 1
	}
	gs.q, gs.par, gs.pedge = gs.q[:0], gs.par[:0], gs.pedge[:0]
}

func (gs *generalState) seen(v uint32) bool { return gs.stamp[v] == gs.epoch }

// bfs appends to q, in BFS order, the unvisited vertices of G[Order[lo:hi]]
// reachable from start (which must lie in the range), with their BFS-tree
// parents (the root is its own, edge MaxUint32).
func (b *builder) bfs(start, lo, hi uint32) {
	gs := &b.gen
	mark := func(v, parent, e uint32) {
		gs.stamp[v] = gs.epoch
		gs.loc[v] = uint32(len(gs.q))
		gs.q = append(gs.q, v)
		gs.par = append(gs.par, parent)
		gs.pedge = append(gs.pedge, e)
	}
	if gs.seen(start) {
		return
	}
	head := len(gs.q)
	mark(start, uint32(head), math.MaxUint32)
	for ; head < len(gs.q); head++ {
		v := gs.q[head]
		for k := gs.off[v]; k < gs.off[v+1]; k++ {
			w := gs.nbr[k]
			if p := b.pos[w]; p >= lo && p < hi && !gs.seen(w) {
				mark(w, uint32(head), gs.eid[k])
			}
		}
	}
}

// splitSpectral reorders Order[lo:hi] into the left child then the right
// and returns the split position. A connected G[S] is cut at the median of
// a Fiedler vector (ties by vertex), then repaired so that both sides are
// connected (connectedSplit) when that fits the depth budget. A
// disconnected G[S] is split along whole components (componentSplit). When
// neither applies, or the eigensolver fails, the left child is the first
// ⌈s/2⌉ vertices in BFS order from a pseudo-peripheral vertex, components
// one after another: the BFS fallback.
func (b *builder) splitSpectral(h, lo, hi uint32, depth int) (uint32, Split) {
	gs := &b.gen
	s := hi - lo
	half := (s + 1) / 2
	limit := b.sizeLimit(depth)
	gs.newTraversal()
	b.bfs(b.order[lo], lo, hi)
	if uint32(len(gs.q)) == s {
		if x, ok := b.fiedler(h, lo, hi); ok {
			b.nSpectral++
			set := slices.Clone(b.order[lo:hi])
			slices.SortFunc(set, func(u, v uint32) int {
				if c := cmp.Compare(x[b.pos[u]-lo], x[b.pos[v]-lo]); c != 0 {
					return c
				}
				return cmp.Compare(u, v)
			})
			if out, l, ok := b.connectedSplit(set, int(half), limit); ok {
				set, half = out, uint32(l)
			}
			b.place(lo, set)
			return lo + half, SplitSpectral
		}
	} else if out, l, ok := b.componentSplit(slices.Clone(b.order[lo:hi]), limit); ok {
		b.nBFS++
		b.place(lo, out)
		return lo + uint32(l), SplitBFS
	}
	b.nBFS++
	gs.newTraversal()
	b.bfs(b.order[lo], lo, hi)
	far := gs.q[len(gs.q)-1]
	gs.newTraversal()
	b.bfs(far, lo, hi)
	for p := lo; p < hi && uint32(len(gs.q)) < s; p++ {
		b.bfs(b.order[p], lo, hi)
	}
	b.place(lo, slices.Clone(gs.q))
	return lo + half, SplitBFS
}

// place writes set into positions lo… and updates Pos.
func (b *builder) place(lo uint32, set []uint32) {
	copy(b.order[lo:], set)
	for i, v := range set {
		b.pos[v] = lo + uint32(i)
	}
}

// lapRange sets dst = L x for the Laplacian L of G[Order[lo:hi]], vectors
// indexed by position − lo.
func (b *builder) lapRange(dst, x []float64, lo, hi uint32) {
	gs := &b.gen
	for i, v := range b.order[lo:hi] {
		deg, acc := 0.0, 0.0
		for k := gs.off[v]; k < gs.off[v+1]; k++ {
			if p := b.pos[gs.nbr[k]]; p >= lo && p < hi {
				deg++
				acc += x[p-lo]
			}
		}
		dst[i] = deg*x[i] - acc
	}
}

// fiedler approximates the eigenvector of the second-smallest eigenvalue of
// G[S]'s Laplacian (G[S] connected) by Lanczos on the complement of the
// constant vector, with full reorthogonalisation, from a start vector drawn
// from Options.Seed and the node: the Ritz vector of the smallest Ritz value.
func (b *builder) fiedler(h, lo, hi uint32) ([]float64, bool) {
	s := int(hi - lo)
	k := min(s-1, lanczosSteps)
	if k < 1 {
		return nil, false
	}
	q := make([]float64, (k+1)*s)
	vec := func(j int) []float64 { return q[j*s : (j+1)*s] }
	r := kernels.NewPCG32(b.opt.Seed, uint64(h))
	q0 := vec(0)
	for i := range q0 {
		q0[i] = r.Float64() - 0.5
	}
	if !normalize(center(q0)) {
		return nil, false
	}
	alpha, beta := make([]float64, k), make([]float64, k)
	m := k
	for j := range k {
		w := vec(j + 1)
		b.lapRange(w, vec(j), lo, hi)
		for i := j; i >= 0; i-- { // modified Gram–Schmidt against every earlier vector
			c := dot(vec(i), w)
			if i == j {
				alpha[j] = c
			}
			axpy(-c, vec(i), w)
		}
		center(w)
		if j == k-1 {
			break
		}
		nw := math.Sqrt(dot(w, w))
		if !(nw > 1e-10) { // an invariant subspace: its Ritz pairs are exact
			m = j + 1
			break
		}
		beta[j] = nw
		for i := range w {
			w[i] /= nw
		}
	}
	t := mat.NewSymDense(m, nil)
	for j := range m {
		t.SetSym(j, j, alpha[j])
		if j+1 < m {
			t.SetSym(j, j+1, beta[j])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(t, true) {
		return nil, false
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	best := 0
	for j, l := range vals {
		if l < vals[best] {
			best = j
		}
	}
	x := make([]float64, s)
	for j := range m {
		axpy(vecs.At(j, best), vec(j), x)
	}
	for _, v := range x {
		if math.IsNaN(v) {
			return nil, false
		}
	}
	return x, true
}

func dot(x, y []float64) float64 {
	s := 0.0
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}

// center subtracts the mean: projects onto the complement of the constants.
func center(x []float64) []float64 {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	for i := range x {
		x[i] -= m
	}
	return x
}

func normalize(x []float64) bool {
	n := math.Sqrt(dot(x, x))
	if !(n > 0) {
		return false
	}
	for i := range x {
		x[i] /= n
	}
	return true
}
