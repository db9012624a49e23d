package core

import (
	"math"

	"github.com/balloc/balloc/kernels"
)

// The histogram engine: the state is the number of bins at each load (a
// kernels.Levels), not the bins. For a symmetric process — the next bin
// depends on loads only — the counts are a Markov chain of their own, and
// simulating it is exact in distribution for every statistic balloc reports.
// Memory is O(levels), so n may be 10^12.
//
// How each process advances (see histbatch.go and histthrow.go):
//   - one-choice: each segment of balls at once — a multinomial over levels
//     by their counts, then an exact occupancy throw into each level's bins;
//   - d-choice and (1+β): exact level batches of about 4·√n balls (a
//     multinomial over the loads' ranges; the few balls within reach of a
//     moving boundary one by one, in time order), per ball when n is small;
//   - b-batch: each batch at once — a multinomial over the frozen levels by
//     the two-choice level law, then an occupancy throw per level;
//   - two-thinning, g-adv-comp, g-myopic-comp, sigma-noisy-load,
//     rho-noisy-comp: ball by ball on ranks (kernels/levelsteps.go).

// maxHistogramBins keeps counts exact in the float64 arithmetic of the
// binomial sampler.
const maxHistogramBins = 1 << 50

// histogramSupports reports whether the histogram engine runs s, and why not.
func histogramSupports(s *Spec) (bool, string) {
	if !s.Process.Symmetric {
		return false, s.Process.Name + " is not symmetric (which bin gets a ball depends on more than loads)"
	}
	if !s.Params.Weights.Unit() {
		return false, "random weights make loads real-valued; the histogram engine counts bins per integer load"
	}
	if s.KeepLoads {
		return false, "--loads needs every bin's load; the histogram engine keeps counts per load"
	}
	return true, ""
}

// histogramMemory estimates the bytes of one histogram trial: the levels,
// and the Poisson window of the largest occupancy throw.
func histogramMemory(s *Spec) uint64 {
	perBin := float64(s.Balls) / float64(s.Bins)
	return 1<<20 + uint64(8*4*(24*math.Sqrt(perBin)+200))
}

func runHistogram(s *Spec, trial uint64, progress func(uint64)) *Result {
	res := &Result{}
	lv := kernels.NewLevels(s.Bins)
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	noise := kernels.TrialStream(s.Seed, trial, kernels.LaneNoise)
	scale := s.Params.Weights.Scale()
	kind, d := s.effective()
	var coin kernels.Bernoulli
	beta := 1.0
	if kind == KindOnePlusBeta {
		beta = s.Params.Beta
		var err error
		if coin, err = kernels.NewBernoulli(beta); err != nil {
			panic(err)
		}
	}
	var thin thinning
	if kind == KindTwoThinning {
		thin = newThinning(s.Bins, s.Params.Threshold)
	}
	g := uint64(math.Floor(s.Params.G))
	rule := s.gRule()
	var bb *histBatch
	if kind == KindBBatch {
		bb = newHistBatch(s.Params.Batch)
	}
	t := uint64(0)
	if s.Checkpoints > 0 {
		res.Checkpoints = make([]Checkpoint, 0, s.Checkpoints) // as TrialFootprint counts them: no doubling
	}
	for _, target := range checkpointsOf(s.Balls, s.Checkpoints) {
		for t < target {
			c := min(target-t, unitChunk)
			switch kind {
			case KindOneChoice:
				c = target - t // the whole stretch in one throw, whatever its length
				throwLevels(lv, c, &rng)
			case KindDChoice:
				c = advanceDecomposed(lv, &rng, c, d, 1, nil)
			case KindOnePlusBeta:
				c = advanceDecomposed(lv, &rng, c, 2, beta, &coin)
			case KindTwoThinning:
				limit, last := thin.at(t)
				c = min(c, last-t+1)
				kernels.LevelsTwoThinning(lv, &rng, c, limit)
			case KindGAdvComp, KindGMyopicComp:
				kernels.LevelsGComp(lv, &rng, &noise, c, g, rule)
			case KindSigmaNoisyLoad:
				kernels.LevelsSigmaNoisyLoad(lv, &rng, &noise, c, s.Params.Sigma)
			case KindRhoNoisyComp:
				kernels.LevelsRhoNoisyComp(lv, &rng, &noise, c, s.rhoTable)
			case KindBBatch:
				c = bb.advance(lv, &rng, c, t)
			default:
				panic("core: no histogram loop for " + s.Process.Name)
			}
			t += c
			progress(c)
		}
		if bb != nil {
			bb.settle(lv)
		}
		snap := measureLevels(lv, t, scale, s.Alpha)
		if s.Checkpoints > 0 {
			res.Checkpoints = append(res.Checkpoints, snap.checkpoint())
		}
		if t == s.Balls {
			res.fill(snap, s.Alpha)
		}
	}
	if bb != nil && bb.ends > 0 {
		res.MaxGap = max(res.MaxGap, bb.bestGap*scale)
	}
	return res
}

// measureLevels summarises the histogram in O(levels).
func measureLevels(lv *kernels.Levels, balls uint64, scale, alpha float64) Snapshot {
	levels := make([]Level, 0, lv.Len())
	for i := range lv.Len() {
		if c := lv.Count(i); c > 0 {
			levels = append(levels, Level{Load: float64(lv.Min()+uint64(i)) * scale, Count: c})
		}
	}
	s := levelSummary(levels, float64(balls)/float64(lv.Bins())*scale, alpha)
	s.Balls = balls
	s.Histogram = levels
	return s
}

