package optimal

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/balloc/balloc/core/units"
)

// maxMoves bounds the distinct loads of one state: a policy keeps one bit
// per distinct load in a uint64. A state with r distinct positive loads
// holds at least r(r+1)/2 balls, so m < 2016 always fits.
const maxMoves = 64

// Move is one outcome of a sample at a state: Count of the n bins have
// load Load, and a ball placed in one of them leads to state Next of the
// next level.
type Move struct {
	Next  uint32 // rank in level t+1
	Load  uint32
	Count uint32
}

// counts holds P(t, k, j), the partitions of t into at most j parts each at
// most k, for t, k ≤ m and j ≤ J = min(n, m) (a partition of t ≤ m has at
// most m parts, so larger j read as J), and the rank offsets
// Q(t, v, j) = Σ_{u=1}^{v−1} P(t−u, u, j−1): the partitions of t into at
// most j parts whose largest part is below v. Counts saturate at 2^64 − 1,
// which only sizes too large to allocate reach.
type counts struct {
	m, J int
	p, q []uint64
}

func (c *counts) at(t, k, j int) int { return (t*(c.m+1)+k)*(c.J+1) + j }

// newCounts fills P by P(t, k, j) = P(t, k−1, j) + P(t−k, k, j−1) (no part
// equals k, or remove one part k), P(0, ·, ·) = 1.
func newCounts(n, m int) *counts {
	J := min(n, m)
	c := &counts{m: m, J: J}
	size := (m + 1) * (m + 1) * (J + 1)
	c.p, c.q = make([]uint64, size), make([]uint64, size)
	for j := 0; j <= J; j++ {
		for k := 0; k <= m; k++ {
			for t := 0; t <= m; t++ {
				c.p[c.at(t, k, j)] = c.count(t, k, j)
			}
		}
	}
	for j := 1; j <= J; j++ {
		for t := 0; t <= m; t++ {
			var sum uint64
			for v := 1; v <= m; v++ {
				c.q[c.at(t, v, j)] = sum
				if v <= t {
					sum = addSat(sum, c.P(t-v, v, j-1))
				}
			}
		}
	}
	return c
}

// count is P(t, k, j) from the entries already filled.
func (c *counts) count(t, k, j int) uint64 {
	switch {
	case t == 0:
		return 1
	case k == 0 || j == 0:
		return 0
	}
	x := c.p[c.at(t, k-1, j)]
	if t >= k {
		x = addSat(x, c.p[c.at(t-k, k, j-1)])
	}
	return x
}

// P is the number of partitions of t into at most j parts each at most k.
func (c *counts) P(t, k, j int) uint64 { return c.p[c.at(t, min(k, c.m), min(j, c.J))] }

func addSat(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return math.MaxUint64
	}
	return s
}

func mulSat(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

// rank is the position of the partition parts (descending, all > 0) among
// the partitions of t into at most n parts, in lexicographic order: the
// partitions whose first part is smaller, then the rank of the rest among
// partitions of the remainder into one part fewer.
func (c *counts) rank(parts []uint32, t, n int) uint64 {
	var r uint64
	j := n
	for _, v := range parts {
		r += c.q[c.at(t, int(v), min(j, c.J))]
		t -= int(v)
		j--
	}
	return r
}

// Size is what a problem takes: its states and moves, and the bytes of the
// space, of one DP pass and of an optimal policy's table.
type Size struct {
	States      uint64 // Σ_t partitions of t into ≤ n parts, t = 0..m
	Moves       uint64 // (state, distinct load) pairs over t < m
	MaxLevel    uint64 // the largest level's states
	SpaceBytes  uint64 // counts tables, offsets and moves, final loads
	PassBytes   uint64 // two levels of values, for Batch fixed policies at once
	PolicyBytes uint64 // a policy's masks: K − 1 words per state below m
}

// Estimate counts the states and moves of n bins and m balls from the
// partition counts alone, before anything is allocated: level t has
// P(t, t, n) states; a state with fewer than n parts has a move to load 0,
// and those are P(t, t, n−1); the states containing a part v are, removing
// it, the partitions of t − v into at most n − 1 parts.
func Estimate(n, m, k int) Size {
	c := newCounts(n, m)
	var sz Size
	for t := 0; t <= m; t++ {
		level := c.P(t, t, n)
		sz.States = addSat(sz.States, level)
		sz.MaxLevel = max(sz.MaxLevel, level)
		if t == m {
			break
		}
		moves := c.P(t, t, n-1)
		for v := 1; v <= t; v++ {
			moves = addSat(moves, c.P(t-v, t, n-1))
		}
		sz.Moves = addSat(sz.Moves, moves)
	}
	tables := uint64(2 * 8 * (m + 1) * (m + 1) * (min(n, m) + 1))
	sz.SpaceBytes = addSat(addSat(tables, mulSat(sz.States, 8)), mulSat(sz.Moves, 12))
	sz.SpaceBytes = addSat(sz.SpaceBytes, mulSat(sz.MaxLevel, 8))
	sz.PassBytes = mulSat(sz.MaxLevel, 16*Batch)
	sz.PolicyBytes = mulSat(sz.States, uint64(8*(k-1)))
	return sz
}

// Bytes is what Solve needs, with the policy table or without.
func (sz Size) Bytes(policy bool) uint64 {
	b := addSat(sz.SpaceBytes, sz.PassBytes)
	if policy {
		b = addSat(b, sz.PolicyBytes)
	}
	return b
}

// Fits refuses, as one line with the estimate, a problem that does not fit
// in the memory available now (units.MemoryLimit) or whose levels do not
// fit a uint32 rank.
func Fits(n, m, k int, policy bool) (Size, error) {
	if err := checkSizes(n, m, k); err != nil {
		return Size{}, err
	}
	sz := Estimate(n, m, k)
	need := sz.Bytes(policy)
	if lim := units.MemoryLimit(); lim.Bytes > 0 && need > lim.Bytes {
		return sz, fmt.Errorf("--bins %d --balls %d: %s states and %s moves, about %s to solve; %s",
			n, m, units.FormatCount(sz.States), units.FormatCount(sz.Moves), units.FormatBytes(float64(need)), lim)
	}
	if sz.MaxLevel > math.MaxUint32 || sz.Moves > math.MaxInt32*2 {
		return sz, fmt.Errorf("--bins %d --balls %d: %s states (a level of %s), beyond this DP's 2^32 states a level",
			n, m, units.FormatCount(sz.States), units.FormatCount(sz.MaxLevel))
	}
	return sz, nil
}

// checkSizes wants n ≥ 1, m ≥ 0 and 2 ≤ K ≤ 64, with the tables' side
// (m + 1)²·(min(n, m) + 1) at most 256 MiB before it is computed (at that
// size the states number far beyond any memory: p(250) ≈ 2·10^14).
func checkSizes(n, m, k int) error {
	switch {
	case n < 1 || n > math.MaxUint32:
		return fmt.Errorf("--bins %d: want 1 ≤ n ≤ %d", n, uint64(math.MaxUint32))
	case m < 0 || m > 1<<16:
		return fmt.Errorf("--balls %d: want 0 ≤ m ≤ %d", m, 1<<16)
	case k < 2 || k > 64:
		return fmt.Errorf("--k %d: want 2 ≤ K ≤ 64", k)
	}
	if side := float64(m+1) * float64(m+1) * float64(min(n, m)+1) * 16; side > 1<<28 {
		return fmt.Errorf("--bins %d --balls %d: the partition tables alone take %s, and the states far more", n, m, units.FormatBytes(side))
	}
	return nil
}

// Space is every state of n bins and m balls with its moves.
type Space struct {
	N, M  int
	c     *counts
	start []uint64 // start[t]: global index of level t's first state; start[m+1]: all states
	off   []uint64 // off[g]..off[g+1]: the moves of global state g < start[m]
	moves []Move   // per state ascending by load
	final []float64
}

// Level is the number of states holding t balls.
func (sp *Space) Level(t int) int { return int(sp.start[t+1] - sp.start[t]) }

// States is the number of states over all levels.
func (sp *Space) States() uint64 { return sp.start[sp.M+1] }

// MovesOf returns the moves of state s of level t < m, ascending by load.
func (sp *Space) MovesOf(t, s int) []Move {
	g := sp.start[t] + uint64(s)
	return sp.moves[sp.off[g]:sp.off[g+1]]
}

// Final is the maximum load of state s of level m.
func (sp *Space) Final(s int) float64 { return sp.final[s] }

// NewSpace enumerates the states of n bins and m balls (after Fits).
func NewSpace(n, m int) (*Space, error) {
	if err := checkSizes(n, m, 2); err != nil {
		return nil, err
	}
	sz := Estimate(n, m, 2)
	sp := &Space{N: n, M: m, c: newCounts(n, m), start: make([]uint64, m+2)}
	for t := 0; t <= m; t++ {
		sp.start[t+1] = sp.start[t] + sp.c.P(t, t, n)
	}
	sp.off = make([]uint64, sp.start[m]+1)
	sp.moves = make([]Move, 0, sz.Moves)
	sp.final = make([]float64, sp.Level(m))
	parts := make([]uint32, 0, min(n, m)+1)
	for t := 0; t <= m; t++ {
		e := enumerator{sp: sp, t: t, parts: parts[:0]}
		e.gen(t, math.MaxInt)
		if e.err != nil {
			return nil, e.err
		}
	}
	return sp, nil
}

// enumerator walks the partitions of one level in rank order.
type enumerator struct {
	sp    *Space
	t     int
	parts []uint32
	next  uint64 // rank of the next partition
	err   error
}

// gen appends every completion of e.parts with parts at most maxPart
// summing to rem, smallest next part first (lexicographic order).
func (e *enumerator) gen(rem, maxPart int) {
	if rem == 0 {
		e.visit()
		return
	}
	slots := e.sp.N - len(e.parts)
	if slots == 0 || e.err != nil {
		return
	}
	lo := (rem + slots - 1) / slots
	for v := lo; v <= min(rem, maxPart); v++ {
		e.parts = append(e.parts, uint32(v))
		e.gen(rem-v, v)
		e.parts = e.parts[:len(e.parts)-1]
	}
}

// visit records the moves of the current partition, or its maximum load at
// level m.
func (e *enumerator) visit() {
	sp, s := e.sp, e.next
	if r := sp.c.rank(e.parts, e.t, sp.N); r != s {
		e.err = fmt.Errorf("optimal: internal error: rank %d of state %d at level %d", r, s, e.t)
		return
	}
	e.next++
	if e.t == sp.M {
		if len(e.parts) > 0 {
			sp.final[s] = float64(e.parts[0])
		}
		return
	}
	g := sp.start[e.t] + s
	sp.off[g] = uint64(len(sp.moves))
	p := e.parts
	r := len(p)
	if r < sp.N { // a bin of load 0: the successor gains a part 1
		next := sp.c.rank(append(p, 1), e.t+1, sp.N)
		sp.moves = append(sp.moves, Move{Next: uint32(next), Load: 0, Count: uint32(sp.N - r)})
	}
	for i := r - 1; i >= 0; {
		v := p[i]
		first := i
		for first > 0 && p[first-1] == v {
			first--
		}
		p[first]++ // still descending: p[first−1] > v
		next := sp.c.rank(p, e.t+1, sp.N)
		p[first]--
		sp.moves = append(sp.moves, Move{Next: uint32(next), Load: v, Count: uint32(i - first + 1)})
		i = first - 1
	}
	if n := sp.moves[sp.off[g]:]; len(n) > maxMoves {
		e.err = fmt.Errorf("optimal: a state with %d distinct loads (at most %d)", len(n), maxMoves)
	}
	sp.off[g+1] = uint64(len(sp.moves))
}
