package graph

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// RandomRegular draws a simple d-regular graph on n vertices, uniformly at
// random in every case but the last below. Which method runs depends only on
// n and d (and, for the last fallback, on the draws), and Origin names it:
//
//   - d = n−1: the complete graph, the only one.
//   - d > (n−1)/2: the complement of a random (n−1−d)-regular graph, drawn as
//     below; complementing is a bijection, so uniformity carries over.
//   - else one of two exact methods, the one with the smaller predicted work
//     if that is at most max(2^28, 10·|E|·ln|E|) point operations:
//     the pairing model followed by switchings that remove its loops and
//     double pairs, after McKay & Wormald 1990 ("Uniform generation of random
//     regular graphs of moderate degree", J. Algorithms 11), with f- and
//     b-rejection (see switchSampler; it suits d up to about n^{1/3}, and
//     runs for d ≥ 3), or the pairing model with rejection, restarting at the
//     first loop or repeated edge (about e^{(d²−1)/4} attempts; it runs for
//     d ≤ 2 and for small n). Both are exactly uniform.
//   - otherwise: the pairing model, switches that remove its loops and
//     repeated edges, then 10·|E|·ln|E| steps of the switch chain (double-edge
//     swaps that keep the graph simple). The chain's stationary law is uniform
//     and it mixes in polynomial time (Cooper, Dyer & Greenhill 2007), but no
//     proven bound is as small as that step count: approximately uniform.
//
// The edges are the pairs in the order the pairing formed them; a switching
// puts the pairs it makes in the slots of those it removes. A complement
// lists its edges in lexicographic order.
func RandomRegular(spec string, n, d uint64, rng *kernels.PCG32) (*Graph, error) {
	switch {
	case n < 1 || n > MaxVertices:
		return nil, fmt.Errorf("--graph %s: random-regular:n,d needs 1 ≤ n ≤ %d vertices", spec, uint64(MaxVertices))
	case d < 1:
		return nil, fmt.Errorf("--graph %s: random-regular:n,d needs degree d ≥ 1", spec)
	case d >= n:
		return nil, fmt.Errorf("--graph %s: no simple %d-regular graph on %d vertices: the degree must be below n", spec, d, n)
	case n%2 == 1 && d%2 == 1:
		return nil, fmt.Errorf("--graph %s: no d-regular graph on n vertices when n·d is odd (n = %d, d = %d)", spec, n, d)
	}
	if hi, lo := bits.Mul64(n, d); hi != 0 || lo/2 > 1<<31 {
		return nil, fmt.Errorf("--graph %s: n·d/2 = %d·%d/2 edges is more than 2^31", spec, n, d)
	}
	if err := checkBuild("--graph", spec, regularBytes(n, d)); err != nil {
		return nil, err
	}
	edges, how, err := drawRegular(n, d, rng)
	if err != nil {
		return nil, fmt.Errorf("--graph %s: %v", spec, err)
	}
	origin := fmt.Sprintf("random %d-regular on %d vertices: %s, drawn from the run's seed", d, n, how)
	return NewExplicit(spec, n, edges, origin), nil
}

// drawRegular returns the edge array of a random simple d-regular graph and
// says how it was drawn. n·d is even, 1 ≤ d < n and n·d ≤ 2^32.
func drawRegular(n, d uint64, rng *kernels.PCG32) ([]uint32, string, error) {
	if d == n-1 {
		return completeEdges(n, nil), "the complete graph, the only (n−1)-regular graph (exactly uniform)", nil
	}
	if 2*d > n-1 {
		inner, how, err := drawRegular(n, n-1-d, rng)
		if err != nil {
			return nil, "", err
		}
		return completeEdges(n, inner), fmt.Sprintf("the complement of a random %d-regular graph drawn by the %s", n-1-d, how), nil
	}
	// The exact method with the least predicted work, if that is not much
	// more than the switch chain's; else the chain.
	m := n * d
	df, mf, ef := float64(d), float64(m), float64(m/2)
	swAttempts := switchAttempts(n, d)
	swWork := swAttempts * mf
	rjWork := math.Exp((df*df-1)/4) * ef
	budget := max(1<<28, 10*ef*math.Log(ef))
	switch {
	case swWork <= budget && swWork <= rjWork:
		s := newSwitchSampler(n, d, rng)
		most := uint64(max(1000, 50*swAttempts))
		if s.run(most) {
			how := fmt.Sprintf("pairing model with McKay–Wormald loop and double-pair switchings, b-rejection by incremental relaxation (exactly uniform, %s, %s)",
				countNoun(s.attempts, "attempt"), countNoun(s.switchings, "switching"))
			return s.edges(), how, nil
		}
		edges, how, err := drawChain(n, d, rng)
		return edges, fmt.Sprintf("%s; the exact switching sampler gave up after %d attempts", how, s.attempts), err
	case rjWork <= budget:
		most := uint64(max(1<<31, 50*rjWork))
		if edges, attempts, ok := drawRejection(n, d, rng, most); ok {
			return edges, fmt.Sprintf("pairing model with rejection (exactly uniform, %s)", countNoun(attempts, "attempt")), nil
		}
		edges, how, err := drawChain(n, d, rng)
		return edges, fmt.Sprintf("%s; rejection gave up after %d pairs formed", how, most), err
	}
	return drawChain(n, d, rng)
}

// completeEdges lists, in lexicographic order, the pairs {u < v} that are
// not edges of the simple graph inner (nil: the complete graph).
func completeEdges(n uint64, inner []uint32) []uint32 {
	out := make([]uint32, 0, n*(n-1)-uint64(len(inner)))
	if inner == nil {
		for u := range n {
			for v := u + 1; v < n; v++ {
				out = append(out, uint32(u), uint32(v))
			}
		}
		return out
	}
	g := NewExplicit("", n, inner, "")
	stamp := make([]uint32, n)
	for u := range n {
		tag := uint32(u) + 1
		for _, w := range g.Adj[g.Offsets[u]:g.Offsets[u+1]] {
			stamp[w] = tag
		}
		for v := u + 1; v < n; v++ {
			if stamp[v] != tag {
				out = append(out, uint32(u), uint32(v))
			}
		}
	}
	return out
}

// countNoun writes "1 attempt", "12 attempts".
func countNoun(k uint64, noun string) string {
	if k == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", k, noun)
}

// shufflePairing makes pts, which holds each of the points 0..len−1 once in
// any order, a uniformly random pairing: pair k is pts[2k], pts[2k+1]. The
// point at an even position is paired with one drawn uniformly from the
// points after it, whatever order pts started in.
func shufflePairing(pts []uint32, rng *kernels.PCG32) {
	m := uint64(len(pts))
	for i := uint64(0); i < m; i += 2 {
		j := i + 1 + uint64(rng.Bounded(uint32(m-i-1)))
		pts[i+1], pts[j] = pts[j], pts[i+1]
	}
}

// identityPoints returns the points 0..n·d−1 of the pairing model (point p
// belongs to vertex p/d).
func identityPoints(m uint64) []uint32 {
	pts := make([]uint32, m)
	for i := range pts {
		pts[i] = uint32(i)
	}
	return pts
}

// pointsToVertices turns a pairing into its edge array, in place.
func pointsToVertices(pts []uint32, d uint64) []uint32 {
	d32 := uint32(d)
	for i, p := range pts {
		pts[i] = p / d32
	}
	return pts
}

// drawRejection draws uniform pairings until one has no loop and no repeated
// edge, abandoning each at its first. The accepted pairing is uniform among
// the simple ones, and each simple graph comes from (d!)^n of them, so the
// graph is uniform. It gives up (ok false) after maxPairs pairs in all.
func drawRejection(n, d uint64, rng *kernels.PCG32, maxPairs uint64) (edges []uint32, attempts uint64, ok bool) {
	m := n * d
	d32 := uint32(d)
	pts := identityPoints(m)
	nb := make([]uint32, m) // nb[v·d : v·d+cnt[v]]: v's neighbours so far
	cnt := make([]uint32, n)
	var formed uint64
	for attempts = 1; formed <= maxPairs; attempts++ {
		clear(cnt)
		simple := true
		i := uint64(0)
		for ; i < m; i += 2 {
			j := i + 1 + uint64(rng.Bounded(uint32(m-i-1)))
			pts[i+1], pts[j] = pts[j], pts[i+1]
			u, v := pts[i]/d32, pts[i+1]/d32
			if u == v || slices.Contains(nb[u*d32:u*d32+cnt[u]], v) {
				simple = false
				break
			}
			nb[u*d32+cnt[u]] = v
			cnt[u]++
			nb[v*d32+cnt[v]] = u
			cnt[v]++
		}
		formed += i/2 + 1
		if simple {
			return pointsToVertices(pts, d), attempts, true
		}
	}
	return nil, attempts - 1, false
}

// switchAttempts predicts the pairings the switching sampler draws per
// graph: about e^{1.4·d³/n}, fitted to measured rates for 3 ≤ d ≤ 30 and
// 20 ≤ n ≤ 10^5 (most of the loss is f-rejection, whose probability per
// switching is O(d/n) while there are about d²/4 switchings). It is +Inf
// where the sampler's bounds below leave too little room: they must keep
// half their ceiling for pairings with twice the expected loops ((d−1)/2)
// and double pairs ((d−1)²/4).
func switchAttempts(n, d uint64) float64 {
	if d < 3 || d > 1<<10 {
		return math.Inf(1)
	}
	l := int64(d)
	m := int64((d-1)*(d-1)/2 + 2)
	s := switchBounds{n: int64(n), d: int64(d)}
	half := int64(n) * int64(d) * int64(d-1) / 2
	if s.lb1(l, m) < half || s.lb2Double(m) < half || s.lb2Loop(l, m) < int64(n*d)/2 {
		return math.Inf(1)
	}
	df := float64(d)
	return math.Exp(1.4 * df * df * df / float64(n))
}

// switchBounds holds the lower bounds of the switching sampler's
// b-rejection, for the class of pairings with l loops and m double pairs.
type switchBounds struct{ n, d int64 }

// lb1 bounds |T| below, where T is the set of ordered pairs of distinct
// points of one loop-free vertex that both lie in single edges: a vertex
// with a loop loses all d(d−1), and each endpoint of a double pair loses at
// most d(d−1) − (d−2)(d−3) = 4d−6.
func (s switchBounds) lb1(l, m int64) int64 {
	d := s.d
	return (s.n-l)*d*(d-1) - 2*m*(4*d-6)
}

// lb2Loop bounds below the number of single-edge point pairs (q, s) that
// complete a given t into an inverse loop switching: all M − 2l − 4m of them
// but those with q in {v2, v3} ∪ N(v2) or s in {v2, v3} ∪ N(v3), at most
// (d+2)·d each.
func (s switchBounds) lb2Loop(l, m int64) int64 {
	d := s.d
	return s.n*d - 2*l - 4*m - 2*d*(d+2)
}

// lb2Double bounds below the number of t2 in T that complete a given t1 into
// an inverse double switching: |T| less those centred in {v1} ∪ N(v1) (at
// most d+1 vertices) or reaching {v3, v4} ∪ N(v3) or {v3, v4} ∪ N(v4) (at
// most d+2 each), each vertex accounting for at most d(d−1) of them.
func (s switchBounds) lb2Double(m int64) int64 {
	d := s.d
	return s.lb1(0, m) - (3*d+5)*d*(d-1)
}

// switchSampler draws a uniformly random simple d-regular graph by the
// pairing model and switchings, after McKay & Wormald (1990).
//
// A pairing of the n·d points is in class C(l, m) when it has l loops and m
// double pairs, no pair of multiplicity 3 or more and no vertex with two
// loops. A uniform pairing conditioned on its class is uniform in the class.
// An attempt draws a uniform pairing and restarts if it is in no class (or in
// one whose bounds below are not positive), then removes the loops one by
// one with loop switchings C(l, m) → C(l−1, m), then the double pairs with
// double switchings C(0, m) → C(0, m−1). Each switching keeps the pairing
// uniform in its new class, or restarts:
//
//   - f-rejection: the switching is chosen uniformly from a fixed superset of
//     f̄ candidates (a defect, its orientation, two points), restarting if the
//     candidate is not a valid switching, so every valid one is taken with
//     probability 1/f̄ whatever the pairing.
//   - b-rejection: the new pairing P' can be reached from b(P') = Σ over
//     inverse structures S = (s1, s2) in P'. Rather than count b(P') exactly,
//     incremental relaxation (Arman, Gao & Wormald 2019, "Fast uniform
//     generation of random graphs with given degree sequences", §2) accepts
//     with probability lb1/|A1(P')| · lb2/|A2(s1)|, where A1 is the set of s1
//     meeting the constraints on s1 alone, A2(s1) the s2 completing s1, and
//     lb1, lb2 bounds below over the class. The acceptance summed over the
//     structures of any P' is lb1·lb2, the same for every P' in the class.
//
// The bounds are looser than McKay & Wormald's but valid (see switchBounds);
// a count below its bound is a bug and panics.
type switchSampler struct {
	n, d, m uint64 // vertices, degree, points
	d32     uint32
	rng     *kernels.PCG32
	b       switchBounds

	pts  []uint32 // the pairing as drawn: pair k was pts[2k], pts[2k+1]
	mate []uint32 // mate[p]: p's partner now, after the switchings

	defects []uint32    // per vertex: its points in a loop or a double pair
	loopAt  []bool      // per vertex: has a loop
	loops   []uint32    // the vertices with a loop
	doubles [][2]uint32 // the double pairs, as vertex pairs
	tsum    int64       // |T|: Σ over loop-free v of s(v)(s(v)−1), s(v) = d − defects[v]

	mark []uint32 // mark[v]>>3 == gen: v is in the sets whose bits are set
	gen  uint32

	attempts, switchings uint64
	scratch              []uint32
}

func newSwitchSampler(n, d uint64, rng *kernels.PCG32) *switchSampler {
	m := n * d
	return &switchSampler{
		n: n, d: d, m: m, d32: uint32(d), rng: rng,
		b:       switchBounds{n: int64(n), d: int64(d)},
		pts:     identityPoints(m),
		mate:    make([]uint32, m),
		defects: make([]uint32, n),
		loopAt:  make([]bool, n),
		mark:    make([]uint32, n),
		scratch: make([]uint32, d),
	}
}

// run draws pairings until one is switched to a simple graph (true), or gives
// up after maxAttempts.
func (s *switchSampler) run(maxAttempts uint64) bool {
	for s.attempts < maxAttempts {
		s.attempts++
		s.switchings = 0
		if s.attempt() {
			return true
		}
	}
	return false
}

// attempt draws one pairing and switches it; false means restart.
func (s *switchSampler) attempt() bool {
	shufflePairing(s.pts, s.rng)
	for k := 0; k < len(s.pts); k += 2 {
		x, y := s.pts[k], s.pts[k+1]
		s.mate[x], s.mate[y] = y, x
	}
	if !s.classify() {
		return false
	}
	l, m := int64(len(s.loops)), int64(len(s.doubles))
	// Restarting on the class alone keeps the pairing uniform in its class.
	if l > 0 && (s.b.lb1(l-1, m) < 1 || s.b.lb2Loop(l-1, m) < 1) {
		return false
	}
	if m > 0 && (s.b.lb1(0, m-1) < 1 || s.b.lb2Double(m-1) < 1) {
		return false
	}
	for len(s.loops) > 0 {
		if !s.loopSwitch() {
			return false
		}
		s.switchings++
	}
	for len(s.doubles) > 0 {
		if !s.doubleSwitch() {
			return false
		}
		s.switchings++
	}
	return true
}

// edges returns the simple graph's edge array (the sampler is spent): the
// pairs as drawn, in their slots, with the pairs the switchings made filling
// the slots of those they removed, in order.
func (s *switchSampler) edges() []uint32 {
	var freed []int // slots whose pair was switched away
	for k := 0; k < len(s.pts); k += 2 {
		if s.mate[s.pts[k]] != s.pts[k+1] {
			freed = append(freed, k)
		}
	}
	// Every point of a new pair was in a freed slot, so the new pairs are
	// exactly as many as the freed slots.
	var made [][2]uint32
	done := make(map[uint32]bool, 2*len(freed))
	for _, k := range freed {
		for _, x := range s.pts[k : k+2] {
			if !done[x] {
				done[x], done[s.mate[x]] = true, true
				made = append(made, [2]uint32{x, s.mate[x]})
			}
		}
	}
	for i, k := range freed {
		s.pts[k], s.pts[k+1] = made[i][0], made[i][1]
	}
	return pointsToVertices(s.pts, s.d)
}

func (s *switchSampler) partner(p uint32) uint32 { return s.mate[p] }
func (s *switchSampler) vert(p uint32) uint32    { return p / s.d32 }

// single reports whether point p lies in a pair that is neither a loop nor
// one of a double pair.
func (s *switchSampler) single(p uint32) bool {
	u, w := s.vert(p), s.vert(s.partner(p))
	return u != w && (s.defects[u] == 0 || s.mult(u, w) == 1)
}

// mult counts the pairs joining u to w ≠ u. (Here and below, a loop over
// the points of a vertex stops at end = (v+1)·d, which wraps to 0 for the
// last vertex when n·d = 2^32, as p does.)
func (s *switchSampler) mult(u, w uint32) int {
	c := 0
	for p, end := u*s.d32, u*s.d32+s.d32; p != end; p++ {
		if s.vert(s.partner(p)) == w {
			c++
		}
	}
	return c
}

func (s *switchSampler) adjacent(u, w uint32) bool {
	for p, end := u*s.d32, u*s.d32+s.d32; p != end; p++ {
		if s.vert(s.partner(p)) == w {
			return true
		}
	}
	return false
}

// sv is s(v), the points of v in single pairs.
func (s *switchSampler) sv(v uint32) int64 { return int64(s.d32 - s.defects[v]) }

// contrib is v's share of |T|.
func (s *switchSampler) contrib(v uint32) int64 {
	if s.loopAt[v] {
		return 0
	}
	x := s.sv(v)
	return x * (x - 1)
}

func (s *switchSampler) pair(x, y uint32) { s.mate[x], s.mate[y] = y, x }

// classify finds the loops and double pairs; false if the pairing is in no
// class (a pair of multiplicity 3 or more, or two loops at a vertex).
func (s *switchSampler) classify() bool {
	clear(s.defects)
	clear(s.loopAt)
	s.loops, s.doubles = s.loops[:0], s.doubles[:0]
	s.tsum = 0
	for v := uint32(0); uint64(v) < s.n; v++ {
		base := uint64(v) * s.d
		nb := s.scratch
		for j, p := range s.mate[base : base+s.d] {
			nb[j] = p / s.d32
		}
		if len(nb) > 16 {
			slices.Sort(nb)
		}
		// Count each neighbour once, at its first appearance.
		for j, w := range nb {
			if slices.Contains(nb[:j], w) {
				continue
			}
			c := 1
			for _, x := range nb[j+1:] {
				if x == w {
					c++
				}
			}
			switch {
			case c > 2:
				return false
			case c == 2:
				s.defects[v] += 2
				if w == v {
					s.loopAt[v] = true
					s.loops = append(s.loops, v)
				} else if v < w {
					s.doubles = append(s.doubles, [2]uint32{v, w})
				}
			}
		}
	}
	for v := uint32(0); uint64(v) < s.n; v++ {
		s.tsum += s.contrib(v)
	}
	return true
}

func (s *switchSampler) bit() bool { return s.rng.Uint32()&1 == 1 }

func (s *switchSampler) point() uint32 { return uint32(s.rng.Bounded64(s.m)) }

// accept is true with probability num/den, exactly.
func (s *switchSampler) accept(num, den int64, what string) bool {
	if num > den || num < 1 {
		panic(fmt.Sprintf("graph: switching %s bound %d against count %d", what, num, den))
	}
	return int64(s.rng.Bounded64(uint64(den))) < num
}

func distinct(vs ...uint32) bool {
	for i := range vs {
		for j := range i {
			if vs[i] == vs[j] {
				return false
			}
		}
	}
	return true
}

// loopSwitch removes a loop: the loop {a1, a2} at v1 and the single pairs
// {p, q} (v2–v4) and {r, s} (v3–v5) become {a1, p}, {a2, r} and {q, s}. It
// is valid when v1..v5 are distinct and v1v2, v1v3, v4v5 are not edges.
// Candidates: f̄ = 2·l·M² (loop, orientation, p, r).
func (s *switchSampler) loopSwitch() bool {
	i := s.rng.Bounded64(uint64(len(s.loops)))
	v1 := s.loops[i]
	var a [2]uint32
	k := 0
	for p, end := v1*s.d32, v1*s.d32+s.d32; p != end; p++ {
		if s.vert(s.partner(p)) == v1 {
			a[k] = p
			k++
		}
	}
	a1, a2 := a[0], a[1]
	if s.bit() {
		a1, a2 = a2, a1
	}
	p, r := s.point(), s.point()
	if !s.loopValid(a1, p, r) {
		return false
	}
	q, t := s.partner(p), s.partner(r)
	s.pair(a1, p)
	s.pair(a2, r)
	s.pair(q, t)
	s.tsum -= s.contrib(v1)
	s.loopAt[v1] = false
	s.defects[v1] -= 2
	s.tsum += s.contrib(v1)
	last := len(s.loops) - 1
	s.loops[i] = s.loops[last]
	s.loops = s.loops[:last]

	// b-rejection, with s1 = (a1, a2) and s2 = (q, t).
	l, m := int64(len(s.loops)), int64(len(s.doubles))
	if !s.accept(s.b.lb1(l, m), s.tsum, "loop s1") {
		return false
	}
	return s.accept(s.b.lb2Loop(l, m), s.loopCompletions(a1, a2), "loop s2")
}

// loopValid reports whether the loop switching of the loop at a1's vertex
// v1, oriented so that a1 goes to p, with the pairs {p, q} (v2–v4) and
// {r, t} (v3–v5), is valid.
func (s *switchSampler) loopValid(a1, p, r uint32) bool {
	q, t := s.partner(p), s.partner(r)
	v1, v2, v4, v3, v5 := s.vert(a1), s.vert(p), s.vert(q), s.vert(r), s.vert(t)
	return distinct(v1, v2, v3, v4, v5) && s.single(p) && s.single(r) &&
		!s.adjacent(v1, v2) && !s.adjacent(v1, v3) && !s.adjacent(v4, v5)
}

// loopCompletions counts, for s1 = (a1, a2) in T (two single points of a
// loop-free vertex v1, paired with p in v2 and r in v3), the s2 = (q, t)
// that complete it into an inverse loop switching: single pairs, ordered,
// with v4 = vert(q) ∉ {v2, v3} ∪ N(v2) and v5 = vert(t) ∉ {v2, v3} ∪ N(v3).
func (s *switchSampler) loopCompletions(a1, a2 uint32) int64 {
	l, m := int64(len(s.loops)), int64(len(s.doubles))
	u := int64(s.m) - 2*l - 4*m // single points
	return u - s.loopBad(s.vert(s.partner(a1)), s.vert(s.partner(a2)))
}

// nextGen starts new marked sets.
func (s *switchSampler) nextGen() {
	s.gen++
	if s.gen >= 1<<29 {
		clear(s.mark)
		s.gen = 1
	}
}

// markSet marks v in the set with bit b and reports whether it was new to it.
func (s *switchSampler) markSet(v uint32, b uint32) bool {
	x := s.mark[v]
	if x>>3 != s.gen {
		x = s.gen << 3
	}
	if x&b != 0 {
		return false
	}
	s.mark[v] = x | b
	return true
}

func (s *switchSampler) inSet(v uint32, b uint32) bool {
	x := s.mark[v]
	return x>>3 == s.gen && x&b != 0
}

// collect marks {x, y} ∪ N(c) with bit b and appends them (once) to dst.
func (s *switchSampler) collect(dst []uint32, b, x, y, c uint32) []uint32 {
	for _, v := range [2]uint32{x, y} {
		if s.markSet(v, b) {
			dst = append(dst, v)
		}
	}
	for p, end := c*s.d32, c*s.d32+s.d32; p != end; p++ {
		if w := s.vert(s.partner(p)); s.markSet(w, b) {
			dst = append(dst, w)
		}
	}
	return dst
}

// loopBad counts the single pairs (q, t), ordered, with q in
// B4 = {v2, v3} ∪ N(v2) or t in B5 = {v2, v3} ∪ N(v3).
func (s *switchSampler) loopBad(v2, v3 uint32) int64 {
	s.nextGen()
	b4 := s.collect(nil, 1, v2, v3, v2)
	b5 := s.collect(nil, 2, v2, v3, v3)
	var bad int64
	for _, w := range b4 {
		bad += s.sv(w)
	}
	for _, w := range b5 {
		for x, end := w*s.d32, w*s.d32+s.d32; x != end; x++ {
			if s.single(x) && !s.inSet(s.vert(s.partner(x)), 1) {
				bad++
			}
		}
	}
	return bad
}

// doubleSwitch removes a double pair: {a1, b1} and {a2, b2} joining v1 to
// v2, and the single pairs {p, q} (v3–v5) and {r, t} (v4–v6), become
// {a1, p}, {a2, r}, {b1, q}, {b2, t}. It is valid when v1..v6 are distinct
// and v1v3, v1v4, v2v5, v2v6 are not edges. Candidates: f̄ = 4·m·M² (double
// pair, which end is v1, which of its pairs is first, p, r).
func (s *switchSampler) doubleSwitch() bool {
	i := s.rng.Bounded64(uint64(len(s.doubles)))
	v1, v2 := s.doubles[i][0], s.doubles[i][1]
	if s.bit() {
		v1, v2 = v2, v1
	}
	var a [2]uint32
	k := 0
	for p, end := v1*s.d32, v1*s.d32+s.d32; p != end; p++ {
		if s.vert(s.partner(p)) == v2 {
			a[k] = p
			k++
		}
	}
	a1, a2 := a[0], a[1]
	if s.bit() {
		a1, a2 = a2, a1
	}
	b1, b2 := s.partner(a1), s.partner(a2)
	p := s.point()
	q := s.partner(p)
	r := s.point()
	t := s.partner(r)
	v3, v5, v4, v6 := s.vert(p), s.vert(q), s.vert(r), s.vert(t)
	if !distinct(v1, v2, v3, v4, v5, v6) || !s.single(p) || !s.single(r) ||
		s.adjacent(v1, v3) || s.adjacent(v1, v4) || s.adjacent(v2, v5) || s.adjacent(v2, v6) {
		return false
	}
	s.pair(a1, p)
	s.pair(a2, r)
	s.pair(b1, q)
	s.pair(b2, t)
	s.tsum -= s.contrib(v1) + s.contrib(v2)
	s.defects[v1] -= 2
	s.defects[v2] -= 2
	s.tsum += s.contrib(v1) + s.contrib(v2)
	last := len(s.doubles) - 1
	s.doubles[i] = s.doubles[last]
	s.doubles = s.doubles[:last]

	// b-rejection. s1 = (a1, a2): two single points of one vertex v1, going
	// to v3 and v4; s2 = (b1, b2): two single points of a vertex v2 ∉ {v1} ∪
	// N(v1), going to v5 ∉ {v3, v4} ∪ N(v3) and v6 ∉ {v3, v4} ∪ N(v4).
	m := int64(len(s.doubles))
	if !s.accept(s.b.lb1(0, m), s.tsum, "double s1") {
		return false
	}
	return s.accept(s.b.lb2Double(m), s.tsum-s.doubleBad(v1, v3, v4), "double s2")
}

// doubleBad counts the t2 = (b1, b2) in T that do not complete t1: centred
// in X = {v1} ∪ N(v1), or else with v5 in Y5 = {v3, v4} ∪ N(v3), or else
// with v6 in Y6 = {v3, v4} ∪ N(v4).
func (s *switchSampler) doubleBad(v1, v3, v4 uint32) int64 {
	s.nextGen()
	x := s.collect(nil, 1, v1, v1, v1)
	y5 := s.collect(nil, 2, v3, v4, v3)
	y6 := s.collect(nil, 4, v3, v4, v4)
	var bad int64
	for _, w := range x {
		bad += s.contrib(w)
	}
	for _, w5 := range y5 {
		for p, end := w5*s.d32, w5*s.d32+s.d32; p != end; p++ {
			if !s.single(p) {
				continue
			}
			if w2 := s.vert(s.partner(p)); !s.inSet(w2, 1) {
				bad += s.sv(w2) - 1
			}
		}
	}
	for _, w6 := range y6 {
		for p, end := w6*s.d32, w6*s.d32+s.d32; p != end; p++ {
			if !s.single(p) {
				continue
			}
			b2 := s.partner(p)
			w2 := s.vert(b2)
			if s.inSet(w2, 1) {
				continue
			}
			for b1, end := w2*s.d32, w2*s.d32+s.d32; b1 != end; b1++ {
				if b1 != b2 && s.single(b1) && !s.inSet(s.vert(s.partner(b1)), 2) {
					bad++
				}
			}
		}
	}
	return bad
}

// drawChain draws a uniform pairing, switches away its loops and repeated
// edges, then runs the switch chain for 10·|E|·ln|E| steps: approximately
// uniform.
func drawChain(n, d uint64, rng *kernels.PCG32) ([]uint32, string, error) {
	m := n * d
	e := m / 2
	steps := uint64(math.Ceil(10 * float64(e) * math.Log(float64(e))))
	c := chain{d32: uint32(d), rng: rng, pts: identityPoints(m), nbv: make([]uint32, m)}
	for restarts := 0; ; restarts++ {
		if restarts == 100 {
			return nil, "", fmt.Errorf("random %d-regular on %d vertices: could not switch the pairing model's loops and repeated edges away", d, n)
		}
		shufflePairing(c.pts, rng)
		if c.simplify() {
			break
		}
	}
	accepted := c.run(steps)
	how := fmt.Sprintf("pairing model, switches removing its loops and repeated edges, then the switch chain (approximately uniform, %d switch steps = 10·|E|·ln|E|, %d accepted)", steps, accepted)
	return pointsToVertices(c.pts, d), how, nil
}

// chain is the pairing-model multigraph under double-edge swaps.
type chain struct {
	d32 uint32
	rng *kernels.PCG32
	pts []uint32 // pair k is pts[2k], pts[2k+1]
	nbv []uint32 // nbv[p]: the vertex of p's partner
}

func (c *chain) mult(u, w uint32) int {
	k := 0
	lo := uint64(u) * uint64(c.d32)
	for _, x := range c.nbv[lo : lo+uint64(c.d32)] {
		if x == w {
			k++
		}
	}
	return k
}

// swap replaces pairs i = {a, b} and j = {x, y} by {a, y} and {x, b} when the
// new edges are neither loops nor present nor equal.
func (c *chain) swap(i, j uint64) bool {
	a, b, x, y := c.pts[2*i], c.pts[2*i+1], c.pts[2*j], c.pts[2*j+1]
	if c.rng.Uint32()&1 == 1 {
		x, y = y, x
	}
	u, v, w, z := a/c.d32, b/c.d32, x/c.d32, y/c.d32
	if u == z || w == v || (min(u, z) == min(w, v) && max(u, z) == max(w, v)) ||
		c.mult(u, z) > 0 || c.mult(w, v) > 0 {
		return false
	}
	c.pts[2*i+1], c.pts[2*j], c.pts[2*j+1] = y, x, b
	c.nbv[a], c.nbv[y], c.nbv[x], c.nbv[b] = z, u, v, w
	return true
}

// simplify switches every loop and repeated edge away, pairing each with a
// random other pair until the swap is allowed; false if one is stuck.
func (c *chain) simplify() bool {
	for i, p := range c.pts {
		c.nbv[p] = c.pts[i^1] / c.d32
	}
	e := uint64(len(c.pts) / 2)
	for i := range e {
		for tries := uint64(0); ; tries++ {
			u, v := c.pts[2*i]/c.d32, c.pts[2*i+1]/c.d32
			if u != v && c.mult(u, v) == 1 {
				break
			}
			if tries > 100*e+1000 {
				return false
			}
			if j := c.rng.Bounded64(e); j != i {
				c.swap(i, j)
			}
		}
	}
	return true
}

// run takes steps of the switch chain: two uniform pairs, a uniform way to
// swap them, done when the graph stays simple. It returns the swaps done.
func (c *chain) run(steps uint64) uint64 {
	e := uint64(len(c.pts) / 2)
	var done uint64
	for range steps {
		i, j := c.rng.Bounded64(e), c.rng.Bounded64(e)
		if i != j && c.swap(i, j) {
			done++
		}
	}
	return done
}

// ErdosRenyi draws G(n, p): every pair {u < v} is an edge independently
// with probability p. It skips from edge to edge by geometric draws
// (Batagelj & Brandes 2005, "Efficient generation of large random networks",
// Phys. Rev. E 71, Algorithm 1), in O(E) time: the gap before the next edge
// is ⌊ln U / ln(1−p)⌋ with U uniform in (0, 1] from 53 random bits. Edges are
// in lexicographic order, u < v.
func ErdosRenyi(spec string, n uint64, p float64, rng *kernels.PCG32) (*Graph, error) {
	if n > MaxVertices {
		return nil, fmt.Errorf("--graph %s: erdos-renyi:n,p needs n ≤ %d vertices", spec, uint64(MaxVertices))
	}
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("--graph %s: p = %v: want a probability in [0, 1]", spec, p)
	}
	var pairs uint64
	if n >= 2 {
		pairs = n * (n - 1) / 2
	}
	mean := p * float64(pairs)
	if mean > 1<<31 {
		return nil, fmt.Errorf("--graph %s: expects p·n(n−1)/2 = %.4g edges, more than 2^31", spec, mean)
	}
	noEdges := fmt.Errorf("--graph %s: G(n,p) drew no edges (n = %d, p = %v): the allocation needs at least one", spec, n, p)
	if pairs == 0 || p == 0 {
		return nil, noEdges
	}
	origin := fmt.Sprintf("G(n, p) on %d vertices with p = %v: every pair independently, by geometric skipping (Batagelj & Brandes 2005), drawn from the run's seed", n, p)
	want := mean + 6*math.Sqrt(mean) + 16
	// The edge array as reserved (8 bytes an edge), then the graph's arrays.
	if err := checkBuild("--graph", spec, units.Add(units.Mul(8, uint64(want)), explicitBytes(n, uint64(want)))); err != nil {
		return nil, err
	}
	if p == 1 {
		return NewExplicit(spec, n, completeEdges(n, nil), origin), nil
	}
	edges := make([]uint32, 0, 2*uint64(want))
	lq := math.Log1p(-p)
	u := uint64(0)
	next := rowStart(1, n) // where row u+1 starts
	at := uint64(0)        // lexicographic index of the next candidate pair
	for {
		gap := math.Floor(math.Log(1-rng.Float64()) / lq)
		if !(gap < float64(pairs-at)) || uint64(gap) >= pairs-at {
			break
		}
		at += uint64(gap)
		if at >= next {
			u = rowOf(at, n)
			next = rowStart(u+1, n)
		}
		if len(edges) >= 1<<32 {
			return nil, fmt.Errorf("--graph %s: G(n,p) drew more than 2^31 edges", spec)
		}
		v := u + 1 + (at - rowStart(u, n))
		edges = append(edges, uint32(u), uint32(v))
		at++
		if at == pairs {
			break
		}
	}
	if len(edges) == 0 {
		return nil, noEdges
	}
	return NewExplicit(spec, n, edges, origin), nil
}

// rowStart is the lexicographic index of the pair (u, u+1) among the pairs
// {u < v} of n vertices: u·n − u(u+1)/2.
func rowStart(u, n uint64) uint64 { return u*n - u*(u+1)/2 }

// rowOf returns the u whose row holds pair index i: the largest u with
// rowStart(u) ≤ i, from the quadratic formula then corrected exactly.
func rowOf(i, n uint64) uint64 {
	b := 2*float64(n) - 1
	x := (b - math.Sqrt(max(0, b*b-8*float64(i)))) / 2
	u := uint64(max(0, min(x, float64(n-2))))
	for u > 0 && rowStart(u, n) > i {
		u--
	}
	for u+1 < n-1 && rowStart(u+1, n) <= i {
		u++
	}
	return u
}
