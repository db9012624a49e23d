package engine

import (
	"math"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/kernels"
)

// The direct engine: a flat array of loads, one specialised loop per
// process (its process.Stepper), one interface call per chunk of balls,
// never per ball.

const (
	// unitChunk balls run between progress reports: a few milliseconds.
	unitChunk = process.Chunk
	// weightBuffer is how many ball weights are drawn ahead at a time.
	weightBuffer = 1 << 13
)

// checkpointsOf returns the ball counts at which to snapshot: K evenly
// spaced points ⌊k·m/K⌋, k = 1..K, and always m itself (last).
func checkpointsOf(m, k uint64) []uint64 { return core.EvenCheckpoints(m, k) }

func runDirect(s *core.Spec, trial uint64, progress func(uint64)) *result.Result {
	if lp, ok := s.Proc.(process.Leaking); ok {
		return runLeaky(s, trial, progress, lp) // leaky.go
	}
	if _, ok := s.Proc.(rbbProcess); ok {
		return runRounds(s, trial, progress) // rbb.go
	}
	res := &result.Result{}
	_, isVector := s.Vector()
	switch {
	case isVector:
		runIdea(s, trial, progress, res)
	case !s.Weights.Unit():
		runReal(s, trial, progress, res)
	case s.Balls <= math.MaxUint32-min(s.InitialBalls(), math.MaxUint32): // no bin can pass 2^32 − 1
		runUnit[uint32](s, trial, progress, res)
	default:
		runUnit[uint64](s, trial, progress, res)
	}
	return res
}

// trialOf is what a process's stepper sees of trial number trial.
func trialOf(s *core.Spec, trial uint64, rng, noise *kernels.PCG32) *process.Trial {
	return &process.Trial{Seed: s.Seed, Index: trial, Bins: s.Bins, Balls: s.Balls, Weights: s.Weights, Choices: rng, Noise: noise, LevelBatch: s.LevelBatch, Initial: s.InitialBalls()}
}

// stepper is the process's loop for loads of type L (validate checked
// that it has one).
func stepper[L kernels.Load](p process.Process, tr *process.Trial) process.Stepper[L] {
	d := p.(process.Direct)
	var zero L
	if _, ok := any(zero).(uint32); ok {
		return any(d.Direct32(tr)).(process.Stepper[L])
	}
	return any(d.Direct64(tr)).(process.Stepper[L])
}

// runUnit runs a unit-weight (or constant-weight) trial on integer loads.
// Constant weights w give exactly the unit process scaled by w: every rule
// compares loads only, and all loads are multiples of w.
func runUnit[L kernels.Load](s *core.Spec, trial uint64, progress func(uint64), res *result.Result) {
	loads := make([]L, s.Bins)
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	noise := kernels.TrialStream(s.Seed, trial, kernels.LaneNoise)
	scale := s.Weights.Scale()
	st := stepper[L](s.Proc, trialOf(s, trial, &rng, &noise))
	maxLoad := process.FillInitial(&s.Initial, loads)
	if st, ok := st.(process.Starter[L]); ok && !s.Initial.IsZero() {
		st.Start(loads)
	}
	w0 := s.InitialBalls() // the average is (w0 + t)/n
	t := uint64(0)
	if s.Checkpoints > 0 {
		res.Checkpoints = make([]result.Checkpoint, 0, s.Checkpoints) // as TrialFootprint counts them: no doubling
	}
	for _, target := range s.CheckpointTargets(s.Balls) {
		for t < target {
			var c uint64
			c, maxLoad = st.Step(loads, t, min(target-t, unitChunk), maxLoad)
			t += c
			progress(c)
		}
		snap := result.MeasureUnit(loads, w0+t, scale, s.Alpha, maxLoad)
		snap.Balls = t
		if s.Checkpoints > 0 {
			res.Checkpoints = append(res.Checkpoints, snap.Checkpoint())
			if be, ok := st.(process.BatchEnds); ok {
				if ends, g := be.BatchEnds(len(loads)); ends > 0 {
					res.BatchEndsAt((g - float64(w0)/float64(s.Bins)) * scale)
				}
			}
		}
		if t == s.Balls {
			res.Fill(snap, s.Alpha)
		}
	}
	if sp, ok := st.(process.Sampler); ok && sp.Samples() > 0 {
		res.Add(result.Samples(sp.Samples()))
	}
	if be, ok := st.(process.BatchEnds); ok {
		// max_gap of b-batch also covers every batch end (when the batch's loads are published).
		if ends, g := be.BatchEnds(len(loads)); ends > 0 {
			res.MaxGap = max(res.MaxGap, (g-float64(w0)/float64(s.Bins))*scale) // batch ends count thrown balls
		}
	}
	if pr, ok := st.(process.Prober); ok {
		total, most := pr.Probes()
		res.Add(result.ProbesOf(total, most, s.Balls))
	}
	if s.KeepLoads {
		res.Loads = make([]float64, len(loads))
		for i, v := range loads {
			res.Loads[i] = float64(v) * scale
		}
	}
}

// runReal runs a trial with random weights on real-valued loads.
func runReal(s *core.Spec, trial uint64, progress func(uint64), res *result.Result) {
	loads := make([]float64, s.Bins)
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	wrng := kernels.TrialStream(s.Seed, trial, kernels.LaneWeights)
	noise := kernels.TrialStream(s.Seed, trial, kernels.LaneNoise)
	buf := make([]float64, weightBuffer)
	st := s.Proc.(process.DirectWeighted).DirectReal(trialOf(s, trial, &rng, &noise))
	maxLoad := 0.0
	if !s.Initial.IsZero() {
		initial := make([]uint64, len(loads))
		maxLoad = float64(process.FillInitial(&s.Initial, initial))
		for i, v := range initial {
			loads[i] = float64(v) // an initial load L is L units of weight
		}
		if st, ok := st.(process.RealStarter); ok {
			st.Start(loads)
		}
	}
	t, pending := uint64(0), uint64(0)
	if s.Checkpoints > 0 {
		res.Checkpoints = make([]result.Checkpoint, 0, s.Checkpoints) // as TrialFootprint counts them: no doubling
	}
	for _, target := range s.CheckpointTargets(s.Balls) {
		for t < target {
			w := buf[:min(target-t, weightBuffer)]
			fillWeights(w, &wrng, s.Weights)
			maxLoad = st.Step(loads, w, maxLoad)
			t += uint64(len(w))
			if pending += uint64(len(w)); pending >= unitChunk/8 {
				progress(pending)
				pending = 0
			}
		}
		snap := result.MeasureReal(loads, t, s.Alpha)
		if snap.MaxLoad != maxLoad {
			panic("core: the weighted loop's maximum disagrees with the loads")
		}
		if s.Checkpoints > 0 {
			res.Checkpoints = append(res.Checkpoints, snap.Checkpoint())
			if be, ok := st.(process.BatchEnds); ok {
				if ends, g := be.BatchEnds(len(loads)); ends > 0 {
					res.BatchEndsAt(g - float64(s.InitialBalls())/float64(s.Bins))
				}
			}
		}
		if t == s.Balls {
			res.Fill(snap, s.Alpha)
		}
	}
	if pending > 0 {
		progress(pending)
	}
	if be, ok := st.(process.BatchEnds); ok {
		if ends, g := be.BatchEnds(len(loads)); ends > 0 {
			res.MaxGap = max(res.MaxGap, g-float64(s.InitialBalls())/float64(s.Bins)) // batch ends count thrown balls
		}
	}
	if s.KeepLoads {
		res.Loads = loads
	}
}

// fillWeights draws the next len(w) ball weights of law wt from the weight
// stream.
func fillWeights(w []float64, wrng *kernels.PCG32, wt process.Weights) {
	switch wt.Kind {
	case process.WeightsExp:
		kernels.FillExp(w, wrng, 1/wt.Value) // exp:λ has rate λ
	case process.WeightsUniform:
		kernels.FillUniform(w, wrng, wt.Value, wt.B)
	case process.WeightsPareto:
		kernels.FillPareto(w, wrng, wt.Value, (wt.Value-1)/wt.Value) // mean 1
	default:
		for k := range w {
			w[k] = wt.Scale()
		}
	}
}
