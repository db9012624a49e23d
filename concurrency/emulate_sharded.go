package concurrency

import (
	"math"

	"github.com/balloc/balloc/kernels"
)

// emulateSharded is --mode sharded with W virtual workers in one goroutine,
// interleaved as emulate does: a step of an unfinished worker decides one
// ball against the current loads and commits it at once when the worker
// owns the bin, or adds it to its batch for the owner; batches move to the
// owner's inbox when full (shardBatch balls) and every shardFlushEvery
// balls, and an owner commits its inbox every shardDrainEvery of its own
// balls. A finished worker's steps push its last batches, then commit what
// arrives until every worker is finished. The ages recorded are the commit
// delays this makes, ready for replay.
//
// Two-choice's unmeasured balls go as the goroutine loop sends them
// (twoChoice): a stage of them, up to the next measured ball or the
// next drain, commits its own balls at once and adds its foreign ones to
// the batches at its end.
func emulateSharded(cfg Config, ru *rule, W int) *state {
	st := newState(cfg, W)
	s := cfg.Spec
	if cfg.RecordAges {
		st.ages = make([]uint32, 0, s.Balls)
	}
	sched := kernels.TrialStream(s.Seed, cfg.Trial, kernels.LaneSchedule)
	cells, stride := st.loads.cells, st.loads.stride
	mul := ownerMul(W, s.Bins)
	type sent struct {
		bin, v   uint32
		t0, lb   uint64 // the total at its read, and its floor
		from     int
		measured bool
	}
	type vworker struct {
		r      kernels.PCG32
		left   uint64
		k      uint64
		out    [][]sent // per owner
		stage  []sent   // two-choice: foreign balls of the stage in progress
		inbox  []sent
		placed uint64
		done   bool
		// Backpressure (sharded.go): the worker's published floor, the total
		// at its last check that passed, its foreign balls in flight by
		// floor (ascending) and in ring entries, and whether it waits.
		floor   uint64
		chunkT  uint64
		flight  []flightBatch
		entries uint64
		blocked bool
	}
	vs := make([]*vworker, W)
	active := make([]int, W)
	for w := range W {
		vs[w] = &vworker{r: kernels.TrialStream(s.Seed, cfg.Trial, kernels.WorkerLane(w)), left: share(s.Balls, W, w), out: make([][]sent, W)}
		active[w] = w
	}
	entriesOf := func(b sent) uint64 {
		if b.measured {
			return 4 // as in a goroutine run's batches: the bin, its load and the total
		}
		return 1
	}
	rd := &reader{cells: cells, stride: stride}
	total, finished := uint64(0), 0
	commit := func(w int, b sent) {
		after := cells[uint64(b.bin)*stride].Add(1) // one goroutine: the add is the owner's store
		if st.ages != nil {
			st.ages = append(st.ages, uint32(total-b.t0))
		}
		if b.measured {
			st.bin[w].add(uint64(after - 1 - b.v))
			st.global[w].add(total - b.t0)
		}
		total++
		vs[w].placed++
		st.placed.Store(w, vs[w].placed)
		if p := vs[b.from]; b.from != w {
			p.entries -= entriesOf(b)
			p.flight = uncount(p.flight, b.lb)
		}
	}
	flush := func(vw *vworker, o int) {
		vs[o].inbox = append(vs[o].inbox, vw.out[o]...)
		vw.out[o] = vw.out[o][:0]
	}
	drain := func(w int) {
		for _, b := range vs[w].inbox {
			commit(w, b)
		}
		vs[w].inbox = vs[w].inbox[:0]
	}
	send := func(vw *vworker, o int, x sent) {
		if vw.out[o] = append(vw.out[o], x); len(vw.out[o]) >= shardBatch {
			flush(vw, o)
		}
	}
	// admit is shardWorker.admit: the worker's floor published, and whether
	// it may decide its next shardCheckEvery balls.
	lag := shardMaxLag * uint64(W)
	admit := func(w int) bool {
		vw := vs[w]
		low := uint64(math.MaxUint64)
		for q, v := range vs {
			if q != w {
				low = min(low, v.floor)
			}
		}
		vw.floor = min(floorOf(vw.flight), total)
		low = min(low, vw.floor)
		if !cfg.noBackpressure && (vw.entries > shardMaxInFlight || total > low && total-low >= lag) {
			return false
		}
		vw.chunkT = total
		return true
	}
	staged := ru.leastOfTwo()
	var b ball
	for len(active) > 0 {
		a := int(sched.Bounded(uint32(len(active))))
		w := active[a]
		if cfg.stall.odds > 0 && w == cfg.stall.worker && sched.Bounded(cfg.stall.odds) != 0 {
			continue
		}
		vw := vs[w]
		switch {
		case vw.blocked:
			for o := range W {
				flush(vw, o)
			}
			drain(w)
			vw.blocked = !admit(w)
		case vw.left > 0:
			ru.draw(&vw.r, &b)
			vw.k++
			x := sent{t0: total, lb: vw.chunkT, from: w, measured: cfg.MeasureEvery > 0 && vw.k%cfg.MeasureEvery == 0}
			x.bin, x.v = ru.decide(&b, rd, ru.thinLimit(total))
			o := owner(x.bin, mul)
			if o != w {
				vw.entries += entriesOf(x)
				vw.flight = count(vw.flight, x.lb)
			}
			switch {
			case o == w:
				commit(w, x)
			case staged && !x.measured:
				vw.stage = append(vw.stage, x)
			default:
				send(vw, o, x)
			}
			vw.left--
			if next := vw.k + 1; len(vw.stage) > 0 && (vw.k%shardDrainEvery == 0 || vw.left == 0 || cfg.MeasureEvery > 0 && next%cfg.MeasureEvery == 0) {
				for _, y := range vw.stage {
					o := owner(y.bin, mul)
					vw.out[o] = append(vw.out[o], y)
				}
				for _, y := range vw.stage {
					if o := owner(y.bin, mul); len(vw.out[o]) >= shardBatch {
						flush(vw, o)
					}
				}
				vw.stage = vw.stage[:0]
			}
			if vw.k%shardDrainEvery == 0 {
				drain(w)
			}
			if vw.k%shardFlushEvery == 0 || vw.left == 0 {
				for o := range W {
					flush(vw, o)
				}
			}
			if vw.k%shardCheckEvery == 0 && vw.left > 0 && !admit(w) {
				vw.blocked = true
				st.waits[w]++
			}
		case !vw.done:
			vw.done = true
			finished++
			drain(w)
			vw.floor = floorOf(vw.flight) // it decides nothing more
		default:
			drain(w)
			vw.floor = floorOf(vw.flight)
		}
		if vw.done && finished == W && len(vw.inbox) == 0 {
			active[a] = active[len(active)-1]
			active = active[:len(active)-1]
		}
	}
	return st
}

// stall slows one emulated worker (tests only): a step the schedule gives
// it is taken with probability 1/odds, and skipped otherwise; odds 0 is no
// stall.
type stall struct {
	worker int
	odds   uint32
}

// flightBatch is an emulated worker's foreign balls in flight with one
// floor: n of them.
type flightBatch struct{ lb, n uint64 }

// count adds a ball with floor lb to f, whose floors ascend (a worker's
// floors only grow).
func count(f []flightBatch, lb uint64) []flightBatch {
	if k := len(f) - 1; k >= 0 && f[k].lb == lb {
		f[k].n++
		return f
	}
	return append(f, flightBatch{lb, 1})
}

// uncount removes a ball with floor lb from f, and the empty batches at
// its front.
func uncount(f []flightBatch, lb uint64) []flightBatch {
	for k := range f {
		if f[k].lb == lb && f[k].n > 0 {
			f[k].n--
			break
		}
	}
	for len(f) > 0 && f[0].n == 0 {
		f = f[1:]
	}
	return f
}

// floorOf is the least floor of the balls in f, math.MaxUint64 for none.
func floorOf(f []flightBatch) uint64 {
	if len(f) == 0 {
		return math.MaxUint64
	}
	return f[0].lb
}
