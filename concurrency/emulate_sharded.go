package concurrency

import (
	"github.com/balloc/balloc/core/process"
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
		t0       uint64
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
	}
	vs := make([]*vworker, W)
	active := make([]int, W)
	for w := range W {
		vs[w] = &vworker{r: kernels.TrialStream(s.Seed, cfg.Trial, kernels.WorkerLane(w)), left: share(s.Balls, W, w), out: make([][]sent, W)}
		active[w] = w
	}
	rd := &reader{cells: cells, stride: stride}
	total, finished := uint64(0), 0
	commit := func(w int, b sent) {
		after := cells[uint64(b.bin)*stride].Add(1) // one goroutine: the add is the owner's store
		if st.ages != nil {
			st.ages = append(st.ages, uint32(total-b.t0))
		}
		total++
		vs[w].placed++
		st.placed.Store(w, vs[w].placed)
		if b.measured {
			st.bin[w].add(uint64(after - 1 - b.v))
			st.global[w].add(total - b.t0 - 1)
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
	staged := ru.kind == process.ShapeLeast && ru.d == 2
	var b ball
	for len(active) > 0 {
		a := int(sched.Bounded(uint32(len(active))))
		w := active[a]
		vw := vs[w]
		switch {
		case vw.left > 0:
			ru.draw(&vw.r, &b)
			vw.k++
			x := sent{t0: total, measured: cfg.MeasureEvery > 0 && vw.k%cfg.MeasureEvery == 0}
			x.bin, x.v = ru.decide(&b, rd, ru.thinLimit(total))
			switch o := owner(x.bin, mul); {
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
		case !vw.done:
			vw.done = true
			finished++
			drain(w)
		default:
			drain(w)
		}
		if vw.done && finished == W && len(vw.inbox) == 0 {
			active[a] = active[len(active)-1]
			active = active[:len(active)-1]
		}
	}
	return st
}
