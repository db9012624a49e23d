package engine

import (
	"math"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/kernels"
)

// IDEA, Improved D-choice with Estimated Average ("Perfectly Balanced
// Allocation With Estimated Average Using Expected Constant Retries"), and
// multi-dimensional balls for idea and d-choice.
//
// The rule (§3, Algorithm 1): every bin i keeps a load L_i and an estimate
// Â_i of the global average. A ball draws d bins uniformly with replacement;
// if the least estimated gap L_i − Â_i among them is ≤ 0 it goes there, else
// it draws again, up to γ rounds (--retries), and then goes to the least
// estimated gap of its last round. The estimates of the d bins of its final
// round each grow by w/d (w = 1 for unit balls), except where the hold rule
// of --variant refuses:
//
//   - numbered (§3, "when the estimated average of a bin increases beyond α,
//     α ∈ N, it checks if the next ball selecting it has a number greater than
//     αn"): an increment that would take Â past an integer α is held while
//     the ball's number j is ≤ α·n. Equivalently Â never exceeds ⌈j/n⌉.
//   - sampling (§3, "in the scenario where numbering of the balls is
//     forbidden", and Appendix A): such an increment is held unless the mean
//     estimate of K = ⌈ln n⌉ (--sample-size) uniformly sampled bins says the
//     system has reached α.
//   - oracle: not the paper's algorithm but its premise (§3: "Given each bin
//     has an accurate knowledge of the average … it is easy"): every bin's
//     estimate is the true average of the balls already thrown.
//
// Where the paper is ambiguous balloc chooses, and says so here:
//
//   - What happens to a held increment (--held). §3: a bin whose estimate
//     would pass α "refrains from increasing its estimated average until a
//     ball with number more than αn selects it". drop (the default, the
//     literal reading): the increment is lost. carry: it is banked per bin
//     (and dimension) and paid when the hold lifts. numbered: whenever the
//     bin is in a ball's final round, its pending total Â + bank + w/d goes
//     into Â as far as the cap ⌈j/n⌉ allows and the rest stays banked, so a
//     ball numbered above αn releases it, and Â never passes the cap.
//     sampling: the pending total is the proposed estimate; it goes in whole
//     when it passes no integer or the sample says the largest it passes is
//     reached; else Â rises to A+1, A the largest integer the sampled mean
//     has reached (so it passes no unreached integer), and the rest is
//     banked — banking the whole increment would keep every bin from ever
//     reaching the next integer exactly, so the sampled mean never would
//     either, and all estimates would stop. Either way the held count
//     is the increments that did not go in whole at their ball, and with
//     carry Σ Â + Σ bank is exactly the weight thrown.
//   - Rounds of d = 2 among n < 2^16 bins draw both bins from one PCG32
//     output (kernels.boundedPair, exact); this is a stream convention, so
//     idea --variant oracle --retries 1 equals d-choice ball for ball there
//     only for d ≠ 2 or n > 2^16.
//   - Samples are with replacement, as in d-choice; a bin drawn twice in the
//     final round gets two shares of 1/d, so Σ Â grows by exactly w per ball
//     unless a hold applies.
//   - "Reached α" in the sampling rule is mean ≥ α (--sample-rule reached);
//     the paper's "if the average … are 1" may also be read as "is 1 after
//     rounding", which --sample-rule rounded gives (mean ≥ α − 1/2). α = 0 is
//     always reached. When an increment passes several integers (weights above
//     d) the largest is checked.
//   - "log n" is the natural logarithm, at least 1 (--sample-size overrides).
//   - Weighted balls (§6.1): the ball's "number" in the numbered rule is the
//     total weight thrown up to and including it, which is its number for
//     unit balls; estimates grow by w/d.
//   - Vectors (§6.2, whose rule our copy of the paper does not spell out):
//     estimates are kept per bin and dimension; a bin's estimated gap is the
//     largest L_ik − Â_ik over the ball's populated dimensions (--vector-gap
//     populated; all: over every dimension); the hold rules apply per
//     dimension, with the dimension's own total as the ball's number; and the
//     gap is the largest L_ik − (average of dimension k). d-choice on vectors
//     takes the sample whose largest coordinate is least.
//
// Reported per trial: the rounds ("retries", as the paper counts them: the
// first round is one) — mean, maximum and distribution, and the balls that
// fell back after γ rounds; the spread max_i |Â_i − W/n| of the estimates,
// their lag W/n − mean_i Â_i, and the increments held.

func isReal[T int64 | float64]() bool {
	var zero T
	_, ok := any(zero).(float64)
	return ok
}

// runIdea runs an idea trial, or a d-choice trial of multi-dimensional balls.
func runIdea(s *core.Spec, trial uint64, progress func(uint64), res *result.Result) {
	vec, _ := s.Vector()
	unit := s.Weights.Kind == process.WeightsUnit
	switch {
	case !vec.Idea && unit:
		runDChoiceVec[int64](s, trial, progress, res)
	case !vec.Idea:
		runDChoiceVec[float64](s, trial, progress, res)
	case vec.Shape.Dims > 1 && unit:
		runIdeaVec[int64](s, trial, progress, res)
	case vec.Shape.Dims > 1:
		runIdeaVec[float64](s, trial, progress, res)
	case unit:
		runIdeaScalar[int64](s, trial, progress, res)
	default:
		runIdeaScalar[float64](s, trial, progress, res)
	}
}

// drive runs the balls of a trial in chunks through step, perBall weights
// per ball (none for unit balls), and records a snapshot at each checkpoint.
// step and measure are called once per chunk and checkpoint, never per ball.
func drive[T int64 | float64](s *core.Spec, trial uint64, progress func(uint64), res *result.Result, perBall int,
	step func(w []T, count uint64), measure func(balls uint64) result.Snapshot) {
	real := isReal[T]()
	wrng := kernels.TrialStream(s.Seed, trial, kernels.LaneWeights)
	chunk := uint64(unitChunk)
	var wbuf []float64
	if real {
		chunk = weightBuffer
		wbuf = make([]float64, weightBuffer*perBall)
	}
	t, pending := uint64(0), uint64(0)
	if s.Checkpoints > 0 {
		res.Checkpoints = make([]result.Checkpoint, 0, s.Checkpoints) // as TrialFootprint counts them: no doubling
	}
	for _, target := range s.CheckpointTargets(s.Balls) {
		for t < target {
			c := min(target-t, chunk)
			var w []T
			if real {
				fillWeights(wbuf[:c*uint64(perBall)], &wrng, s.Weights)
				w = any(wbuf[:c*uint64(perBall)]).([]T)
			}
			step(w, c)
			t += c
			if pending += c; pending >= unitChunk/8 {
				progress(pending)
				pending = 0
			}
		}
		snap := measure(t)
		if s.Checkpoints > 0 {
			res.Checkpoints = append(res.Checkpoints, snap.Checkpoint())
		}
		if t == s.Balls {
			res.Fill(snap, s.Alpha)
		}
	}
	if pending > 0 {
		progress(pending)
	}
}

func runIdeaScalar[T int64 | float64](s *core.Spec, trial uint64, progress func(uint64), res *result.Result) {
	vec, _ := s.Vector()
	n := s.Bins
	bins := make([]kernels.IdeaBin[T], n)
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	k := kernels.NewIdea[T](vec.Config, kernels.TrialStream(s.Seed, trial, kernels.LaneIdeaSamples))
	real := isReal[T]()
	var maxLoad T
	var ints []uint64
	var reals []float64
	drive(s, trial, progress, res, 1, func(w []T, c uint64) {
		maxLoad = k.Run(bins, &rng, w, c, maxLoad)
	}, func(balls uint64) result.Snapshot {
		if real {
			reals = reals[:0]
			for _, b := range bins {
				reals = append(reals, float64(b.L))
			}
			snap := result.MeasureReal(reals, balls, s.Alpha)
			if snap.MaxLoad != float64(maxLoad) {
				panic("core: the idea loop's maximum disagrees with the loads")
			}
			return snap
		}
		ints = ints[:0]
		for _, b := range bins {
			ints = append(ints, uint64(b.L))
		}
		return result.MeasureUnit(ints, balls, 1, s.Alpha, uint64(maxLoad))
	})
	res.Add(result.RetriesOf(&k.Stats, s.Balls))
	if vec.Config.Variant != kernels.IdeaOracle {
		unit := 1.0
		if !real {
			unit = float64(vec.Config.D)
		}
		avg := res.Average
		est := &result.Estimates{Held: k.Stats.Held, Checks: k.Stats.Checks}
		sum := 0.0
		for _, b := range bins {
			a := float64(b.E) / unit
			est.Spread = max(est.Spread, math.Abs(a-avg))
			sum += a
		}
		est.Lag = avg - sum/float64(n)
		res.Add(est)
	}
	if s.KeepLoads {
		res.Loads = make([]float64, n)
		for i, b := range bins {
			res.Loads[i] = float64(b.L)
		}
	}
}

func runIdeaVec[T int64 | float64](s *core.Spec, trial uint64, progress func(uint64), res *result.Result) {
	vec, _ := s.Vector()
	n, D := s.Bins, uint64(vec.Shape.Dims)
	bins := make([]kernels.IdeaBin[T], n*D)
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	k := kernels.NewIdeaVec[T](vec.Config, vec.Shape,
		kernels.TrialStream(s.Seed, trial, kernels.LaneIdeaSamples), kernels.TrialStream(s.Seed, trial, kernels.LaneDims))
	var maxLoad T
	flat := make([]float64, n*D)
	var avgs []float64
	drive(s, trial, progress, res, vec.Shape.F, func(w []T, c uint64) {
		maxLoad = k.Run(bins, &rng, w, c, maxLoad)
	}, func(balls uint64) result.Snapshot {
		for i, b := range bins {
			flat[i] = float64(b.L)
		}
		var snap result.Snapshot
		snap, avgs = measureVec(flat, int(D), balls, s.Alpha)
		if snap.MaxLoad != float64(maxLoad) {
			panic("core: the idea loop's maximum disagrees with the loads")
		}
		return snap
	})
	res.Add(result.RetriesOf(&k.Stats, s.Balls))
	if vec.Config.Variant != kernels.IdeaOracle {
		unit := 1.0
		if !isReal[T]() {
			unit = float64(vec.Config.D)
		}
		est := &result.Estimates{Held: k.Stats.Held, Checks: k.Stats.Checks}
		sums := make([]float64, D)
		for i, b := range bins {
			kd := uint64(i) % D
			a := float64(b.E) / unit
			est.Spread = max(est.Spread, math.Abs(a-avgs[kd]))
			sums[kd] += a
		}
		for kd := range D {
			est.Lag = max(est.Lag, avgs[kd]-sums[kd]/float64(n))
		}
		res.Add(est)
	}
	if s.KeepLoads {
		res.Loads = flat
	}
}

func runDChoiceVec[T int64 | float64](s *core.Spec, trial uint64, progress func(uint64), res *result.Result) {
	vec, _ := s.Vector()
	n, D := s.Bins, uint64(vec.Shape.Dims)
	loads, rowMax := make([]T, n*D), make([]T, n)
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	shapes := kernels.TrialStream(s.Seed, trial, kernels.LaneDims)
	shape := vec.Shape
	var maxLoad T
	flat := make([]float64, n*D)
	drive(s, trial, progress, res, vec.Shape.F, func(w []T, c uint64) {
		maxLoad = kernels.DChoiceVec(loads, rowMax, &rng, &shapes, w, c, vec.D, shape, maxLoad)
	}, func(balls uint64) result.Snapshot {
		for i, x := range loads {
			flat[i] = float64(x)
		}
		snap, _ := measureVec(flat, int(D), balls, s.Alpha)
		if snap.MaxLoad != float64(maxLoad) {
			panic("core: the d-choice vector loop's maximum disagrees with the loads")
		}
		return snap
	})
	if s.KeepLoads {
		res.Loads = flat
	}
}

// measureVec summarises bin-major load vectors of D dimensions in O(n·D):
// each dimension's average is its total over n, the gap is the largest
// L_ik − avg_k, the underload the largest avg_k − L_ik, the potentials sum
// over bins and dimensions of L_ik − avg_k; Average is the mean of the
// dimensions' averages. Returns the averages too.
func measureVec(flat []float64, D int, balls uint64, alpha float64) (result.Snapshot, []float64) {
	n := len(flat) / D
	sums := make([]float64, D)
	comp := make([]float64, D)
	for i, v := range flat {
		k := i % D
		t := sums[k] + v // Neumaier: the totals are the averages' only input
		if math.Abs(sums[k]) >= math.Abs(v) {
			comp[k] += (sums[k] - t) + v
		} else {
			comp[k] += (v - t) + sums[k]
		}
		sums[k] = t
	}
	avgs := make([]float64, D)
	s := result.Snapshot{Balls: balls, MaxLoad: flat[0], MinLoad: flat[0], Gap: math.Inf(-1), Underload: math.Inf(-1)}
	for k := range D {
		avgs[k] = (sums[k] + comp[k]) / float64(n)
		s.Average += avgs[k] / float64(D)
	}
	for i, v := range flat {
		x := v - avgs[i%D]
		s.MaxLoad, s.MinLoad = max(s.MaxLoad, v), min(s.MinLoad, v)
		s.Gap, s.Underload = max(s.Gap, x), max(s.Underload, -x)
		s.Quadratic += x * x
	}
	top := alpha * s.Gap
	if alpha < 0 {
		top = -alpha * s.Underload
	}
	e := 0.0
	for i, v := range flat {
		e += math.Exp(alpha*(v-avgs[i%D]) - top)
	}
	s.LogExp = top + math.Log(e)
	return s, avgs
}
