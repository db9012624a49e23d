package concurrency

import (
	"math"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/kernels"
)

// Sharded allocation (--mode sharded): worker w owns the bins b with
// ⌊b·W/n⌋ = w (about n/W contiguous bins) and is the only one to write
// them, with plain stores (storeOwned: no locked instruction). Decisions
// read any bins with atomic loads, as in racy mode. A ball whose chosen bin
// another worker owns is appended to a batch for that owner; a full batch
// (shardBatch entries), and every batch every shardFlushEvery balls, goes to
// the owner through a single-producer single-consumer ring (one release
// store of the tail per batch, storeRelease), and an owner drains its
// incoming rings every shardDrainEvery of its own balls (one release store
// of the head per ring drained). So a foreign ball is committed late, by up to about
// shardFlushEvery·W balls placed elsewhere: that delay is part of its age.
//
// A measured ball travels with its read stamp: the bin with shardMeasured
// set, then the load it was read at and the 64-bit total at its read, so
// the owner measures both stalenesses when it commits it.
//
// Backpressure bounds every ball's age by design (ShardedAgeBound), however
// the workers are scheduled. Every shardCheckEvery of its own decisions a
// worker pushes its batches and checks (admit): its foreign balls not yet
// committed by their owners (in flight, counted in ring entries, which is
// at least the balls) must be at most shardMaxInFlight, and the total
// placed must be less than shardMaxLag·W past the lowest floor any worker
// has published. A worker's floor is a lower bound on the total at the
// read of every ball it has decided and not yet seen committed, and of
// every ball it will decide: the least total it read at the check before
// such a ball (balls carry that bound per batch: ring.stamps, outStamp).
// A worker that fails the check decides nothing: it pushes, drains its own
// rings, publishes its floor and yields until the check passes (a
// backpressure wait, counted in Result.BackpressureWaits); a finished
// worker keeps publishing its floor while it drains. Owners so drain while
// they wait, and no worker waits with nothing to do: if every worker
// waited, they would push and drain until nothing was in flight, every
// floor would reach the total, and every check would pass.
//
// The bound. Take ball X, read at total t0 and committed at time c. A
// check that passed with its floors read before c saw X's producer's floor
// ≤ t0, so the total it read was below t0 + A, A = shardMaxLag·W; let s be
// the latest such check's read of the total. After s, each worker decides
// at most the rest of its chunk, K = shardCheckEvery balls, and the balls
// in flight at s are at most shardMaxInFlight + K a worker (the check's
// limit and its chunk). Every commit after s is one of these, so the total
// at c is below t0 + A + W·(shardMaxInFlight + 2K): a ball's age, the balls
// committed between its read and its commit, is below
// W·(shardMaxLag + shardMaxInFlight + 2·shardCheckEvery) = 2560·W.
// A ball's measured age is read by its owner just before its commit, so an
// owner descheduled after a commit does not lengthen the ball's age.
//
// The constants leave room for what a run does on its own: a foreign ball
// waits up to shardFlushEvery of its producer's balls in a batch and
// shardDrainEvery of its owner's in a ring, and a floor lags a chunk behind
// its worker's reads, about (2·256 + 64)·W balls in all against A = 1024·W:
// the check stops a worker only when another is off the CPU or far behind.
const (
	shardBatch      = 64  // entries per push
	shardDrainEvery = 64  // own balls between drains of the incoming rings
	shardFlushEvery = 256 // own balls between pushes of every pending batch
	shardMeasured   = 1 << 31
	// shardCheckEvery is the own balls between backpressure checks (at
	// the flushes), shardMaxInFlight the ring entries of foreign balls a
	// worker may have in flight at a check, and shardMaxLag·W how far the
	// total may run past the lowest floor.
	shardCheckEvery  = shardFlushEvery
	shardMaxInFlight = 4 * shardFlushEvery
	shardMaxLag      = 4 * shardFlushEvery
	// MaxShardedWorkers bounds the W² rings of a goroutine run (at most
	// 1 KiB of ring a pair), MaxEmulatedShardedWorkers the W² batches of an
	// emulated one (24 bytes a pair when empty).
	MaxShardedWorkers         = 256
	MaxEmulatedShardedWorkers = 1024
)

// ShardedAgeBound is the bound backpressure puts on a ball's age in a
// sharded run of W workers, goroutines or emulated: fewer than
// W·(shardMaxLag + shardMaxInFlight + 2·shardCheckEvery) = 2560·W balls
// committed between its read and its commit (derived above).
func ShardedAgeBound(W int) uint64 {
	return uint64(W) * (shardMaxLag + shardMaxInFlight + 2*shardCheckEvery)
}

// ShardedAgeBoundText is the bound's formula, for the run's header.
const ShardedAgeBoundText = "W·(1024 + 1024 + 2·256)"

// ring is a single-producer single-consumer queue of batches: a slot holds
// one batch of any length, so a producer whose owner has not drained for a
// while sends its whole backlog in the next free slot (what is moved is not
// capped by the ring's size). A slot's old batch, consumed once the head has
// passed it, becomes the producer's next buffer: no allocation at steady
// state.
//
// Each word written at a push or a drain is followed by the rest of a
// cache line, and the ring's size is a whole number of lines, so that the
// W² rings of a run, side by side, never put two pairs' written words on
// one line. Unpadded at the end (776 bytes), the rings were not
// line-aligned, and producer 0's count of the entries it sent to 1 shared
// a line with producer 1's tail towards 0, written at every push of either
// and read at every drain of worker 0.
type ring struct {
	tail  atomic.Uint64 // written by the producer only
	_     [CacheLine - 8]byte
	head  atomic.Uint64 // written by the consumer only
	_     [CacheLine - 8]byte
	slots [ringSlots][]uint32
	// The producer's own records: per slot, the least total read at the
	// check before any of its balls (their floor) and the entries pushed
	// through the ring before it; and the entries pushed in all.
	stamps [ringSlots]uint64
	starts [ringSlots]uint64
	sent   uint64
	_      [CacheLine - 8]byte
}

// ringSlots is the batches a ring holds.
const ringSlots = 16

// owner returns the worker that owns bin b: ⌊b·mul / 2^32⌋ with
// mul = ⌊W·2^32 / n⌋, which is below W for every bin.
func owner(b uint32, mul uint64) int { return int(uint64(b) * mul >> 32) }

func ownerMul(W int, n uint64) uint64 { return uint64(W) << 32 / n }

// shardWorker is one worker's view of a sharded run.
type shardWorker struct {
	w, W    int
	st      *state
	cells   []atomic.Uint32
	stride  uint64
	rings   []ring     // rings[p·W + o]: from producer p to owner o
	outBuf  [][]uint32 // per owner: the batch being filled
	outTail []uint64   // per owner: this producer's tail
	nextTry []int      // per owner: the pending length at which to push again
	inHead  []uint64   // per producer: this consumer's head
	placed  uint64     // balls this worker committed
	sink    uint64     // index of this worker's sink in cells[:cap(cells)]
	mine    *atomic.Uint64
	done    *atomic.Int64 // workers that have pushed their last batch
	// Backpressure: per owner, the floor of the batch being filled; the
	// total read at the last check that passed; this worker's published
	// floor (beside its count, on one line: st.placed.aux(w)); shardMaxLag·W;
	// and the checks that failed.
	outStamp []uint64
	chunkT   uint64
	floor    *atomic.Uint64
	maxLag   uint64
	waits    uint64
	// noBackpressure turns the checks off: tests show the bound fails
	// without them.
	noBackpressure bool
}

// commit adds a ball to an owned bin and returns the load after it.
func (sw *shardWorker) commit(bin uint32) uint32 {
	c := &sw.cells[uint64(bin)*sw.stride]
	after := c.Load() + 1
	storeOwned(c, after)
	sw.placed++
	storeOwned64(sw.mine, sw.placed)
	return after
}

// commitRun commits the unmeasured balls at the start of b, up to its
// first measured one, and returns how many it committed: commit's loop,
// with the count kept in a register and published each ball.
func (sw *shardWorker) commitRun(b []uint32) int {
	cells, stride, mine, placed := sw.cells, sw.stride, sw.mine, sw.placed
	q := 0
	for ; q < len(b) && b[q]&shardMeasured == 0; q++ {
		c := &cells[uint64(b[q])*stride]
		storeOwned(c, c.Load()+1)
		placed++
		storeOwned64(mine, placed)
	}
	sw.placed = placed
	return q
}

// commitMeasured commits a measured ball read at load v and total t0 and
// records its stalenesses. Its age is the total just before the commit
// less t0: read after, it would count the balls placed while an owner
// descheduled between its commit and the read was off the CPU.
func (sw *shardWorker) commitMeasured(bin, v uint32, t0 uint64) {
	t := sw.st.placed.Sum()
	sw.st.binStale(sw.w, sw.commit(bin), v)
	sw.st.global[sw.w].add(t - t0)
}

// drain commits every ball waiting in this worker's incoming rings.
func (sw *shardWorker) drain() {
	for p := range sw.W {
		if p == sw.w {
			continue
		}
		r := &sw.rings[p*sw.W+sw.w]
		t, h := r.tail.Load(), sw.inHead[p]
		if t == h {
			continue
		}
		for ; h < t; h++ {
			b := r.slots[h%ringSlots]
			if haveShardStage2Asm && sw.stride == 1 && len(b) > 0 {
				prefetchBins(&sw.cells[0], &b[0], len(b))
			}
			for q := 0; q < len(b); q++ {
				q += sw.commitRun(b[q:])
				if q == len(b) {
					break
				}
				v, lo, hi := b[q+1], b[q+2], b[q+3]
				sw.commitMeasured(b[q]&^shardMeasured, v, uint64(hi)<<32|uint64(lo))
				q += 3
			}
		}
		sw.inHead[p] = h
		storeRelease(&r.head, h)
	}
}

// push sends what is pending for owner o, as one batch, when its ring has
// a free slot, and reports whether it went. It does not wait: while an
// owner is descheduled its balls pile up here, their wait part of their
// age, until the backpressure check (admit) stops the producer.
func (sw *shardWorker) push(o int) bool {
	b := sw.outBuf[o]
	if len(b) == 0 {
		return true
	}
	r := &sw.rings[sw.w*sw.W+o]
	t := sw.outTail[o]
	if t-r.head.Load() >= ringSlots {
		sw.nextTry[o] = len(b) + shardBatch
		return false
	}
	old := r.slots[t%ringSlots] // consumed: the head has passed it
	r.slots[t%ringSlots] = b
	r.stamps[t%ringSlots], r.starts[t%ringSlots] = sw.outStamp[o], r.sent
	r.sent += uint64(len(b))
	storeRelease(&r.tail, t+1)
	sw.outTail[o] = t + 1
	sw.outStamp[o] = sw.chunkT // the next balls are read after the last check
	if old == nil {
		old = make([]uint32, 0, shardBatch+4)
	}
	sw.outBuf[o] = old[:0]
	sw.nextTry[o] = shardBatch
	return true
}

// pushAll pushes to every owner and reports whether nothing is left.
func (sw *shardWorker) pushAll() bool {
	all := true
	for o := range sw.W {
		all = sw.push(o) && all
	}
	return all
}

// paddedWorker keeps a worker's own state off the cache lines of every
// other allocation: each worker writes its placed count and its batches'
// slice headers every few balls, and two small allocations of one size
// class sit side by side, so unpadded the workers' writes shared lines (false
// sharing; two-choice at n = 2^20 with W = 2 on 2 cores ran 3.5e7 balls/s
// against 1.34e8 with W = 1).
type paddedWorker struct {
	_  [CacheLine]byte
	sw shardWorker
	_  [CacheLine]byte
}

func newPaddedWorker() *paddedWorker { return new(paddedWorker) }

// padded returns a slice of n zero values with a cache line of unused
// room on either side, for per-worker arrays written in the hot loop.
func padded[T any](n int) []T {
	var z T
	pad := CacheLine/max(int(unsafe.Sizeof(z)), 1) + 1
	return make([]T, n+2*pad)[pad : pad+n : pad+n]
}

// newShardRings returns the W² rings of a goroutine run.
func newShardRings(W int) []ring { return make([]ring, W*W) }

// shardedWorker places count balls by --mode sharded, then commits what
// the others send it until every worker has pushed its last batch.
func shardedWorker(cfg Config, ru *rule, st *state, w, W int, count uint64, rings []ring, done *atomic.Int64) {
	r := kernels.TrialStream(cfg.Spec.Seed, cfg.Trial, kernels.WorkerLane(w))
	n := cfg.Spec.Bins
	sw := &newPaddedWorker().sw
	*sw = shardWorker{w: w, W: W, st: st, cells: st.loads.cells, stride: st.loads.stride, rings: rings,
		outBuf: padded[[]uint32](W), outTail: padded[uint64](W), nextTry: padded[int](W), inHead: padded[uint64](W),
		sink: st.loads.sinkCell(w), mine: st.placed.cell(w), done: done,
		outStamp: padded[uint64](W), floor: st.placed.aux(w), maxLag: shardMaxLag * uint64(W),
		noBackpressure: cfg.noBackpressure}
	for o := range sw.outBuf {
		sw.outBuf[o] = make([]uint32, 0, shardBatch+4)
		sw.nextTry[o] = shardBatch
	}
	rd := &reader{cells: sw.cells, stride: sw.stride}
	mul := ownerMul(W, n)
	limit := ru.thinLimit(0)
	var base, basePlaced, nextChange uint64
	var b ball
	measure := cfg.MeasureEvery
	next := measure
	fast := ru.kind == process.ShapeLeast && ru.d == 2
	for k := uint64(1); k <= count; k++ {
		if fast && k != next {
			// Plain two-choice balls up to the next measured one or the next
			// drain, in a loop of their own; the drain and flush follow as
			// for any ball.
			stop := min(count, k+shardDrainEvery-1-(k-1)%shardDrainEvery)
			if measure > 0 {
				stop = min(stop, next-1)
			}
			sw.twoChoice(&r, uint32(n), mul, stop-k+1)
			k = stop
			if k%shardDrainEvery == 0 {
				sw.drain()
			}
			if k%shardFlushEvery == 0 {
				sw.pushAll()
				if k < count {
					sw.backpressure()
				}
			}
			continue
		}
		ru.draw(&r, &b)
		if ru.kind == process.ShapeThinning && (k%64 == 1 || base+k-1-basePlaced >= nextChange) {
			base, basePlaced = st.placed.Sum(), k-1
			limit, nextChange = ru.thinLimit(base), ru.thinNext(base)
		}
		measured := measure > 0 && k == next
		var t0 uint64
		if measured {
			next += measure
			t0 = st.placed.Sum()
		}
		bin, v := ru.decide(&b, rd, limit)
		if o := owner(bin, mul); o == w {
			if measured {
				sw.commitMeasured(bin, v, t0)
			} else {
				sw.commit(bin)
			}
		} else {
			if measured {
				sw.outBuf[o] = append(sw.outBuf[o], bin|shardMeasured, v, uint32(t0), uint32(t0>>32))
			} else {
				sw.outBuf[o] = append(sw.outBuf[o], bin)
			}
			if len(sw.outBuf[o]) >= sw.nextTry[o] {
				sw.push(o)
			}
		}
		if k%shardDrainEvery == 0 {
			sw.drain()
		}
		if k%shardFlushEvery == 0 {
			sw.pushAll()
			if k < count {
				sw.backpressure()
			}
		}
	}
	// Finished: this worker decides nothing more, so its floor is that of
	// its balls in flight, republished as their owners commit them.
	for !sw.pushAll() {
		sw.drain()
		sw.publishFinal()
		runtime.Gosched()
	}
	done.Add(1)
	for {
		all := done.Load() == int64(W) // every push happened before its worker's Add
		sw.drain()
		sw.publishFinal()
		if all {
			break
		}
		runtime.Gosched()
	}
	st.waits[w] = sw.waits
}

// inFlight returns this worker's foreign balls not yet committed, in ring
// entries (a measured ball is 4), and the least floor among their batches
// (math.MaxUint64 when none). A ring's head may be read stale, which only
// counts more in flight.
func (sw *shardWorker) inFlight() (entries, floor uint64) {
	floor = math.MaxUint64
	for o := range sw.W {
		if o == sw.w {
			continue
		}
		r := &sw.rings[sw.w*sw.W+o]
		if h, t := r.head.Load(), sw.outTail[o]; h < t { // slot h is unconsumed, so not yet reused
			entries += r.sent - r.starts[h%ringSlots]
			floor = min(floor, r.stamps[h%ringSlots])
		}
		if len(sw.outBuf[o]) > 0 {
			entries += uint64(len(sw.outBuf[o]))
			floor = min(floor, sw.outStamp[o])
		}
	}
	return entries, floor
}

// admit is the backpressure check, made after a push of every batch: it
// publishes this worker's floor and reports whether the worker may decide
// its next shardCheckEvery balls. Each worker's floor sits on its count's
// cache line (cell.aux), so the check reads one line a worker for both,
// as the total needs them anyway: a line apart, the floors were W − 1
// more misses a check, against a line each worker writes every ball. The
// order of the reads does not matter to the bound, whose derivation uses
// only that a floor read is at most the read of every ball its worker has
// in flight: a floor read above the total read (the counts and floors
// interleave) passes the lag test with t ≤ low ≤ t0 < t0 + A.
func (sw *shardWorker) admit() bool {
	entries, floor := sw.inFlight()
	low, t := uint64(math.MaxUint64), uint64(0)
	for q := range sw.W {
		c := &sw.st.placed.cells[q]
		if q != sw.w {
			low = min(low, c.aux.Load())
		}
		t += c.v.Load()
	}
	floor = min(floor, t) // the balls it decides next are read at t or later
	storeOwned64(sw.floor, floor)
	low = min(low, floor)
	if !sw.noBackpressure && (entries > shardMaxInFlight || t > low && t-low >= sw.maxLag) {
		return false
	}
	sw.chunkT = t
	for o := range sw.W {
		if len(sw.outBuf[o]) == 0 {
			sw.outStamp[o] = t
		}
	}
	return true
}

// backpressure waits, pushing and draining, until admit passes. For up
// to shardWaitSpin it retries at once, yielding only to other goroutines:
// a worker that is merely a little behind (at 2^20 bins a chunk of 256
// balls takes about 6 µs) publishes a floor within that, and the wait
// costs microseconds. Past it, the worker waited for is most likely off
// the CPU, and this one sleeps between tries so that on a busy machine
// that worker can have its core: spinning with Gosched alone, two workers
// at n = 2^20 on 2 cores shared with other jobs ran 6e5–8e5 balls/s. A
// sleep is never short: with its processor idle the Go runtime waits for
// a timer in whole milliseconds (time.Sleep(20 µs) took 1.1 ms at the
// median here), so sleeping after a fixed 16 yields, a few microseconds,
// turned waits a spin resolves into millisecond stalls of both workers.
func (sw *shardWorker) backpressure() {
	if sw.admit() {
		return
	}
	sw.waits++
	start := time.Now()
	for {
		if time.Since(start) < shardWaitSpin {
			runtime.Gosched()
		} else {
			time.Sleep(shardWaitSleep)
		}
		sw.pushAll()
		sw.drain()
		if sw.admit() {
			return
		}
	}
}

// A waiting worker's time retrying at once before it sleeps, and its sleep
// (asked for; taken, about 1 ms: see backpressure).
const (
	shardWaitSpin  = 50 * time.Microsecond
	shardWaitSleep = 20 * time.Microsecond
)

// publishFinal publishes a finished worker's floor: that of its balls in
// flight, or none.
func (sw *shardWorker) publishFinal() {
	_, floor := sw.inFlight()
	storeOwned64(sw.floor, floor)
}

// twoChoice places count unmeasured two-choice balls: the draws, the
// racy reads and the choice of the general path, then a commit or a batch
// entry. The draws of up to shardStage balls are made first (the same
// stream as Bounded2 ball by ball), so the loop's reads of random bins wait
// on nothing but memory and overlap, as the sequential engine's staged
// loops do (kernels/staging.go). Each stage then goes to shardStage2, which
// adds an own ball to its bin and a foreign one to the worker's sink, and
// lists the foreign bins, without a branch on the owner: whether the chosen
// bin is this worker's is a coin toss when W = 2, and a branch on it,
// mispredicted every second ball, cost more than the foreign balls' whole
// trip. The stage's foreign bins then join their owners' batches (send), so
// a foreign ball is sent up to shardStage − 1 own balls later than a loop
// ball by ball would send it, and a batch pushed at the stage's end may hold
// more than shardBatch (emulateSharded sends them the same way).
func (sw *shardWorker) twoChoice(r *kernels.PCG32, n uint32, mul uint64, count uint64) {
	all := sw.cells[:cap(sw.cells)] // the bins, then the workers' sinks
	stride, w, sink, mine := sw.stride, uint64(sw.w), sw.sink, sw.mine
	placed := sw.placed
	var idx [2 * shardStage]uint32
	var foreign [shardStage]uint32
	for count > 0 {
		c := min(count, shardStage)
		r.FillBounded(idx[:2*c], n)
		nf := shardStage2(all, stride, idx[:2*c], mul, w, sink, &foreign, mine, placed)
		placed += c - uint64(nf)
		count -= c
		sw.send(foreign[:nf], mul)
	}
	sw.placed = placed
}

// send adds a stage's foreign bins to their owners' batches, then pushes
// each batch that reached its length to push at.
func (sw *shardWorker) send(foreign []uint32, mul uint64) {
	if len(foreign) == 0 {
		return
	}
	if sw.W == 2 { // one other owner: the stage's list is its batch's next part
		o := 1 - sw.w
		if sw.outBuf[o] = append(sw.outBuf[o], foreign...); len(sw.outBuf[o]) >= sw.nextTry[o] {
			sw.push(o)
		}
		return
	}
	for _, f := range foreign {
		o := owner(f, mul)
		sw.outBuf[o] = append(sw.outBuf[o], f)
	}
	for _, f := range foreign {
		if o := owner(f, mul); len(sw.outBuf[o]) >= sw.nextTry[o] {
			sw.push(o)
		}
	}
}

// shardStage is the balls whose draws twoChoice makes ahead.
const shardStage = 64
