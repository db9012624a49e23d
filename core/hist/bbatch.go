package hist

import "github.com/balloc/balloc/kernels"

// BBatch is b-Batch on the histogram: every ball of a batch compares the loads frozen
// at the batch's start, so within a batch each ball independently lands on
// frozen level k with the two-choice level law of the frozen counts,
// p_k = (S_k/n)² − (S_{k+1}/n)² (ties between equal frozen loads broken at
// random, which leaves a uniform bin of the level), and then on a uniform bin
// of that level. A stretch of y balls is therefore a multinomial over the
// frozen levels followed, level by level, by an exact occupancy throw into
// the level's bins (throwUniform), which keeps each bin's extra balls so far.
type BBatch struct {
	b        uint64
	d        int // the level law of (d, β), as Advance's: b-batch is d = 2, β = 1
	beta     float64
	active   bool
	frozenLo uint64
	frozen   []uint64  // S_k of the frozen levels, k = frozenLo …, then 0
	extra    []classes // per frozen level: its bins by extra balls this batch
	dirty    bool      // extra holds balls the Levels do not show yet
	ends     uint64
	bestGap  float64 // the largest max load − t/n at a batch end, in balls
}

func NewBBatch(b uint64) *BBatch { return &BBatch{b: b, d: 2, beta: 1} }

// NewBatched is the b-Batch setting of d-choice (β = 1) or (1+β) (d = 2):
// each ball of a batch lands on frozen level k with the law
// f(S_k) − f(S_{k+1}), f(x) = (1−β)·x/n + β·(x/n)^d, of the frozen counts
// (ties within a level uniform), and then on a uniform bin of the level.
func NewBatched(b uint64, d int, beta float64) *BBatch { return &BBatch{b: b, d: d, beta: beta} }

// advance places up to count balls, stopping at the end of the batch, and
// returns how many it placed; t is the number placed before.
func (bb *BBatch) Advance(lv *kernels.Levels, r *kernels.PCG32, count, t uint64) uint64 {
	if !bb.active {
		bb.frozenLo = lv.Min()
		L := lv.Len()
		bb.frozen = bb.frozen[:0]
		for i := 0; i <= L; i++ {
			bb.frozen = append(bb.frozen, lv.AtLeast(bb.frozenLo+uint64(i)))
		}
		bb.extra = bb.extra[:0]
		for i := range L {
			bb.extra = append(bb.extra, classes{lo: 0, c: []uint64{lv.Count(i)}})
		}
		bb.active = true
	}
	y := min(count, bb.b-t%bb.b)
	law := levelLaw{n: float64(lv.Bins()), d: bb.d, beta: bb.beta}
	w := make([]float64, len(bb.extra))
	for i := range w {
		w[i] = law.diff(bb.frozen[i], bb.frozen[i+1])
	}
	shares := make([]uint64, len(w))
	r.Multinomial(shares, y, w)
	for i, x := range shares {
		throwUniform(&bb.extra[i], x, r)
	}
	bb.dirty = true
	if (t+y)%bb.b == 0 {
		bb.Settle(lv)
		bb.active = false
		if g := float64(lv.Max()) - float64(t+y)/float64(lv.Bins()); bb.ends == 0 || g > bb.bestGap {
			bb.bestGap = g
		}
		bb.ends++
	}
	return y
}

// settle writes the batch's balls so far into lv.
func (bb *BBatch) Settle(lv *kernels.Levels) {
	if !bb.dirty {
		return
	}
	var acc classes
	for i := range bb.extra {
		e := bb.extra[i]
		e.lo += bb.frozenLo + uint64(i) // extra balls → absolute loads
		acc.add(&e)
	}
	lv.SetCounts(acc.lo, acc.c)
	bb.dirty = false
}

// Ends returns the batches completed and the largest gap, max load − t/n in
// balls, seen at a batch's end (when its loads were published).
func (bb *BBatch) Ends() (uint64, float64) { return bb.ends, bb.bestGap }
