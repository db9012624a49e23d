package haar

import (
	"fmt"
	"math"
)

// Electrical flows for general graphs: solve L φ = b on the
// routing set by preconditioned conjugate gradients, take f(x→y) = φ_x − φ_y,
// and route what the solver left of the demand (b − Lφ) on a BFS spanning
// tree, so that the flow meets its demand up to rounding however CG ended.

const (
	cgTol     = 1e-10 // relative residual ‖b − Lφ‖/‖b‖
	cgMaxIter = 5000
	// flowCut drops entries below this fraction of the node's largest
	// flow: far below the 2^-32 resolution of the alias tables, so the
	// law loses nothing, but the supports stay O(log n)-sized in practice.
	flowCut = 1e-13
)

// electricalFlow routes node nd's demand (S_l = positions [lo, mid),
// S_r = [mid, hi)). The paper's flow templates may use all of G; balloc's
// default (--haar-route set) is G[S_i], which keeps each edge's support to the nodes whose sets
// hold it. When S_i is split across components of G[S_i] (spectral halves
// of a connected set need not be connected) the demand cannot be met
// there, and the flow is routed in the nearest ancestor set A with S_i in
// one component of G[A], on that component: the smallest enlargement that
// keeps the flow local. G itself is connected (prepareGeneral), so A exists.
// With RouteGraph every node routes in G.
func (b *builder) electricalFlow(nd *Node, lo, mid, hi uint32) error {
	gs := &b.gen
	a := nd.Heap
	if b.opt.Route == RouteGraph {
		a = 1 // all of G, which is connected
	}
	for {
		gs.newTraversal()
		b.bfs(b.order[lo], b.lo[a], b.hi[a])
		inside := true
		for _, v := range b.order[lo:hi] {
			if !gs.seen(v) {
				inside = false
				break
			}
		}
		if inside {
			break
		}
		if a == 1 {
			return fmt.Errorf("haar: graph %s: node %d cannot be routed", b.g.Spec, nd.Heap)
		}
		a >>= 1
	}
	if a != nd.Heap {
		nd.Route = a
		if b.opt.Route == RouteSet {
			b.nRerouted++
		}
	}
	comp := gs.q
	k := len(comp)
	// The component's Laplacian in local indices.
	off := make([]int, k+1)
	var adj []uint32
	for i, v := range comp {
		for j := gs.off[v]; j < gs.off[v+1]; j++ {
			if w := gs.nbr[j]; gs.seen(w) {
				adj = append(adj, gs.loc[w])
			}
		}
		off[i+1] = len(adj)
	}
	rhs := make([]float64, k)
	nl, nr := float64(mid-lo), float64(hi-mid)
	for i, v := range comp {
		switch p := b.pos[v]; {
		case p >= lo && p < mid:
			rhs[i] = -1 / nl // L φ is the net outflow; S_l takes in 1/|S_l|
		case p >= mid && p < hi:
			rhs[i] = 1 / nr
		}
	}
	lap := func(dst, x []float64) {
		for i := range k {
			acc := 0.0
			for _, j := range adj[off[i]:off[i+1]] {
				acc += x[j]
			}
			dst[i] = float64(off[i+1]-off[i])*x[i] - acc
		}
	}
	phi := make([]float64, k)
	nd.CGIterations = conjugateGradient(phi, rhs, off, lap)
	if nd.CGIterations == cgMaxIter {
		b.nUnconverged++
	}
	// What the solver missed, routed up the BFS tree: subtree[i] leaves
	// vertex i's subtree through the edge to its parent.
	subtree := make([]float64, k)
	lap(subtree, phi)
	for i := range subtree {
		subtree[i] = rhs[i] - subtree[i]
	}
	for i := k - 1; i > 0; i-- {
		subtree[gs.par[i]] += subtree[i]
	}
	flow := func(i int, j uint32, e uint32) float64 { // from comp[i] to its neighbour comp[j] along edge e
		f := phi[i] - phi[j]
		if gs.pedge[i] == e && gs.par[i] == j {
			f += subtree[i]
		}
		if gs.pedge[j] == e && gs.par[j] == uint32(i) {
			f -= subtree[j]
		}
		return f
	}
	largest := 0.0
	for pass := range 2 {
		for i, v := range comp {
			for j := gs.off[v]; j < gs.off[v+1]; j++ {
				w, e := gs.nbr[j], gs.eid[j]
				if !gs.seen(w) || b.g.Edges[2*e] != v { // each edge once, from its first endpoint
					continue
				}
				f := flow(i, gs.loc[w], e)
				if pass == 0 {
					largest = max(largest, math.Abs(f))
				} else if math.Abs(f) > flowCut*largest {
					b.emit(e, f)
				}
			}
		}
	}
	return nil
}

// conjugateGradient solves L φ = rhs (rhs summing to zero, L the Laplacian of
// a connected graph, degrees off[i+1]−off[i]) by CG with the Jacobi
// preconditioner, from φ = 0, and returns the iterations taken. L is
// singular, but rhs and every L p lie in the complement of the constants,
// where L is definite, so the residuals stay there.
func conjugateGradient(phi, rhs []float64, off []int, lap func(dst, x []float64)) int {
	k := len(rhs)
	r := append([]float64(nil), rhs...)
	z := make([]float64, k)
	p := make([]float64, k)
	ap := make([]float64, k)
	precondition := func() float64 {
		rz := 0.0
		for i := range k {
			z[i] = r[i] / float64(off[i+1]-off[i])
			rz += r[i] * z[i]
		}
		return rz
	}
	rz := precondition()
	copy(p, z)
	stop := cgTol * math.Sqrt(dot(rhs, rhs))
	for it := range cgMaxIter {
		if math.Sqrt(dot(r, r)) <= stop {
			return it
		}
		lap(ap, p)
		alpha := rz / dot(p, ap)
		axpy(alpha, p, phi)
		axpy(-alpha, ap, r)
		rz2 := precondition()
		beta := rz2 / rz
		rz = rz2
		for i := range p {
			p[i] = z[i] + beta*p[i]
		}
	}
	return cgMaxIter
}
