package engine

import (
	"math"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/kernels"
)

// Leaky bins (core/process/leaky.go) on the direct engine: R rounds of a
// batch placed by Greedy[d] on the round-start loads (kernels.LeakyPlace on
// a copy of the loads) and a release (kernels.RBBRelease: every non-empty
// bin deletes one ball). The trial starts from --initial's --balls balls;
// after each round past the burn-in (the first ⌊R/2⌋ rounds) the engine
// records the maximum load, the empty bins and the balls present
// (result.LeakyTally), and at the rounds ⌊k·R/K⌋ of --checkpoints K a
// snapshot of the loads.

func runLeaky(s *core.Spec, trial uint64, progress func(uint64), lp process.Leaking) *result.Result {
	res := &result.Result{}
	if s.Balls+s.Proc.(rbbProcess).Steps()*s.Bins <= math.MaxUint32 {
		leakyDirect[uint32](s, trial, progress, lp, res)
	} else {
		leakyDirect[uint64](s, trial, progress, lp, res)
	}
	return res
}

func leakyDirect[L kernels.Load](s *core.Spec, trial uint64, progress func(uint64), lp process.Leaking, res *result.Result) {
	n := s.Bins
	lambda, d := lp.Leak()
	rounds := s.Proc.(rbbProcess).Steps()
	burn := rounds / 2
	loads, frozen := make([]L, n), make([]L, n)
	maxLoad := process.FillInitial(&s.Initial, loads)
	present := s.Balls
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	points := checkpointsOf(rounds, s.Checkpoints)
	if s.Checkpoints > 0 {
		res.Checkpoints = make([]result.Checkpoint, 0, s.Checkpoints)
	}
	var tally result.LeakyTally
	next, done, thrown := 0, uint64(0), uint64(0)
	for r := uint64(1); r <= rounds; r++ {
		k := rng.Binomial(n, lambda)
		thrown += k
		copy(frozen, loads)
		maxLoad = kernels.LeakyPlace(loads, frozen, &rng, k, d, maxLoad)
		leaked, top := kernels.RBBRelease(loads, maxLoad)
		maxLoad = top
		present = present + k - leaked
		if r > burn {
			tally.Add(uint64(maxLoad), n-busy(loads, maxLoad), present, k, leaked)
		}
		done = reportRounds(progress, done, max(s.Balls, 1), r, rounds)
		for next < len(points) && points[next] == r {
			next++
			snap := result.MeasureUnit(loads, present, 1, s.Alpha, maxLoad)
			if s.Checkpoints > 0 {
				cp := snap.Checkpoint()
				cp.Round = r
				res.Checkpoints = append(res.Checkpoints, cp)
			}
			if r == rounds {
				res.Fill(snap, s.Alpha)
			}
		}
	}
	res.Add(tally.Leaky(n, rounds, burn, present, thrown))
	if s.KeepLoads {
		res.Loads = keptLoads(loads)
	}
}

// busy counts the non-empty bins (a pass: the release's count is of the
// bins non-empty before it).
func busy[L kernels.Load](loads []L, maxLoad L) uint64 {
	if maxLoad == 0 {
		return 0
	}
	busy := uint64(0)
	for _, v := range loads {
		busy += uint64(b2u(v != 0))
	}
	return busy
}
