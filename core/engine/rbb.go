package engine

import (
	"math"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/kernels"
)

// Repeated balls-into-bins (core/process/rbb.go) on both engines: R rounds
// of a release (every non-empty bin gives up one ball) and a placement of
// the released balls by the process's placement stepper. The trial's m =
// --balls balls start from --initial; after each round the engine records
// the maximum load and the empty bins (result.RoundsTally), and at the
// rounds ⌊k·R/K⌋ of --checkpoints K a snapshot of the loads.

// rbbProcess is the process's view the engine needs.
type rbbProcess interface{ Steps() uint64 }

func runRounds(s *core.Spec, trial uint64, progress func(uint64)) *result.Result {
	res := &result.Result{}
	switch {
	case s.ResolvedEngine() == core.EngineHistogram:
		rbbLevels(s, trial, progress, res)
	case s.Balls <= math.MaxUint32:
		rbbDirect[uint32](s, trial, progress, res)
	default:
		rbbDirect[uint64](s, trial, progress, res)
	}
	return res
}

// rbbDirect runs the rounds on the load array. The empty bins after round
// r are the bins the release of round r+1 finds empty, so each round is
// recorded when the next release has counted them (the last by one count).
func rbbDirect[L kernels.Load](s *core.Spec, trial uint64, progress func(uint64), res *result.Result) {
	n, m := s.Bins, s.Balls
	rounds := s.Proc.(rbbProcess).Steps()
	loads := make([]L, n)
	maxLoad := process.FillInitial(&s.Initial, loads)
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	noise := kernels.TrialStream(s.Seed, trial, kernels.LaneNoise)
	st := stepper[L](s.Proc, trialOf(s, trial, &rng, &noise))
	points := checkpointsOf(rounds, s.Checkpoints)
	if s.Checkpoints > 0 {
		res.Checkpoints = make([]result.Checkpoint, 0, s.Checkpoints)
	}
	var tally result.RoundsTally
	var lastMax L
	var lastReleased uint64
	next, done := 0, uint64(0)
	for r := uint64(1); r <= rounds; r++ {
		k, top := kernels.RBBRelease(loads, maxLoad)
		if r > 1 {
			tally.Add(uint64(lastMax), n-k, lastReleased)
		}
		maxLoad = top
		for placed := uint64(0); placed < k; {
			c, mx := st.Step(loads, r, k-placed, maxLoad)
			placed, maxLoad = placed+c, mx
		}
		lastMax, lastReleased = maxLoad, k
		done = reportRounds(progress, done, m, r, rounds)
		for next < len(points) && points[next] == r {
			next++
			snap := result.MeasureUnit(loads, m, 1, s.Alpha, maxLoad)
			if s.Checkpoints > 0 {
				cp := snap.Checkpoint()
				cp.Round = r
				res.Checkpoints = append(res.Checkpoints, cp)
				tally.Point(r, uint64(maxLoad), emptyOf(snap.Histogram), n)
			}
			if r == rounds {
				res.Fill(snap, s.Alpha)
			}
		}
	}
	empty := uint64(0)
	for _, v := range loads {
		empty += uint64(b2u(v == 0))
	}
	tally.Add(uint64(lastMax), empty, lastReleased)
	res.Add(tally.Rounds(n, empty))
	if s.KeepLoads {
		res.Loads = make([]float64, n)
		for i, v := range loads {
			res.Loads[i] = float64(v)
		}
	}
}

// reportRounds tells progress, which counts a trial as its m balls, the
// share m·r/R of the rounds done, in steps of at least m/1024 (and the
// rest at the last round); it returns what has been reported.
func reportRounds(progress func(uint64), done, m, r, rounds uint64) uint64 {
	at := m
	if r < rounds {
		at = uint64(float64(m) * float64(r) / float64(rounds))
	}
	if at > done && (at-done >= m/1024 || r == rounds) {
		progress(at - done)
		return at
	}
	return done
}

// emptyOf is the bins at load 0 of a snapshot's histogram.
func emptyOf(h []result.Level) uint64 {
	if len(h) > 0 && h[0].Load == 0 {
		return h[0].Count
	}
	return 0
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// rbbLevels runs the rounds on level counts: Levels.Release, then the
// placement's level stepper (one occupancy throw for One-Choice).
func rbbLevels(s *core.Spec, trial uint64, progress func(uint64), res *result.Result) {
	n, m := s.Bins, s.Balls
	rounds := s.Proc.(rbbProcess).Steps()
	lv := kernels.NewLevels(n)
	lv.SetCounts(s.Initial.Levels())
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	noise := kernels.TrialStream(s.Seed, trial, kernels.LaneNoise)
	st := s.Proc.(process.Histogram).Levels(trialOf(s, trial, &rng, &noise))
	points := checkpointsOf(rounds, s.Checkpoints)
	if s.Checkpoints > 0 {
		res.Checkpoints = make([]result.Checkpoint, 0, s.Checkpoints)
	}
	var tally result.RoundsTally
	next, done := 0, uint64(0)
	empty := func() uint64 {
		if lv.Min() == 0 {
			return lv.Count(0)
		}
		return 0
	}
	for r := uint64(1); r <= rounds; r++ {
		k := lv.Release()
		for placed := uint64(0); placed < k; {
			placed += st.Step(lv, r, k-placed)
		}
		tally.Add(lv.Max(), empty(), k)
		done = reportRounds(progress, done, m, r, rounds)
		for next < len(points) && points[next] == r {
			next++
			snap := measureLevels(lv, m, 1, s.Alpha)
			if s.Checkpoints > 0 {
				cp := snap.Checkpoint()
				cp.Round = r
				res.Checkpoints = append(res.Checkpoints, cp)
				tally.Point(r, lv.Max(), empty(), n)
			}
			if r == rounds {
				res.Fill(snap, s.Alpha)
			}
		}
	}
	res.Add(tally.Rounds(n, empty()))
}
