package engine

import (
	"math"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/kernels"
)

// A supermarket trial's start (--initial; core/supermarket_initial.go says
// what each form means): the direct engine fills the loads and counts
// their levels into the tally, the histogram engine sets the tally's level
// counts. The fixed-point start draws from a stream of its own, so the
// events draw exactly what they draw from any other start: a seeded pure
// function of (spec, seed, trial), per bin on the direct engine
// (kernels.AtLeastLaw.Load, bin by bin) and by sequential binomials on the
// histogram engine (AtLeastLaw.Levels) — the same law, another stream use.

// laneInitial is the fixed-point start's stream.
const laneInitial kernels.Lane = 1<<15 + 1

// startLaw is the fixed-point start's law (core set it, and it is a tail law).
func startLaw(s *core.Spec) *kernels.AtLeastLaw {
	l, err := kernels.NewAtLeastLaw(s.Initial.AtLeast)
	if err != nil {
		panic("core: " + err.Error())
	}
	return l
}

// startLevels is the level counts S (S[i] = bins of load ≥ i, S[0] = n) of
// trial's start on the histogram engine; nil for the empty start.
func startLevels(s *core.Spec, trial uint64) []uint64 {
	in := &s.Initial
	switch {
	case in.IsZero():
		return nil
	case in.Kind == process.InitialFixedPoint:
		r := kernels.TrialStream(s.Seed, trial, laneInitial)
		return startLaw(s).Levels(&r, s.Bins)
	}
	lo, counts := in.Levels()
	S := make([]uint64, lo+uint64(len(counts))+1)
	for i, c := range counts {
		S[lo+uint64(i)] = c
	}
	for k := len(S) - 2; k >= 0; k-- {
		S[k] += S[k+1]
	}
	return S
}

// startLoads fills the direct engine's loads (all zero) with trial's start
// and sets the tally (fresh) to it; nothing for the empty start.
func startLoads[L kernels.Load](s *core.Spec, trial uint64, loads []L, t *kernels.Tally) {
	in := &s.Initial
	switch {
	case in.IsZero():
		return
	case in.Kind == process.InitialFixedPoint:
		r := kernels.TrialStream(s.Seed, trial, laneInitial)
		kernels.FillAtLeast(startLaw(s), &r, loads)
	default:
		process.FillInitial(in, loads)
	}
	t.StartLevels(kernels.AtLeastCounts(loads))
}

// narrowLoads reports whether a direct supermarket trial's loads fit in
// uint32: no bin passes its start's largest load plus the events.
func narrowLoads(s *core.Spec) bool {
	top := s.Initial.Top()
	if s.Initial.Kind == process.InitialFixedPoint {
		top = uint64(len(s.Initial.AtLeast)) // the draw's largest load
	}
	return s.Dynamic.Events <= math.MaxUint32-top
}
