package concurrency

import (
	"math"
	"strings"
	"sync/atomic"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/kernels"
)

// A process's decision as the workers run it: the process gives its rule
// (process.Rule: one of the shapes below, with its parameters), read once
// per run into a rule; the workers draw each ball's choices (draw) and
// decide on the loads they read (decide). This file is the only place in
// the package that tells the shapes apart (sharded.go's hot loop asks
// leastOfTwo and thinning's questions on the fields directly); a process
// with a rule of one of these shapes runs without any change here.

// rule is a process's decision (process.Rule), set up once per run.
type rule struct {
	kind  process.Shape
	d     int
	coin  kernels.Bernoulli
	g     uint32
	theta float64
	n     uint32
}

func newRule(s *core.Spec) (*rule, error) {
	r := s.Proc.(process.Concurrent).Concurrent() // Check checked it is one
	ru := &rule{kind: r.Shape, d: r.D, theta: r.Theta, n: uint32(s.Bins)}
	if ru.kind == process.ShapeCoin {
		c, err := kernels.NewBernoulli(r.Beta)
		if err != nil {
			return nil, err
		}
		ru.coin = c
	}
	ru.g = uint32(math.Min(math.Floor(r.G), math.MaxUint32))
	return ru, nil
}

// ball is one ball's random choices, fixed before any load is read.
type ball struct {
	idx  [maxSamples]uint32
	k    int    // samples in idx
	coin uint32 // g-myopic-comp's coin
}

func (ru *rule) draw(r *kernels.PCG32, b *ball) {
	switch ru.kind {
	case process.ShapeLeast:
		b.k = ru.d
	case process.ShapeCoin:
		b.k = 1
		if ru.coin.Flip(r) {
			b.k = 2
		}
	case process.ShapeThinning:
		b.k = 2 // the second is used only when the first is rejected
	case process.ShapeMyopic:
		b.k = 2
		b.coin = r.Uint32()
	}
	for i := range b.k {
		b.idx[i] = r.Bounded(ru.n)
	}
}

// reader reads a bin's load: from the shared array, or, in a local batch,
// from the worker's cache (each bin read from the array once per epoch).
// A concrete type, so that reading costs no indirect call.
type reader struct {
	cells  []atomic.Uint32
	stride uint64
	cached bool
	cache  []uint32
	epoch  []uint32
	cur    uint32
}

func (rd *reader) get(i uint32) uint32 {
	if !rd.cached {
		return rd.cells[uint64(i)*rd.stride].Load()
	}
	if rd.epoch[i] != rd.cur {
		rd.cache[i], rd.epoch[i] = rd.cells[uint64(i)*rd.stride].Load(), rd.cur
	}
	return rd.cache[i]
}

// newEpoch starts a new batch: every bin is read afresh.
func (rd *reader) newEpoch() {
	if rd.cur++; rd.cur == 0 { // wrapped: clear the tags
		clear(rd.epoch)
		rd.cur = 1
	}
}

// decide reads the loads of the ball's samples through rd and returns the
// chosen bin and the load it was read at. limit is two-thinning's current
// acceptance limit.
func (ru *rule) decide(b *ball, rd *reader, limit uint64) (uint32, uint32) {
	switch ru.kind {
	case process.ShapeThinning:
		v := rd.get(b.idx[0])
		if uint64(v) < limit {
			return b.idx[0], v
		}
		return b.idx[1], rd.get(b.idx[1])
	case process.ShapeMyopic:
		vi, vj := rd.get(b.idx[0]), rd.get(b.idx[1])
		d := vi - vj
		if vj > vi {
			d = vj - vi
		}
		pickJ := vj < vi
		if d <= ru.g {
			pickJ = b.coin >= 1<<31
		}
		if pickJ {
			return b.idx[1], vj
		}
		return b.idx[0], vi
	}
	best, bv := b.idx[0], rd.get(b.idx[0])
	for _, j := range b.idx[1:b.k] {
		if v := rd.get(j); v < bv {
			best, bv = j, v
		}
	}
	return best, bv
}

// thinLimit is ⌈t/n + θ⌉ for the total t the striped counter shows.
func (ru *rule) thinLimit(total uint64) uint64 {
	return uint64(max(0, math.Ceil(float64(total)/float64(ru.n)+ru.theta)))
}

// thinNext is the smallest total after t at which thinLimit moves.
func (ru *rule) thinNext(t uint64) uint64 {
	l := ru.thinLimit(t)
	c := uint64(t + 1)
	if x := math.Floor(float64(ru.n)*(float64(l)-ru.theta)) + 1; x > float64(c) {
		c = uint64(min(x, 1<<63))
	}
	for ru.thinLimit(c) <= l && c < 1<<63 {
		c++
	}
	for c-1 > t && ru.thinLimit(c-1) > l {
		c--
	}
	return c
}

// leastOnly: the least loaded of d samples, decided on loads alone (the
// racy loops of plain d-choice balls take it: racyDChoice).
func (ru *rule) leastOnly() bool { return ru.kind == process.ShapeLeast }

// leastOfTwo: the least loaded of two samples, which sharded mode stages
// (shardStage2, emulate_sharded.go).
func (ru *rule) leastOfTwo() bool { return ru.kind == process.ShapeLeast && ru.d == 2 }

// thinning: the decision reads the balls placed so far (thinLimit), which
// the workers follow from the striped counter.
func (ru *rule) thinning() bool { return ru.kind == process.ShapeThinning }

// andList is "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
