package kernels

import (
	"cmp"
	"math/bits"
	"slices"
)

// Consistent hashing with bounded loads (core/process/hashing.go cites
// Mirrokni, Thorup and Zadimoghaddam): the bins own points of a ring of
// 2^64 positions, a ball lands at a uniform position and walks clockwise
// over the points to the first whose bin's load is below the capacity.

// Ring is a trial's ring: every bin's virtual nodes, sorted by position,
// and what HashRing keeps of the walks.
type Ring struct {
	// nodes, then a sentinel at position 2^64 − 1 that ends the search
	// for a ball's first node without a bound check.
	nodes []ringNode
	// start[j] is the first node at a position ≥ j·2^shift (the
	// sentinel if none), for the 2^(64−shift) ≥ len(nodes) buckets: a
	// ball's search for its first node passes about one node from there.
	start []uint32
	shift uint
	n     int // nodes, the sentinel left out
}

type ringNode struct {
	pos uint64
	bin uint32
}

// RingMemory is the bytes of a ring of nodes virtual nodes.
func RingMemory(nodes uint64) uint64 {
	return (nodes+1)*16 + (ringBuckets(nodes)+1)*4
}

// ringBuckets is the least power of two ≥ nodes: at most one node a
// bucket on average. (Four times as many buckets sped the ring of 10^3
// nodes by nothing measurable and slowed that of 10^5 by a third: the
// table left the cache.)
func ringBuckets(nodes uint64) uint64 {
	return 1 << bits.Len64(max(nodes, 2)-1)
}

// NewRing draws the ring of n bins with v virtual nodes each: node r of
// bin b (b = 0 … n−1, r = 0 … v−1 within it) at position r.Uint64() in
// that order, so the ring is a function of the stream alone. Nodes are
// sorted by position, equal positions (probability < (nv)²/2^65) by bin.
// 1 ≤ n·v < 2^32.
func NewRing(r *PCG32, n, v uint32) *Ring {
	total := uint64(n) * uint64(v)
	nodes := make([]ringNode, total, total+1)
	k := 0
	for b := range n {
		for range v {
			nodes[k] = ringNode{pos: r.Uint64(), bin: b}
			k++
		}
	}
	slices.SortFunc(nodes, func(a, b ringNode) int {
		if c := cmp.Compare(a.pos, b.pos); c != 0 {
			return c
		}
		return cmp.Compare(a.bin, b.bin)
	})
	nb := ringBuckets(total)
	shift := uint(64 - bits.Len64(nb-1))
	start := make([]uint32, nb+1)
	i := uint64(0)
	for j := range nb {
		for i < total && nodes[i].pos>>shift < j {
			i++
		}
		start[j] = uint32(i)
	}
	start[nb] = uint32(total)
	nodes = append(nodes, ringNode{pos: 1<<64 - 1})
	return &Ring{nodes: nodes, start: start, shift: shift, n: int(total)}
}

// Nodes returns the ring's nodes, position and bin, in ring order (for
// tests and descriptions).
func (g *Ring) Nodes() (pos []uint64, bin []uint32) {
	for _, x := range g.nodes[:len(g.nodes)-1] {
		pos = append(pos, x.pos)
		bin = append(bin, x.bin)
	}
	return pos, bin
}

// first is the node a ball at point u reaches first: the first at or
// after u, node 0 past the last. Two steps from u's bucket without a
// branch (whether a bucket's node lies below u is a coin, which a branch
// would mispredict), then the rare rest; the sentinel ends the search.
func (g *Ring) first(u uint64) int {
	nodes := g.nodes
	i := int(g.start[u>>g.shift])
	_, below := bits.Sub64(nodes[i].pos, u, 0)
	i += int(below)
	_, below = bits.Sub64(nodes[i].pos, u, 0)
	i += int(below)
	for nodes[i].pos < u {
		i++
	}
	if i == g.n {
		i = 0
	}
	return i
}

// Capacity is the bound ⌈c·T/n⌉ for the ball that makes T balls, c/n =
// Num/Den in lowest terms, Den < 2^63, kept as T·Num = Q·Den + R: it moves
// from one ball to the next by adding Num, with no division.
type Capacity struct {
	Num, Den uint64
	q, r     uint64
	stepQ    uint64 // Num / Den
	stepR    uint64 // Num mod Den
	sat      bool   // ⌈c·T/n⌉ ≥ 2^63: no load reaches it
}

// At sets the capacity for the ball that makes T balls.
func (c *Capacity) At(T uint64) {
	hi, lo := bits.Mul64(c.Num, T)
	c.stepQ, c.stepR = c.Num/c.Den, c.Num%c.Den
	if hi >= c.Den {
		c.sat = true
		return
	}
	c.q, c.r = bits.Div64(hi, lo, c.Den)
	c.sat = c.q >= 1<<62
}

// Value is the current bound ⌈c·T/n⌉ (2^63 when saturated).
func (c *Capacity) Value() uint64 {
	if c.sat {
		return 1 << 63
	}
	return c.q + min(c.r, 1)
}

// next moves to the ball after.
func (c *Capacity) next() {
	if c.sat {
		return
	}
	c.q += c.stepQ
	c.r += c.stepR
	if c.r >= c.Den {
		c.r -= c.Den
		c.q++
	}
	c.sat = c.q >= 1<<62
}

// HashRing throws count balls on ring g: each at a uniform position,
// walking clockwise from the first node at or after it (the first node
// past the top wraps to node 0) to the first node whose bin's load is
// below the capacity, which cp holds for the first ball and moves on by
// one ball each; every node visited reads one load and is counted in pr.
// Returns the new maximum load. Some bin must be below the capacity for
// every ball (⌈c·T/n⌉ with c > 1 and T − 1 balls in the bins guarantees
// it), or the walk would not end.
//
// Stream: PCG32.Uint64() per ball (two outputs, the first the high half).
func HashRing[L Load](loads []L, g *Ring, r *PCG32, count uint64, cp *Capacity, pr *Probes, maxLoad L) L {
	s, inc := r.state, r.inc()
	nodes, N := g.nodes, g.n
	total, most := pr.Total, pr.Max
	c := *cp
	if count == 0 {
		return maxLoad
	}
	var hi, lo uint32
	s, hi = step(s, inc)
	s, lo = step(s, inc)
	i := g.first(uint64(hi)<<32 | uint64(lo))
	for ; count > 0; count-- {
		// The next ball's point and first node do not depend on the
		// loads: found before this ball's walk, their reads overlap it
		// and survive its mispredicted exit. None is drawn past the last.
		next := 0
		if count > 1 {
			s, hi = step(s, inc)
			s, lo = step(s, inc)
			next = g.first(uint64(hi)<<32 | uint64(lo))
		}
		limit := c.Value()
		j := i
		b := nodes[j].bin
		for uint64(loads[b]) >= limit {
			if j++; j == N {
				j = 0
			}
			b = nodes[j].bin
		}
		k := uint64(j-i) + 1
		if j < i {
			k += uint64(N)
		}
		total += k
		most = max(most, k)
		v := loads[b] + 1
		loads[b] = v
		maxLoad = max(maxLoad, v)
		c.next()
		i = next
	}
	*cp = c
	r.state = s
	pr.Total, pr.Max = total, most
	return maxLoad
}
