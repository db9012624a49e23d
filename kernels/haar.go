package kernels

import (
	"math/bits"
)

// Haar allocation (Bansal & Feldheim, "The Power of Two Choices in
// Graphical Allocation", the allocation stage and its §3.5 implementation
// notes): a ball samples an edge e = (x, y) uniformly, then a node i of a
// fixed binary hierarchical decomposition of the vertices (or none, ∅) from
// the edge's precomputed law P_e, and goes to x or y according to which of
// i's two child sets has the larger average load; ∅ and equal averages
// take a fair coin. core/haar builds the tables; this file only reads them.
//
// Sets are numbered as a heap: the root is 1, the children of h are 2h and
// 2h+1, and every vertex is the leaf Leaf[v]. A sampled outcome is a child
// code a = 2i + flip: the ball goes to y when S_a is strictly heavier on
// average than its sibling S_{a^1}, to x when lighter. The code 0 stands for
// ∅: Size[0] = Size[1] = 0 make it compare 0 with 0, a tie, so ∅ needs no
// branch of its own.

// HaarEdge is edge e of a haar plan: its endpoints in the graph's canonical
// orientation (Graph.Edge), and its alias table Slots[Off : Off+Len].
type HaarEdge struct{ X, Y, Off, Len uint32 }

// HaarSlot is one column of Walker's alias table: the outcome is Own when a
// 32-bit uniform is below Keep, Alias otherwise. A column kept with
// probability 1 has Alias = Own. Outcomes are child codes, each stored in
// 16 bits relative to the leaf of its edge's endpoint X (see HaarField),
// which makes a column 8 bytes: a cache line holds 8 of them, and none
// straddles two lines. The zero field is ∅.
type HaarSlot struct {
	Keep       uint32
	Own, Alias uint16
}

// HaarWide holds the full child codes of a column one of whose fields is
// HaarEscape (an outcome HaarField cannot code relative to the edge).
type HaarWide struct{ Slot, Own, Alias uint32 }

// HaarTables is a haar plan as the allocation loop reads it: flat arrays,
// edge records and alias columns laid out so that a ball touches one edge
// record and one column.
type HaarTables struct {
	Edges []HaarEdge
	Slots []HaarSlot
	Wide  []HaarWide // by increasing Slot; the columns with a field HaarEscape
	Leaf  []uint32   // the heap index of vertex v's singleton set
	Size  []uint32   // |S_h| for every heap index h; Size[0] = Size[1] = 0 (see above)
}

// A column field codes child code a relative to lx, the leaf of its edge's
// endpoint X: a = lx>>k ^ p, with lx>>k the ancestor of X at a's depth.
// Usually the node i of a = 2i+flip holds X (its flow runs in G[S_i]), so
// lx>>k is i's child on X's side and a is it or its sibling: p ≤ 1. A node
// whose flow was rerouted in an ancestor's set (G[S_i] disconnected) may
// hold neither endpoint: then p has the bits that lead from the deepest
// common ancestor of a and X down to a (at most 8 on
// random-regular:65536,3, where 40 of 1.2 M columns escape, all for a code
// deeper than X's leaf). ∅ is k = 32 (lx < 2^32), p = 0. The field
// stores k^32 in bits 0–5, so that 0 is ∅, and p in bits 6–15; what does
// not fit (p ≥ 2^10, or a deeper than X's leaf) is HaarEscape, its codes
// in HaarTables.Wide. HaarEscape's k is 63 (k^32 = 31), which no code uses.
const HaarEscape = 31 | 0x3ff<<6

// HaarField is the field coding child code a (0: ∅) in a column of an edge
// whose endpoint X has leaf lx, or HaarEscape when none does.
func HaarField(lx, a uint32) uint16 {
	if a == 0 {
		return 0
	}
	k := bits.Len32(lx) - bits.Len32(a)
	if k < 0 {
		return HaarEscape
	}
	p := a ^ lx>>k
	if p >= 1<<10 {
		return HaarEscape
	}
	return uint16(k ^ 32 | int(p)<<6)
}

// haarCode decodes field f (a HaarField, not HaarEscape) against lx: one
// shift and one exclusive or.
func haarCode(lx, f uint32) uint32 {
	return uint32(uint64(lx)>>((f^32)&63)) ^ f>>6
}

// Column returns column j of edge e (j < Len) with its outcomes as full
// child codes.
func (t *HaarTables) Column(e, j uint32) (keep, own, alias uint32) {
	ed := &t.Edges[e]
	slot := ed.Off + j
	col := &t.Slots[slot]
	lx := t.Leaf[ed.X]
	own, alias = haarCode(lx, uint32(col.Own)), haarCode(lx, uint32(col.Alias))
	if col.Own == HaarEscape || col.Alias == HaarEscape {
		w := t.wide(slot)
		if col.Own == HaarEscape {
			own = w.Own
		}
		if col.Alias == HaarEscape {
			alias = w.Alias
		}
	}
	return col.Keep, own, alias
}

// wide is the Wide entry of column slot, which must have one.
func (t *HaarTables) wide(slot uint32) *HaarWide {
	lo, hi := 0, len(t.Wide)
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if t.Wide[mid].Slot <= slot {
			lo = mid
		} else {
			hi = mid
		}
	}
	return &t.Wide[lo]
}

// depth is the depth of the deepest leaf: the updates a ball makes to the
// sums of its leaf and its ancestors below the root.
func (t *HaarTables) depth() int { return bits.Len(uint(len(t.Size)-1)) - 1 }

// HaarState is what an allocation run carries between calls besides loads:
// the subtree sums, the staleness schedule and the tie coins. Chunking a run
// into calls never changes it.
type HaarState struct {
	// The subtree sums, in one of two widths: sums32 while the total load
	// stays below 2^32 (half the cache footprint, a 64-bit comparison),
	// then sums64, widened once by the call that would overflow. sums[h]
	// is the total load of S_h for h ≥ 2, as of the last refresh: after
	// every ball when Stale ≤ 1, every Stale balls otherwise. sums[0] and
	// sums[1] are scratch: the root's sum is never read (it has no
	// sibling), and the fresh loop adds every ball along a path of fixed
	// length, at least the deepest leaf's, which for shallower leaves runs
	// on through 1 to 0. The ∅ code reads them only multiplied by
	// Size[0] = Size[1] = 0.
	sums32 []uint32
	sums64 []uint64
	total  uint64 // the loads' total after the balls thrown so far: bounds every sums[h], h ≥ 2
	// Stale is K of --stale K: balls read set averages refreshed every K
	// allocations, the paper's robustness claim (§3.5). 0 or 1: always fresh.
	Stale uint64
	// Pending, when not nil, holds the leaves of the balls thrown since the
	// last refresh (capacity at least Stale), replayed into the sums at the
	// next one: O(K log n) per refresh. Nil makes a refresh rebuild them
	// from the loads, O(|Size|). Both give the same sums; NewHaarState
	// picks the cheaper.
	Pending []uint32
	Coins   Coins
	since   uint64 // balls since the last refresh
}

// NewHaarState returns the state of a run starting from loads, with sums
// refreshed every stale balls (0 or 1: every ball).
func NewHaarState[L Load](t *HaarTables, loads []L, stale uint64) HaarState {
	st := HaarState{Stale: stale}
	for _, l := range loads {
		st.total += uint64(l)
	}
	if st.total < 1<<32 {
		st.sums32 = make([]uint32, len(t.Size))
		haarSums(st.sums32, loads, t.Leaf)
	} else {
		st.sums64 = make([]uint64, len(t.Size))
		haarSums(st.sums64, loads, t.Leaf)
	}
	if c := HaarPending(len(t.Size), stale); c > 0 {
		st.Pending = make([]uint32, 0, c)
	}
	return st
}

// HaarPending is the capacity of HaarState.Pending for sums over size heap
// entries refreshed every stale balls: stale when the balls are replayed
// at a refresh, 0 when the sums are rebuilt. A replay costs about
// log2(size) updates per ball, a rebuild about 2·size per refresh: replay
// when K·log2(size) is the smaller, which bounds the capacity by 2·size
// (the product saturates: a --stale of 2^63 must not wrap to a replay).
func HaarPending(size int, stale uint64) uint64 {
	hi, product := bits.Mul64(stale, uint64(bits.Len(uint(size))))
	if stale > 1 && hi == 0 && product < 2*uint64(size) {
		return stale
	}
	return 0
}

// Sums appends to dst the subtree sums as of the last refresh, one per heap
// index (entries 0 and 1 are scratch, see HaarState), whichever width the
// state holds them in.
func (st *HaarState) Sums(dst []uint64) []uint64 {
	for _, s := range st.sums32 {
		dst = append(dst, uint64(s))
	}
	return append(dst, st.sums64...)
}

// haarSum is the width of the subtree sums.
type haarSum interface{ ~uint32 | ~uint64 }

// haarSums sets sums[h] to the total load of S_h for every heap index, from
// the loads, in O(len(sums)): children have larger indices than parents.
func haarSums[S haarSum, L Load](sums []S, loads []L, leaf []uint32) {
	clear(sums)
	for v, h := range leaf {
		sums[h] = S(loads[v])
	}
	for h := len(sums) - 1; h >= 2; h-- {
		sums[h>>1] += sums[h]
	}
}

// Haar throws count balls by the haar strategy and returns the new maximum
// load (at least maxLoad). len(t.Edges) must be at least 1 and below 2^32.
//
// Stream per ball: PCG32.Bounded(len(Edges)) for the edge; Bounded(Len) for
// the alias column, then one output for the keep-or-alias comparison; then
// one bit of st.Coins (a fresh output every 32 balls), used on a tie or ∅.
// Drawing the bit on every ball keeps the loop free of a branch on ties.
func Haar[L Load](loads []L, r *PCG32, count uint64, t *HaarTables, st *HaarState, maxLoad L) L {
	if st.sums64 == nil && (st.total+count >= 1<<32 || st.total+count < st.total) {
		st.sums64 = make([]uint64, len(st.sums32))
		for h, s := range st.sums32 {
			st.sums64[h] = uint64(s)
		}
		st.sums32 = nil
	}
	st.total += count
	if st.sums64 == nil {
		return haar(loads, r, count, t, st, st.sums32, maxLoad)
	}
	return haar(loads, r, count, t, st, st.sums64, maxLoad)
}

// haar is Haar with the sums' width chosen.
func haar[L Load, S haarSum](loads []L, r *PCG32, count uint64, t *HaarTables, st *HaarState, sums []S, maxLoad L) L {
	if st.Stale <= 1 {
		return haarFresh(loads, r, count, t, st, sums, maxLoad)
	}
	for count > 0 {
		k := min(count, st.Stale-st.since)
		maxLoad = haarStale(loads, r, k, t, st, sums, maxLoad)
		count -= k
		st.since += k
		if st.since == st.Stale {
			haarRefresh(loads, t, st, sums)
			st.since = 0
		}
	}
	return maxLoad
}

// haarRefresh brings sums up to date with the loads.
func haarRefresh[L Load, S haarSum](loads []L, t *HaarTables, st *HaarState, sums []S) {
	if st.Pending == nil {
		haarSums(sums, loads, t.Leaf)
		return
	}
	for _, leaf := range st.Pending {
		for h := leaf; h > 1; h >>= 1 {
			sums[h]++
		}
	}
	st.Pending = st.Pending[:0]
}

// haarBatch is how many balls the loops draw ahead. Nothing a ball draws
// depends on the loads, so the draws of a batch (its edge record and alias
// column, a cache miss each on large graphs) are independent loads the
// processor overlaps; the decisions then run in order over the batch. The
// stream is consumed exactly as one ball at a time would. 256 measured a
// little ahead of 128 and 512 on random-regular:65536,3 (even on cycles).
const haarBatch = 256

// haarBall is a drawn ball: its edge, then endpoints x, y and their leaves;
// the raw output for its alias column, then the column, then its outcome
// code; the 32-bit keep comparand; the sizes of the outcome's set and of
// its sibling (read-only, so read ahead; sa holds the outcome's column
// field until it is decoded); and the tie coin.
type haarBall struct{ x, y, lx, ly, col, c, sa, sb, heads uint32 }

// haarDraws draws up to len(balls) balls in Haar's stream order and returns
// how many it drew (at least 1). The draws come first, then each table in
// its own tight loop of independent loads (edge records, alias columns,
// sizes and leaves), which keeps many cache misses in flight.
//
// The draws run before the edge records are read, so the column's Bounded
// (Len) takes its outputs on the assumption that Lemire's fast path holds
// (probability above 1 − Len/2^32): the loop over edge records checks it
// and, at the first ball where it fails, ends the batch there and draws
// that ball again exactly, from the state before it.
func haarDraws(s, inc uint64, word, left uint32, t *HaarTables, balls []haarBall) (uint64, uint32, uint32, int) {
	ne := uint32(len(t.Edges))
	s0, word0, left0 := s, word, left
	s, word, left = haarRawDraws(s, inc, word, left, ne, balls)
	n := haarEdges(t.Edges, balls)
	if n < len(balls) {
		// Replay the raw draws of the balls before it (overwritten by
		// haarEdges) to reach the state before ball n.
		s, word, left = haarRawDraws(s0, inc, word0, left0, ne, balls[:n])
		haarEdges(t.Edges, balls[:n])
		s, word, left = haarExactDraw(s, inc, word, left, t, &balls[n])
		n++
	}
	balls = balls[:n]
	slots, size, leaf := t.Slots, t.Size, t.Leaf
	for i := range balls {
		b := &balls[i]
		col := &slots[b.col]
		b.sa = selectIf(b.c < col.Keep, uint32(col.Own), uint32(col.Alias)) // the field, until decoded
		b.lx, b.ly = leaf[b.x], leaf[b.y]
	}
	for i := range balls {
		b := &balls[i]
		f := b.sa
		a := haarCode(b.lx, f)
		if f == HaarEscape {
			a = haarWideCode(t, b)
		}
		b.col = a
		b.sa, b.sb = size[a], size[a^1]
	}
	return s, word, left, n
}

// haarWideCode is the outcome of ball b, drawn in a column with a field
// HaarEscape: b.col is still the column, b.c its keep comparand.
func haarWideCode(t *HaarTables, b *haarBall) uint32 {
	w := t.wide(b.col)
	return selectIf(b.c < t.Slots[b.col].Keep, w.Own, w.Alias)
}

// haarRawDraws draws the balls' outputs with the column's fast path
// assumed (see haarDraws): the edge in x, the column's raw output in col.
func haarRawDraws(s, inc uint64, word, left, ne uint32, balls []haarBall) (uint64, uint32, uint32) {
	for i := range balls {
		var e, u, c, heads uint32
		s, e = boundedFast(s, inc, ne)
		s, u = step(s, inc)
		s, c = step(s, inc)
		s, word, left, heads = coin(s, inc, word, left)
		balls[i] = haarBall{x: e, col: u, c: c, heads: heads}
	}
	return s, word, left
}

// haarEdges reads the balls' edge records: endpoints in x and y, the
// alias column in col. It stops at the first ball whose column draw leaves
// Lemire's fast path and returns how many it did.
func haarEdges(edges []HaarEdge, balls []haarBall) int {
	for i := range balls {
		b := &balls[i]
		ed := &edges[b.x]
		m := uint64(b.col) * uint64(ed.Len)
		if uint32(m) < ed.Len {
			return i
		}
		b.x, b.y, b.col = ed.X, ed.Y, ed.Off+uint32(m>>32)
	}
	return len(balls)
}

// haarExactDraw draws one ball as PCG32 methods would, for the rare ball
// whose column draw leaves Lemire's fast path.
func haarExactDraw(s, inc uint64, word, left uint32, t *HaarTables, b *haarBall) (uint64, uint32, uint32) {
	var e, j, c, heads uint32
	s, e = bounded(s, inc, uint32(len(t.Edges)))
	ed := &t.Edges[e]
	s, j = bounded(s, inc, ed.Len)
	s, c = step(s, inc)
	s, word, left, heads = coin(s, inc, word, left)
	*b = haarBall{x: ed.X, y: ed.Y, col: ed.Off + j, c: c, heads: heads}
	return s, word, left
}

// haarFresh is Haar with sums updated after every ball: the leaf-to-root
// path of the chosen vertex, heap indices computed, not loaded.
func haarFresh[L Load, S haarSum](loads []L, r *PCG32, count uint64, t *HaarTables, st *HaarState, sums []S, maxLoad L) L {
	s, inc := r.state, r.inc()
	word, left := st.Coins.word, st.Coins.left
	// The path is the deepest leaf's, rounded up to even and unrolled by
	// two: a fixed trip count, with no mispredicted exit (see HaarState).
	steps := (t.depth() + 1) / 2
	var batch [haarBatch]haarBall
	for count > 0 {
		var n int
		s, word, left, n = haarDraws(s, inc, word, left, t, batch[:min(count, haarBatch)])
		count -= uint64(n)
		maxLoad = haarPlace(batch[:n], loads, sums, steps, maxLoad)
	}
	r.state = s
	st.Coins.word, st.Coins.left = word, left
	return maxLoad
}

// haarPlace places a batch of drawn balls in order, updating the sums after
// each. It is a call of its own, not inlined, so that the generator state
// and counts of haarFresh's outer loop, live across the draws' call, do not
// take registers from this loop: inlined, the compiler spilled and reloaded
// them every ball (the split measured 10–13% faster at n = 2^16).
//
//go:noinline
func haarPlace[L Load, S haarSum](balls []haarBall, loads []L, sums []S, steps int, maxLoad L) L {
	for i := range balls {
		b := &balls[i]
		a := b.col
		toY := heavierOrTie(uint64(sums[a]), uint64(b.sb), uint64(sums[a^1]), uint64(b.sa), b.heads)
		pick := selectIf(toY, b.y, b.x)
		l := loads[pick] + 1
		loads[pick] = l
		maxLoad = max(maxLoad, l)
		h := selectIf(toY, b.ly, b.lx)
		for range steps {
			sums[h]++
			sums[h>>1]++
			h >>= 2
		}
	}
	return maxLoad
}

// haarStale is Haar between two refreshes: sums are read, never written;
// the chosen leaves are queued when st.Pending is in use (a branch that goes
// the same way for the whole call).
func haarStale[L Load, S haarSum](loads []L, r *PCG32, count uint64, t *HaarTables, st *HaarState, sums []S, maxLoad L) L {
	s, inc := r.state, r.inc()
	word, left := st.Coins.word, st.Coins.left
	replay := st.Pending != nil
	pending := st.Pending
	var batch [haarBatch]haarBall
	for count > 0 {
		var n int
		s, word, left, n = haarDraws(s, inc, word, left, t, batch[:min(count, haarBatch)])
		balls := batch[:n]
		count -= uint64(n)
		for _, b := range balls {
			a := b.col
			toY := heavierOrTie(uint64(sums[a]), uint64(b.sb), uint64(sums[a^1]), uint64(b.sa), b.heads)
			pick := selectIf(toY, b.y, b.x)
			l := loads[pick] + 1
			loads[pick] = l
			maxLoad = max(maxLoad, l)
			if replay {
				pending = append(pending, selectIf(toY, b.ly, b.lx)) // within capacity Stale: no allocation
			}
		}
	}
	if replay {
		st.Pending = pending
	}
	r.state = s
	st.Coins.word, st.Coins.left = word, left
	return maxLoad
}

// heavierOrTie reports la/sa > lb/sb, or equality when heads is 1, exactly:
// la·sb + heads > lb·sa in 128 bits, as the borrow out of lb·sa − la·sb −
// heads, with no branch. Sizes are below 2^32 and sums below 2^64, so the
// products never overflow 128 bits.
func heavierOrTie(la, sb, lb, sa uint64, heads uint32) bool {
	ahi, alo := bits.Mul64(la, sb)
	bhi, blo := bits.Mul64(lb, sa)
	_, borrow := bits.Sub64(blo, alo, uint64(heads))
	_, borrow = bits.Sub64(bhi, ahi, borrow)
	return borrow != 0
}
