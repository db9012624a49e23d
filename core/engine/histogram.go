package engine

import (
	"math"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/kernels"
)

// The histogram engine: the state is the number of bins at each load (a
// kernels.Levels), not the bins. For a symmetric process — the next bin
// depends on loads only — the counts are a Markov chain of their own, and
// simulating it is exact in distribution for every statistic balloc reports.
// Memory is O(levels), so n may be 10^12.
//
// Each symmetric process advances the counts through its level stepper
// (process.Histogram, in its file in core/process), with the exact samplers
// of core/hist: whole stretches of one-choice balls in one throw, level
// batches of about 4·√n balls for d-choice and (1+β), whole batches of
// b-batch, and the rest ball by ball on ranks (kernels/levelsteps.go).

// histogramMemory estimates the bytes of one histogram trial: the levels,
// and the Poisson window of the largest occupancy throw.
func histogramMemory(s *core.Spec) uint64 {
	perBin := float64(s.Balls) / float64(s.Bins)
	return 1<<20 + uint64(8*4*(24*math.Sqrt(perBin)+200))
}

func runHistogram(s *core.Spec, trial uint64, progress func(uint64)) *result.Result {
	if _, ok := s.Proc.(rbbProcess); ok {
		return runRounds(s, trial, progress) // rbb.go
	}
	res := &result.Result{}
	lv := kernels.NewLevels(s.Bins)
	if !s.Initial.IsZero() {
		lv.SetCounts(s.Initial.Levels())
	}
	w0 := s.InitialBalls() // the average is (w0 + t)/n
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	noise := kernels.TrialStream(s.Seed, trial, kernels.LaneNoise)
	scale := s.Weights.Scale()
	tr := trialOf(s, trial, &rng, &noise)
	st := s.Proc.(process.Histogram).Levels(tr) // validate checked it is one
	settler, _ := st.(process.Settler)
	t := uint64(0)
	if s.Checkpoints > 0 {
		res.Checkpoints = make([]result.Checkpoint, 0, s.Checkpoints) // as TrialFootprint counts them: no doubling
	}
	for _, target := range s.CheckpointTargets(s.Balls) {
		for t < target {
			c := st.Step(lv, t, target-t)
			t += c
			progress(c)
		}
		if settler != nil {
			settler.Settle(lv)
		}
		snap := measureLevels(lv, w0+t, scale, s.Alpha)
		snap.Balls = t
		if s.Checkpoints > 0 {
			res.Checkpoints = append(res.Checkpoints, snap.Checkpoint())
			if be, ok := st.(process.BatchEnds); ok {
				if ends, g := be.BatchEnds(0); ends > 0 {
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
		if ends, g := be.BatchEnds(0); ends > 0 {
			res.MaxGap = max(res.MaxGap, (g-float64(w0)/float64(s.Bins))*scale) // batch ends count thrown balls
		}
	}
	if pr, ok := st.(process.Prober); ok {
		total, most := pr.Probes()
		res.Add(result.ProbesOf(total, most, s.Balls))
	}
	return res
}

// measureLevels summarises the histogram in O(levels).
func measureLevels(lv *kernels.Levels, balls uint64, scale, alpha float64) result.Snapshot {
	levels := make([]result.Level, 0, lv.Len())
	for i := range lv.Len() {
		if c := lv.Count(i); c > 0 {
			levels = append(levels, result.Level{Load: float64(lv.Min()+uint64(i)) * scale, Count: c})
		}
	}
	s := result.Summary(levels, float64(balls)/float64(lv.Bins())*scale, alpha)
	s.Balls = balls
	s.Histogram = levels
	return s
}
