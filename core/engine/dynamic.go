package engine

import (
	"math"
	"slices"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/internal/stats"
	"github.com/balloc/balloc/kernels"
)

// Balls that leave, on both engines (core/dynamic.go has the settings and
// their conventions, kernels/dynamic.go the loops).
//
// The supermarket model runs its own event loop (kernels.SupermarketDirect
// on the loads, kernels.SupermarketLevels on the counts of bins per level):
// arrivals and departures interleave event by event, and an interface call
// per event would cost more than the event. The deletions model runs the
// process's own stepper for each run of insertions and removes a ball
// between runs, so at p = 0 it is the static run call for call.

// laneDeletions is the stream of the deletion model's coins and choices of
// the ball to remove, apart from the process's own (kernels.LaneChoices),
// so that the insertions draw exactly what the static process draws.
const laneDeletions kernels.Lane = 1 << 15

// supermarketBatches is the number of batches the time averages after the
// warmup are cut into, for their standard errors (batch means).
const supermarketBatches = 32

func runDynamic(s *core.Spec, trial uint64, progress func(uint64)) *result.Result {
	if s.Dynamic.Supermarket() {
		return runSupermarket(s, trial, progress)
	}
	if s.ResolvedEngine() == core.EngineDirect {
		if s.Balls <= math.MaxUint32 {
			return runDeletionsDirect[uint32](s, trial, progress)
		}
		return runDeletionsDirect[uint64](s, trial, progress)
	}
	return runDeletionsLevels(s, trial, progress)
}

// stop is a moment of a supermarket run where the engine looks at the
// state: the warmup's end, a batch's end, a checkpoint.
type stop struct {
	at                 uint64
	warm, batch, check bool
}

// supermarketStops lists the stops of E events with W of warmup in B batches
// and the checkpoints, in order, merged.
func supermarketStops(E, W, B, checkpoints uint64) []stop {
	var st []stop
	if W > 0 {
		st = append(st, stop{at: W, warm: true})
	}
	for b := uint64(1); b <= B; b++ {
		st = append(st, stop{at: W + uint64(float64(E-W)*float64(b)/float64(B)), batch: true})
	}
	st[len(st)-1].at = E
	for _, c := range checkpointsOf(E, checkpoints) {
		st = append(st, stop{at: c, check: true})
	}
	slices.SortStableFunc(st, func(a, b stop) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	merged := st[:0]
	for _, x := range st {
		if k := len(merged) - 1; k >= 0 && merged[k].at == x.at {
			merged[k].warm = merged[k].warm || x.warm
			merged[k].batch = merged[k].batch || x.batch
			merged[k].check = merged[k].check || x.check
			continue
		}
		merged = append(merged, x)
	}
	return merged
}

func runSupermarket(s *core.Spec, trial uint64, progress func(uint64)) *result.Result {
	d := s.Dynamic
	var sm *kernels.Supermarket
	rep, replicated := s.Proc.(process.Replicated)
	ring, ringed := s.Proc.(process.Ringed)
	if !replicated && !ringed {
		pl, _ := s.Proc.(process.Placer).Placement() // checkDynamic checked both
		pl.Bins = s.Bins
		var err error
		if sm, err = kernels.NewSupermarket(d.ArrivalRate, pl); err != nil {
			panic("core: " + err.Error())
		}
	}
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	t := kernels.NewTally(s.Bins)
	E, W := d.Events, d.WarmupEvents(s.Bins)
	B := min(uint64(supermarketBatches), E-W)

	var run func(count uint64)
	var measure func() result.Snapshot
	var kept func() []float64 // the direct engine's loads
	var queues *kernels.Redundancy
	var probes *kernels.Probes
	switch {
	case replicated: // redundancy.go
		queues, run, measure, kept = supermarketRedundancy(s, &rng, t, rep.Copies())
	case ringed: // hashring.go
		probes, run, measure, kept = supermarketRing(s, trial, &rng, t, ring)
	case d.UpdateDelay != 0 || d.UpdateIndividual != 0: // stale.go
		run, measure, kept = supermarketStale(s, trial, &rng, sm, t)
	case d.UpdatePeriod != 0 && narrowLoads(s):
		run, measure, kept = supermarketBoard[uint32](s, trial, &rng, sm, t)
	case d.UpdatePeriod != 0:
		run, measure, kept = supermarketBoard[uint64](s, trial, &rng, sm, t)
	case s.ResolvedEngine() == core.EngineHistogram:
		if S := startLevels(s, trial); S != nil { // supermarket_initial.go
			t.StartLevels(S)
		}
		run = func(c uint64) { kernels.SupermarketLevels(&rng, c, sm, t) }
		measure = func() result.Snapshot { return measureTally(t, s.Alpha) }
	case narrowLoads(s):
		run, measure, kept = supermarketDirect[uint32](s, trial, &rng, sm, t)
	default:
		run, measure, kept = supermarketDirect[uint64](s, trial, &rng, sm, t)
	}
	start := t.Total // the start's balls

	res := &result.Result{InitialBalls: start}
	if s.Checkpoints > 0 {
		res.Checkpoints = make([]result.Checkpoint, 0, s.Checkpoints)
	}
	var batches [][]float64 // Σ S_k over each batch's events
	var lengths []uint64
	from := W
	for _, st := range supermarketStops(E, W, B, s.Checkpoints) {
		for t.Event < st.at {
			c := min(st.at-t.Event, unitChunk)
			run(c)
			progress(c)
		}
		switch {
		case st.warm:
			t.TakeAcc() // the warmup's sums are left out
		case st.batch:
			batches = append(batches, t.TakeAcc())
			lengths = append(lengths, st.at-from)
			from = st.at
		}
		if st.check || st.at == E {
			snap := measure()
			if st.check && s.Checkpoints > 0 {
				snap.Balls = st.at // a checkpoint's balls are the events run
				res.Checkpoints = append(res.Checkpoints, snap.Checkpoint())
			}
			if st.at == E {
				snap.Balls = t.Total
				res.Fill(snap, s.Alpha)
			}
		}
	}
	dy := &result.Dynamic{
		Model: "supermarket", Events: E, Arrivals: t.Arrivals, Departures: t.Departures,
		ArrivalRate: d.ArrivalRate, Time: float64(E) / d.EventRate(s.Bins), Warmup: d.Warmup,
		MaxEver: float64(t.MaxEver), Batches: len(batches),
	}
	batchMeans(dy, batches, lengths, float64(s.Bins))
	for k := 1; k <= t.Top(); k++ {
		dy.FinalAtLeast = append(dy.FinalAtLeast, float64(t.S[k])/float64(s.Bins))
	}
	dy.Sojourn, dy.SojournSE = dy.MeanQueue/d.ArrivalRate, dy.MeanQueueSE/d.ArrivalRate
	res.Dynamic = dy
	if queues != nil {
		res.Add(result.RedundancyOf(dy, rep.Copies(), queues.Arrived, queues.Completed, queues.Cancelled))
	}
	if probes != nil {
		res.Add(result.ProbesOf(probes.Total, probes.Max, t.Arrivals))
	}
	if s.KeepLoads && kept != nil {
		res.Loads = kept()
	}
	return res
}

// supermarketDirect is the direct engine's event loop, its measure, and
// its loads for --loads, on a load array of L.
func supermarketDirect[L kernels.Load](s *core.Spec, trial uint64, rng *kernels.PCG32, sm *kernels.Supermarket, t *kernels.Tally) (func(uint64), func() result.Snapshot, func() []float64) {
	loads := make([]L, s.Bins)
	startLoads(s, trial, loads, t)
	run := func(c uint64) { kernels.SupermarketDirect(loads, rng, c, sm, t) }
	measure := func() result.Snapshot { return result.MeasureUnit(loads, t.Total, 1, s.Alpha, L(t.Top())) }
	return run, measure, func() []float64 { return keptLoads(loads) }
}

// supermarketBoard is supermarketDirect deciding on the periodic board:
// the board is copied from the loads after every BoardEvents events, and
// starts as the start's loads.
func supermarketBoard[L kernels.Load](s *core.Spec, trial uint64, rng *kernels.PCG32, sm *kernels.Supermarket, t *kernels.Tally) (func(uint64), func() result.Snapshot, func() []float64) {
	loads, board := make([]L, s.Bins), make([]L, s.Bins)
	startLoads(s, trial, loads, t)
	copy(board, loads)
	every := s.Dynamic.BoardEvents(s.Bins)
	next := every
	run := func(c uint64) {
		for c > 0 {
			k := min(c, next-t.Event)
			kernels.SupermarketBoard(loads, board, rng, k, sm, t)
			c -= k
			if t.Event == next {
				copy(board, loads)
				next += every
			}
		}
	}
	measure := func() result.Snapshot { return result.MeasureUnit(loads, t.Total, 1, s.Alpha, L(t.Top())) }
	return run, measure, func() []float64 { return keptLoads(loads) }
}

// keptLoads copies the loads for Result.Loads (--loads).
func keptLoads[L kernels.Load](loads []L) []float64 {
	out := make([]float64, len(loads))
	for i, v := range loads {
		out[i] = float64(v)
	}
	return out
}

// batchMeans sets the time averages and their batch-means standard errors
// from each batch's sums of S_k over its events.
func batchMeans(dy *result.Dynamic, sums [][]float64, lengths []uint64, n float64) {
	levels := 0
	for _, b := range sums {
		for k := len(b) - 1; k >= 0; k-- {
			if b[k] > 0 {
				levels = max(levels, k+1)
				break
			}
		}
	}
	B := float64(len(sums))
	total := 0.0
	for _, l := range lengths {
		total += float64(l)
	}
	queue := make([]float64, len(sums)) // each batch's mean queue
	dy.AtLeast, dy.AtLeastSE = make([]float64, levels), make([]float64, levels)
	for k := range levels {
		all, mean := 0.0, 0.0
		f := make([]float64, len(sums))
		for b, bs := range sums {
			if k < len(bs) {
				all += bs[k]
				f[b] = bs[k] / (float64(lengths[b]) * n)
			}
			mean += f[b] / B
			queue[b] += f[b]
		}
		dy.AtLeast[k] = all / (total * n)
		dy.AtLeastSE[k] = stats.StdErr(f, mean)
	}
	qm := 0.0
	for _, q := range queue {
		qm += q / B
	}
	for _, a := range dy.AtLeast {
		dy.MeanQueue += a
	}
	dy.MeanQueueSE = stats.StdErr(queue, qm)
	dy.BatchLag1 = stats.Lag1(queue, qm)
}

// measureTally summarises the tally's bins per level in O(levels).
func measureTally(t *kernels.Tally, alpha float64) result.Snapshot {
	levels := make([]result.Level, 0, t.Top()+1)
	for k := 0; k <= t.Top(); k++ {
		if c := t.S[k] - t.S[k+1]; c > 0 {
			levels = append(levels, result.Level{Load: float64(k), Count: c})
		}
	}
	snap := result.Summary(levels, float64(t.Total)/float64(t.S[0]), alpha)
	snap.Balls = t.Total
	snap.Histogram = levels
	return snap
}

// deletions is the deletion model's state common to both engines: its
// coin and stream, and its counts.
type deletions struct {
	coin       kernels.Bernoulli
	never      bool    // p = 0: every step inserts, and no coin is drawn
	phases     []int64 // --phases: the signed phases; nil: the coin
	ends       []uint64
	phase      int // the phase of the next step
	rng        kernels.PCG32
	byBall     bool
	steps, ins uint64 // steps run; balls inserted
	dels       uint64 // balls removed
}

func newDeletions(s *core.Spec, trial uint64) *deletions {
	coin, err := kernels.NewBernoulli(s.Dynamic.DeleteProb)
	if err != nil {
		panic("core: " + err.Error())
	}
	d := &deletions{coin: coin, never: s.Dynamic.DeleteProb == 0, rng: kernels.TrialStream(s.Seed, trial, laneDeletions),
		byBall: s.Dynamic.DeleteMode() == "ball", phases: s.Dynamic.Phases}
	end := uint64(0)
	for _, p := range d.phases {
		end += uint64(max(p, -p))
		d.ends = append(d.ends, end)
	}
	return d
}

// targets are the steps where the run measures: --checkpoints' evenly
// spaced steps and, with --phases, every phase's end, in order.
func (d *deletions) targets(s *core.Spec) []uint64 {
	pts := checkpointsOf(s.Balls, s.Checkpoints)
	if d.phases == nil {
		return pts
	}
	pts = append(pts, d.ends...)
	slices.Sort(pts)
	return slices.Compact(pts)
}

// recording: a checkpoint at every target (--checkpoints or --phases).
func (d *deletions) recording(s *core.Spec) bool { return s.Checkpoints > 0 || d.phases != nil }

// next returns the insertions before the next deletion within the steps
// left (all of them at p = 0), and whether that deletion comes.
func (d *deletions) next(left uint64) (run uint64, del bool) {
	if d.phases != nil {
		for d.steps == d.ends[d.phase] {
			d.phase++
		}
		if d.phases[d.phase] > 0 {
			return min(left, d.ends[d.phase]-d.steps), false
		}
		return 0, true
	}
	if d.never {
		return left, false
	}
	for run < left {
		if d.coin.Flip(&d.rng) {
			return run, true
		}
		run++
	}
	return run, false
}

func (d *deletions) present() uint64 { return d.ins - d.dels }

// probes reports the load reads of a stepper that counts them (adaptive),
// per inserted ball.
func (d *deletions) probes(res *result.Result, st any) {
	if pr, ok := st.(process.Prober); ok {
		total, most := pr.Probes()
		res.Add(result.ProbesOf(total, most, d.ins))
	}
}

func (d *deletions) result(res *result.Result) {
	model := "deletions"
	if d.phases != nil {
		model = "phases"
	}
	res.Dynamic = &result.Dynamic{Model: model, Events: d.steps, Arrivals: d.ins, Departures: d.dels}
}

func runDeletionsDirect[L kernels.Load](s *core.Spec, trial uint64, progress func(uint64)) *result.Result {
	res := &result.Result{}
	loads := make([]L, s.Bins)
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	noise := kernels.TrialStream(s.Seed, trial, kernels.LaneNoise)
	st := stepper[L](s.Proc, trialOf(s, trial, &rng, &noise))
	left, _ := st.(process.Leaver[L]) // a stepper whose state follows the loads
	d := newDeletions(s, trial)
	var maxLoad L // bounds every load: deletions never lower it
	record := d.recording(s)
	if record {
		res.Checkpoints = make([]result.Checkpoint, 0, s.Checkpoints)
	}
	pending := uint64(0)
	for _, target := range d.targets(s) {
		for d.steps < target {
			run, del := d.next(target - d.steps)
			for run > 0 {
				var c uint64
				c, maxLoad = st.Step(loads, d.present(), min(run, unitChunk), maxLoad)
				run -= c
				d.ins += c
				d.steps += c
				progress(c)
			}
			if del {
				if d.present() > 0 {
					var i int
					if d.byBall {
						i = kernels.DeleteBall(loads, &d.rng, maxLoad, d.present())
					} else {
						i = kernels.DeleteBin(loads, &d.rng, maxLoad, d.present())
					}
					if left != nil {
						left.Left(loads[i] + 1)
					}
					d.dels++
				}
				d.steps++
				if pending++; pending == unitChunk/8 {
					progress(pending)
					pending = 0
				}
			}
		}
		top := L(0)
		for _, v := range loads {
			top = max(top, v)
		}
		snap := result.MeasureUnit(loads, d.present(), 1, s.Alpha, top)
		if record {
			c := snap.Checkpoint()
			c.Balls = d.steps
			res.Checkpoints = append(res.Checkpoints, c)
		}
		if d.steps == s.Balls {
			res.Fill(snap, s.Alpha)
		}
	}
	progress(pending)
	d.result(res)
	d.probes(res, st)
	if s.KeepLoads {
		res.Loads = keptLoads(loads)
	}
	return res
}

// shortRun: runs of fewer insertions go ball by ball on ranks
// (kernels.LevelPlacer) rather than through the process's level stepper,
// whose batches pay off from about hist.MinBatch balls.
const shortRun = 1024

func runDeletionsLevels(s *core.Spec, trial uint64, progress func(uint64)) *result.Result {
	res := &result.Result{}
	lv := kernels.NewLevels(s.Bins)
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	noise := kernels.TrialStream(s.Seed, trial, kernels.LaneNoise)
	st := s.Proc.(process.Histogram).Levels(trialOf(s, trial, &rng, &noise))
	pl, _ := s.Proc.(process.Placer).Placement()
	pl.Bins = s.Bins
	short, err := kernels.NewLevelPlacer(pl)
	byShort := len(pl.Thetas) == 0 // thinning's limits move with the balls present: its own stepper
	if err != nil {
		panic("core: " + err.Error())
	}
	d := newDeletions(s, trial)
	record := d.recording(s)
	if record {
		res.Checkpoints = make([]result.Checkpoint, 0, s.Checkpoints)
	}
	pending := uint64(0)
	for _, target := range d.targets(s) {
		for d.steps < target {
			run, del := d.next(target - d.steps)
			if run < shortRun && !d.never && d.phases == nil && byShort {
				// A short run ball by ball on ranks: the level stepper's
				// setup costs microseconds a call (same law, another
				// stream use; p = 0 never comes here).
				short.Place(lv, &rng, run)
				d.ins += run
				d.steps += run
				run = 0
			}
			for run > 0 {
				c := st.Step(lv, d.present(), run)
				run -= c
				d.ins += c
				d.steps += c
				progress(c)
			}
			if del {
				if d.present() > 0 {
					if d.byBall {
						kernels.LevelDeleteBall(lv, &d.rng, d.present())
					} else {
						kernels.LevelDeleteBin(lv, &d.rng)
					}
					d.dels++
				}
				d.steps++
				if pending++; pending == unitChunk/8 {
					progress(pending)
					pending = 0
				}
			}
		}
		snap := measureLevels(lv, d.present(), 1, s.Alpha)
		if record {
			c := snap.Checkpoint()
			c.Balls = d.steps
			res.Checkpoints = append(res.Checkpoints, c)
		}
		if d.steps == s.Balls {
			res.Fill(snap, s.Alpha)
		}
	}
	progress(pending)
	d.result(res)
	d.probes(res, st)
	return res
}
