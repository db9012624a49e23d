package concurrency

import "github.com/balloc/balloc/kernels"

// Emulation: W virtual workers in one goroutine. A worker's ball has two
// steps — read and decide, then commit (add, or compare-and-swap) — and at
// each step the schedule stream picks which unfinished worker moves next,
// uniformly. So between a worker's read and its commit the others take a
// geometric number of steps (W − 1 on average): random latencies, the same
// for the same seed on any machine. With W = 1 every read is committed at
// once: two-choice, exactly. Local batches commit a whole batch in one step.
//
// With cfg.RecordAges every ball's age is kept in commit order: the number
// of balls committed between its read and its own commit (a local batch's
// balls count from the batch's start, and a compare-and-swap's from its last
// read). The schedule does not depend on the bins chosen, so a racy run is
// τ-Delay driven by exactly this sequence (kernels.TauDelayReplay).
func emulate(cfg Config, ru *rule, W int) *state {
	st := newState(cfg, W)
	if cfg.RecordAges {
		st.ages = make([]uint32, 0, cfg.Spec.Balls)
	}
	s := cfg.Spec
	sched := kernels.TrialStream(s.Seed, cfg.Trial, kernels.LaneSchedule)
	cells, stride := st.loads.cells, st.loads.stride
	type vworker struct {
		r        kernels.PCG32
		rd       *reader
		left     uint64 // balls still to place
		b        ball
		pending  bool // read and decided, not committed
		bin, v   uint32
		t0       uint64
		measured bool
		k        uint64 // balls begun
		batch    []uint32
		batchV   []uint32
		batchT   uint64
		placed   uint64
	}
	vs := make([]*vworker, W)
	active := make([]int, 0, W)
	for w := range W {
		vs[w] = &vworker{
			r:    kernels.TrialStream(s.Seed, cfg.Trial, kernels.WorkerLane(w)),
			rd:   &reader{cells: cells, stride: stride},
			left: share(s.Balls, W, w),
		}
		if cfg.Mode == LocalBatch {
			vs[w].rd.cached, vs[w].rd.cache, vs[w].rd.epoch, vs[w].rd.cur = true, make([]uint32, s.Bins), make([]uint32, s.Bins), 1
		}
		if vs[w].left > 0 {
			active = append(active, w)
		}
	}
	total := uint64(0) // balls placed: exact in one goroutine
	for len(active) > 0 {
		a := int(sched.Bounded(uint32(len(active))))
		w := active[a]
		vw := vs[w]
		switch {
		case cfg.Mode == LocalBatch && !vw.pending:
			// Decide one ball against the cache; commit the batch when full.
			ru.draw(&vw.r, &vw.b)
			if len(vw.batch) == 0 {
				vw.batchT = total
			}
			bin, v := ru.decide(&vw.b, vw.rd, ru.thinLimit(total))
			vw.batch, vw.batchV = append(vw.batch, bin), append(vw.batchV, v)
			vw.k++
			if uint64(len(vw.batch)) == cfg.Batch || uint64(len(vw.batch)) == vw.left {
				vw.pending = true
			}
		case cfg.Mode == LocalBatch:
			for q, bin := range vw.batch {
				after := cells[uint64(bin)*stride].Add(1)
				if st.ages != nil {
					st.ages = append(st.ages, uint32(total-vw.batchT))
				}
				total++
				vw.placed++
				st.placed.Store(w, vw.placed)
				if cfg.MeasureEvery > 0 && (vw.k-uint64(len(vw.batch))+uint64(q)+1)%cfg.MeasureEvery == 0 {
					st.bin[w].add(uint64(after - 1 - vw.batchV[q]))
					st.global[w].add(total - vw.batchT - 1)
				}
			}
			vw.left -= uint64(len(vw.batch))
			vw.batch, vw.batchV = vw.batch[:0], vw.batchV[:0]
			vw.rd.newEpoch()
			vw.pending = false
		case !vw.pending:
			ru.draw(&vw.r, &vw.b)
			vw.k++
			vw.measured = cfg.MeasureEvery > 0 && vw.k%cfg.MeasureEvery == 0
			vw.t0 = total
			vw.bin, vw.v = ru.decide(&vw.b, vw.rd, ru.thinLimit(total))
			vw.pending = true
		default:
			c := &cells[uint64(vw.bin)*stride]
			if cfg.Mode == CAS && c.Load() != vw.v {
				st.retries++
				vw.t0 = total // read again; commit at a later step
				vw.bin, vw.v = ru.decide(&vw.b, vw.rd, ru.thinLimit(total))
				continue
			}
			after := c.Add(1)
			if st.ages != nil {
				st.ages = append(st.ages, uint32(total-vw.t0))
			}
			total++
			vw.placed++
			st.placed.Store(w, vw.placed)
			if vw.measured {
				st.bin[w].add(uint64(after - 1 - vw.v))
				st.global[w].add(total - vw.t0 - 1)
			}
			vw.left--
			vw.pending = false
		}
		if vw.left == 0 && !vw.pending {
			active[a] = active[len(active)-1]
			active = active[:len(active)-1]
		}
	}
	return st
}
