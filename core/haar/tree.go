package haar

import (
	"fmt"

	"github.com/balloc/balloc/core/graph"
)

// builder holds Build's working state.
type builder struct {
	g       *graph.Graph // materialized when general
	opt     Options
	n       uint32
	general bool // spectral bisection and electrical flows

	order, pos []uint32
	lo, hi     []uint32 // per heap index
	leaf       []uint32 // per vertex: heap index of its singleton
	nodes      []Node

	// Node-major flows, unit demand: node k owns flowOff[k]:flowOff[k+1].
	flowOff  []int
	flowEdge []uint32
	flowVal  []float64

	gen  generalState // general graphs only
	side []uint8      // connectedSplit's marks: 0 outside the set being split

	nSpectral, nBFS, nRerouted, nUnconverged int
}

// item is a set of T waiting to be split: heap index, positions, depth and,
// for a torus, its box (per dimension the first coordinate and the length).
type item struct {
	h, lo, hi uint32
	depth     int
	box       []uint32
}

// maxDepth keeps heap codes 2h+1 below 2^32.
const maxDepth = 30

// decompose builds T top-down in preorder, renumbering vertices so that
// every set is a contiguous range of positions, and routes each node's flow
// as soon as its children are known.
func (b *builder) decompose() error {
	n := b.n
	b.leaf = make([]uint32, n)
	b.flowOff = []int{0}
	root := item{h: 1, lo: 0, hi: n}
	if b.g.Family == graph.Torus && !b.general {
		for _, s := range b.g.Sides {
			root.box = append(root.box, 0, uint32(s))
		}
	}
	stack := []item{root}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > maxDepth {
			return fmt.Errorf("haar: graph %s: decomposition deeper than %d levels", b.g.Spec, maxDepth)
		}
		b.setRange(it.h, it.lo, it.hi)
		if it.hi-it.lo == 1 {
			if it.box != nil {
				b.order[it.lo] = b.boxVertex(it.box)
				b.pos[b.order[it.lo]] = it.lo
			}
			b.leaf[b.order[it.lo]] = it.h
			continue
		}
		nd := Node{Heap: it.h, Depth: it.depth, Route: it.h}
		left, right := item{h: 2 * it.h, lo: it.lo, depth: it.depth + 1}, item{h: 2*it.h + 1, hi: it.hi, depth: it.depth + 1}
		var mid uint32
		var dim int // torus: the dimension halved
		switch {
		case b.general:
			mid, nd.Split = b.splitSpectral(it.h, it.lo, it.hi, it.depth)
		case b.g.Family == graph.Torus:
			mid, dim, left.box, right.box = splitBox(it, b.g.Sides)
			nd.Split = SplitBox
		default:
			mid = it.lo + (it.hi-it.lo+1)/2
			nd.Split = SplitInterval
			if b.g.Family == graph.Hypercube {
				nd.Split = SplitCube
			}
		}
		left.hi, right.lo = mid, mid
		b.setRange(left.h, it.lo, mid)
		b.setRange(right.h, mid, it.hi)
		switch {
		case b.general:
			if err := b.electricalFlow(&nd, it.lo, mid, it.hi); err != nil {
				return err
			}
		case b.g.Family == graph.Torus:
			b.torusFlow(it, dim)
		case b.g.Family == graph.Cycle, b.g.Family == graph.Path:
			b.pathFlow(it.lo, mid, it.hi)
		case b.g.Family == graph.Hypercube:
			b.cubeFlow(it.lo, it.hi)
		case b.g.Family == graph.Complete && b.opt.Route == RouteGraph:
			nd.Route = 1
			b.completeGraphFlow(it.lo, mid, it.hi)
		case b.g.Family == graph.Complete:
			b.completeFlow(it.lo, mid, it.hi)
		}
		b.nodes = append(b.nodes, nd)
		b.flowOff = append(b.flowOff, len(b.flowEdge))
		stack = append(stack, right, left)
	}
	return nil
}

// identity starts Order and Pos as the identity.
func (b *builder) identity() {
	b.order = make([]uint32, b.n)
	b.pos = make([]uint32, b.n)
	for v := range b.n {
		b.order[v], b.pos[v] = v, v
	}
}

func (b *builder) setRange(h, lo, hi uint32) {
	for int(h) >= len(b.lo) {
		b.lo = append(b.lo, 0)
		b.hi = append(b.hi, 0)
	}
	b.lo[h], b.hi[h] = lo, hi
}

func (b *builder) emit(e uint32, f float64) {
	b.flowEdge = append(b.flowEdge, e)
	b.flowVal = append(b.flowVal, f)
}

// splitBox halves a torus box along its longest side (the lowest dimension
// on ties); the left child takes the first ⌈len/2⌉ coordinates.
func splitBox(it item, sides []uint64) (mid uint32, dim int, lbox, rbox []uint32) {
	for d := range len(sides) {
		if it.box[2*d+1] > it.box[2*dim+1] {
			dim = d
		}
	}
	l := it.box[2*dim+1]
	half := (l + 1) / 2
	lbox, rbox = append([]uint32(nil), it.box...), append([]uint32(nil), it.box...)
	lbox[2*dim+1] = half
	rbox[2*dim] += half
	rbox[2*dim+1] = l - half
	return it.lo + (it.hi-it.lo)/l*half, dim, lbox, rbox
}

// boxVertex is the vertex of a one-cell box.
func (b *builder) boxVertex(box []uint32) uint32 {
	v, stride := uint32(0), uint32(1)
	for d, s := range b.g.Sides {
		v += box[2*d] * stride
		stride *= uint32(s)
	}
	return v
}
