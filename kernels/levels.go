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
// Counts are exact uint64s, n up to 2^64 − 1; memory is O(number of levels).
type Levels struct {
	n    uint64
	lo   uint64   // load of cum[head]
	cum  []uint64 // cum[head+i] = bins with load ≤ lo+i; the last entry is n
	head int
}

// NewLevels returns n ≥ 1 empty bins.
func NewLevels(n uint64) *Levels {
	return &Levels{n: n, cum: []uint64{n}}
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
func (lv *Levels) Level(r uint64) int { return levelOf(lv.cum[lv.head:], r) }

// levelOf is the least i with r < c[i], without branches on the data: a
// linear count for the few levels of balanced processes, a branch-free
// binary search beyond.
func levelOf(c []uint64, r uint64) int {
	if len(c) <= 32 {
		i := 0
		for _, x := range c[:len(c)-1] {
			i += int(b2u(x <= r))
		}
		return i
	}
	base, size := 0, len(c)
	for size > 1 {
		half := size / 2
		base += half * int(b2u(c[base+half-1] <= r))
		size -= half
	}
	return base
}

// Move puts one ball on a bin of level index i (load Min()+i).
func (lv *Levels) Move(i int) {
	j := lv.head + i
	lv.cum[j]--
	if j == len(lv.cum)-1 {
		lv.cum = append(lv.cum, lv.n) // a new top level
	}
	if lv.cum[lv.head] == 0 { // the lowest level emptied
		lv.head++
		lv.lo++
		if lv.head >= 64 && lv.head*2 >= len(lv.cum) {
			lv.cum = append(lv.cum[:0], lv.cum[lv.head:]...)
			lv.head = 0
		}
	}
}

// MoveMany puts x[i] balls on distinct bins of level index i, for all i at
// once: bins of load Min()+i move to Min()+i+1. It requires x[i] ≤ Count(i)
// (the batched engines guarantee it) and len(x) ≤ Len().
func (lv *Levels) MoveMany(x []uint64) {
	for i, xi := range x {
		lv.cum[lv.head+i] -= xi
	}
	if len(x) == lv.Len() && x[len(x)-1] > 0 {
		lv.cum = append(lv.cum, lv.n)
	}
	for lv.cum[lv.head] == 0 {
		lv.head++
		lv.lo++
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
