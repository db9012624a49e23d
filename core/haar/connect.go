package haar

import (
	"cmp"
	"slices"
)

// Connected splits. A flow routes in G[S_i] only when S_i is connected
// there; otherwise it must climb to an ancestor set (electricalFlow), which
// costs a solve on that larger set and spreads the flow over it. A median
// cut of a sparse graph, a random 3-regular one above all, often leaves
// stray fragments on either side, and every set below a fragmented one
// inherits the problem. So a split is repaired to make both sides connected
// when that keeps them within the depth budget; near-equal sizes keep the
// tree shallow, and the budget allows a little slack for connectivity.

// depthSlack is how many levels beyond ⌈log2 n⌉ general graphs may use: a
// set at depth d may hold up to 2^(⌈log2 n⌉+depthSlack−d) vertices, so the
// heap (and the loop's sums) stays within 2^depthSlack·2n entries.
const depthSlack = 2

// sizeLimit is the most vertices a child of a depth-d node may hold. The
// median split always fits: a set within its own limit halves into its
// children's.
func (b *builder) sizeLimit(depth int) uint32 {
	top := 0
	for uint64(1)<<top < uint64(b.n) {
		top++
	}
	e := top + depthSlack - depth - 1
	if e >= 32 {
		return ^uint32(0)
	}
	if e < 0 {
		return 0
	}
	return 1 << e
}

// components lists the components of the subgraph induced by the vertices
// of set with side[v] == want, flattened: component c is flat[off[c]:off[c+1]].
func (b *builder) components(set []uint32, want uint8) (flat []uint32, off []int) {
	gs := &b.gen
	gs.newTraversal()
	off = []int{0}
	for _, s := range set {
		if b.side[s] != want || gs.seen(s) {
			continue
		}
		head := len(flat)
		gs.stamp[s] = gs.epoch
		flat = append(flat, s)
		for ; head < len(flat); head++ {
			v := flat[head]
			for k := gs.off[v]; k < gs.off[v+1]; k++ {
				if w := gs.nbr[k]; b.side[w] == want && !gs.seen(w) {
					gs.stamp[w] = gs.epoch
					flat = append(flat, w)
				}
			}
		}
		off = append(off, len(flat))
	}
	return flat, off
}

// largest is the index of the largest component (the first on ties).
func largest(off []int) int {
	best := 0
	for c := 1; c+1 < len(off); c++ {
		if off[c+1]-off[c] > off[best+1]-off[best] {
			best = c
		}
	}
	return best
}

// connectedSplit repairs the split of a connected G[set] into set[:half] and
// set[half:]: the left keeps its largest component L*, its other fragments
// join the right, the right keeps the largest component R* of what it now
// holds, and its fragments join the left. Both sides are then connected: L*
// is, and each fragment moved left touches no other right vertex, so (G[set]
// being connected) it touches L*. It returns the new order (left first, set
// order within each side) and the left size, or false when a side would
// exceed limit.
func (b *builder) connectedSplit(set []uint32, half int, limit uint32) ([]uint32, int, bool) {
	for i, v := range set {
		b.side[v] = 2
		if i < half {
			b.side[v] = 1
		}
	}
	defer b.clearSide(set)
	flat, off := b.components(set, 1)
	keep := largest(off)
	for c := range len(off) - 1 {
		if c != keep {
			for _, v := range flat[off[c]:off[c+1]] {
				b.side[v] = 2
			}
		}
	}
	flat, off = b.components(set, 2)
	keep = largest(off)
	for c := range len(off) - 1 {
		if c != keep {
			for _, v := range flat[off[c]:off[c+1]] {
				b.side[v] = 1
			}
		}
	}
	return b.bySide(set, limit)
}

// componentSplit splits a disconnected G[set] along whole components,
// largest first onto the lighter side, so that both children are unions of
// components and the fragmentation ends as soon as each component has a
// subtree of its own. False when a side would exceed limit.
func (b *builder) componentSplit(set []uint32, limit uint32) ([]uint32, int, bool) {
	for _, v := range set {
		b.side[v] = 1
	}
	defer b.clearSide(set)
	flat, off := b.components(set, 1)
	comps := make([]int, len(off)-1)
	for c := range comps {
		comps[c] = c
	}
	slices.SortStableFunc(comps, func(x, y int) int { return cmp.Compare(off[y+1]-off[y], off[x+1]-off[x]) })
	var left, right int
	for _, c := range comps {
		size, side := off[c+1]-off[c], uint8(1)
		if left > right {
			side = 2
			right += size
		} else {
			left += size
		}
		for _, v := range flat[off[c]:off[c+1]] {
			b.side[v] = side
		}
	}
	return b.bySide(set, limit)
}

// bySide orders set by side (1 first) and checks both sides are nonempty
// and within limit.
func (b *builder) bySide(set []uint32, limit uint32) ([]uint32, int, bool) {
	out := make([]uint32, 0, len(set))
	for _, v := range set {
		if b.side[v] == 1 {
			out = append(out, v)
		}
	}
	half := len(out)
	for _, v := range set {
		if b.side[v] == 2 {
			out = append(out, v)
		}
	}
	ok := half > 0 && half < len(set) && uint32(half) <= limit && uint32(len(set)-half) <= limit
	return out, half, ok
}

func (b *builder) clearSide(set []uint32) {
	for _, v := range set {
		b.side[v] = 0
	}
}
