package kernels

// Levels is the state of the histogram engine: how many of n bins hold each
// load, kept as prefix counts so that both steps a ball needs are cheap.
//
//   - A sampled bin is a uniform rank r in [0, n) in the order of loads; its
//     load is the least level whose prefix count exceeds r. The least loaded
//     of d samples is the level of the least of d ranks.
//   - A ball on a bin of load k moves that bin to k+1: only the prefix count
//     of level k changes (by −1), so a move is O(1).
//
// Finding the level of a rank uses a guide table (Chen and Asau 1974): the
// ranks are cut into at most 2^11 equal blocks, and guide[b] is the level of
// the block's first rank, so a search starts at most a few levels below its
// answer. A move shifts one prefix count by one, which changes at most one
// guide entry (when the count lands on a block's first rank).
//
// Counts are exact uint64s; memory is O(number of levels + 2^11).
type Levels struct {
	n     uint64
	lo    uint64   // load of cum[head]
	cum   []uint64 // cum[head+i] = bins with load ≤ lo+i; the last entry is n
	head  int
	shift uint    // block size 2^shift
	guide []int32 // guide[b]: the level index (from head) of rank b<<shift
}

// guideBits bounds the guide table at 2^guideBits entries.
const guideBits = 11

// NewLevels returns n ≥ 1 empty bins.
func NewLevels(n uint64) *Levels {
	// Blocks of at least 64 ranks: a move lands on a block's first rank (and
	// fixes its entry) once in 64 at most.
	lv := &Levels{n: n, cum: []uint64{n}, shift: 6}
	for (n-1)>>lv.shift >= 1<<guideBits {
		lv.shift++
	}
	lv.guide = make([]int32, (n-1)>>lv.shift+1)
	return lv
}

// rebuild recomputes the guide table from the prefix counts: O(table + levels).
func (lv *Levels) rebuild() {
	c := lv.cum[lv.head:]
	i := int32(0)
	for b := range lv.guide {
		q := uint64(b) << lv.shift
		for c[i] <= q {
			i++
		}
		lv.guide[b] = i
	}
}

// fixGuide updates the one guide entry a decrement of c[i] to v can move.
func (lv *Levels) fixGuide(c []uint64, i int, v uint64) {
	if v&(1<<lv.shift-1) != 0 || v >= lv.n {
		return
	}
	j := i + 1
	for c[j] <= v {
		j++
	}
	lv.guide[v>>lv.shift] = int32(j)
}

// Bins is n.
func (lv *Levels) Bins() uint64 { return lv.n }

// Min and Max are the least and the largest load.
func (lv *Levels) Min() uint64 { return lv.lo }

// Max is the largest load.
func (lv *Levels) Max() uint64 { return lv.lo + uint64(len(lv.cum)-1-lv.head) }

// Len is the number of levels from Min to Max.
func (lv *Levels) Len() int { return len(lv.cum) - lv.head }

// Count returns how many bins have load Min()+i.
func (lv *Levels) Count(i int) uint64 {
	c := lv.cum[lv.head:]
	if i == 0 {
		return c[0]
	}
	return c[i] - c[i-1]
}

// AtLeast returns S_k, the number of bins with load ≥ k.
func (lv *Levels) AtLeast(k uint64) uint64 {
	switch {
	case k <= lv.lo:
		return lv.n
	case k > lv.Max():
		return 0
	}
	return lv.n - lv.cum[lv.head+int(k-lv.lo)-1]
}

// Level returns the index (load − Min) of the bin of rank r < n.
func (lv *Levels) Level(r uint64) int {
	c := lv.cum[lv.head:]
	i := int(lv.guide[r>>lv.shift])
	for c[i] <= r {
		i++
	}
	return i
}

// Move puts one ball on a bin of level index i (load Min()+i).
func (lv *Levels) Move(i int) {
	c := lv.cum[lv.head:]
	c[i]--
	lv.afterMove(c, i)
}

// view returns the live prefix counts. A loop may decrement c[i] itself and
// then calls afterMove, which returns the view to use from then on.
func (lv *Levels) view() []uint64 { return lv.cum[lv.head:] }

// afterMove restores the invariants once c[i] (of the view c) was
// decremented: a new top level when the top received a ball, the one guide
// entry that can move, and the lowest level dropped when it emptied.
func (lv *Levels) afterMove(c []uint64, i int) []uint64 {
	if i == len(c)-1 {
		lv.cum = append(lv.cum, lv.n) // a new top level
		c = lv.cum[lv.head:]
	}
	lv.fixGuide(c, i, c[i])
	if c[0] == 0 { // the lowest level emptied
		lv.head++
		lv.lo++
		if lv.head >= 64 && lv.head*2 >= len(lv.cum) {
			lv.cum = append(lv.cum[:0], lv.cum[lv.head:]...)
			lv.head = 0
		}
		for b := range lv.guide { // level indices moved down by one
			lv.guide[b]--
		}
		c = lv.cum[lv.head:]
	}
	return c
}

// MoveMany puts x[i] balls on distinct bins of level index i, for all i at
// once: bins of load Min()+i move to Min()+i+1. It requires x[i] ≤ Count(i)
// (the batched engines guarantee it) and len(x) ≤ Len().
func (lv *Levels) MoveMany(x []uint64) {
	if len(x) == lv.Len() && x[len(x)-1] > 0 {
		lv.cum = append(lv.cum, lv.n)
	}
	c := lv.cum[lv.head:]
	for i, xi := range x {
		if xi == 0 {
			continue
		}
		old := c[i]
		c[i] -= xi
		// Ranks in [c[i], old) now lie above level i: move the entries of
		// the blocks that start there forward from where they were.
		for b := (c[i] + 1<<lv.shift - 1) >> lv.shift; b<<lv.shift < old; b++ {
			q := b << lv.shift
			j := lv.guide[b]
			for c[j] <= q {
				j++
			}
			lv.guide[b] = j
		}
	}
	dropped := int32(0)
	for lv.cum[lv.head] == 0 {
		lv.head++
		lv.lo++
		dropped++
	}
	if dropped > 0 {
		for b := range lv.guide {
			lv.guide[b] -= dropped
		}
	}
	if lv.head >= 64 && lv.head*2 >= len(lv.cum) {
		lv.cum = append(lv.cum[:0], lv.cum[lv.head:]...)
		lv.head = 0
	}
}

// SetCounts replaces the state: counts[i] bins of load lo+i, summing to n.
func (lv *Levels) SetCounts(lo uint64, counts []uint64) {
	first := 0
	for first < len(counts)-1 && counts[first] == 0 {
		first++
	}
	last := len(counts) - 1
	for last > first && counts[last] == 0 {
		last--
	}
	lv.cum, lv.head, lv.lo = lv.cum[:0], 0, lo+uint64(first)
	acc := uint64(0)
	for _, c := range counts[first : last+1] {
		acc += c
		lv.cum = append(lv.cum, acc)
	}
	if acc != lv.n {
		panic("kernels: SetCounts: counts do not add up to n")
	}
	lv.rebuild()
}

// rank draws a uniform rank in [0, n): PCG32.Bounded when n < 2^32, else
// PCG32.Bounded64 (two outputs).
func rank(s, inc uint64, n uint64) (uint64, uint64) {
	if n <= MaxBins {
		var x uint32
		s, x = bounded(s, inc, uint32(n))
		return s, uint64(x)
	}
	r := PCG32{state: s, incx: inc ^ pcgDefaultInc}
	x := r.Bounded64(n)
	return r.state, x
}
