package engine

import (
	"math"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/kernels"
)

// Stale loads beside the periodic board: the continuous update model
// (--update-delay) and individual updates (--update-individual) on the
// direct engine (kernels/stale.go has the loops and their exactness). The
// event stream is the fresh run's (LaneChoices); the events' time stamps
// and the refreshes draw from LaneNoise, so the other runs are unchanged.
// The time averages stay kernels.Tally's, each state weighed by the
// expected gap after it: still unbiased here, as the gap after event j is
// independent of the state after it (which depends on the gaps up to j
// only, through the delay's window).

// supermarketStale is supermarketDirect deciding on the delayed loads or
// on the individually refreshed board, by the width of the loads.
func supermarketStale(s *core.Spec, trial uint64, rng *kernels.PCG32, sm *kernels.Supermarket, t *kernels.Tally) (func(uint64), func() result.Snapshot, func() []float64) {
	if narrowLoads(s) {
		return supermarketStaleOf[uint32](s, trial, rng, sm, t)
	}
	return supermarketStaleOf[uint64](s, trial, rng, sm, t)
}

func supermarketStaleOf[L kernels.Load](s *core.Spec, trial uint64, rng *kernels.PCG32, sm *kernels.Supermarket, t *kernels.Tally) (func(uint64), func() result.Snapshot, func() []float64) {
	d := s.Dynamic
	loads := make([]L, s.Bins)
	startLoads(s, trial, loads, t) // before time 0 the loads were the start's
	noise := kernels.TrialStream(s.Seed, trial, kernels.LaneNoise)
	var run func(uint64)
	if d.UpdateDelay != 0 {
		rec := kernels.NewDelayRecord[L](int(s.Bins), d.UpdateDelay, d.EventRate(s.Bins), noise, delayHint(s))
		copy(rec.Board, loads)
		run = func(c uint64) { kernels.SupermarketDelay(loads, rng, c, sm, t, rec) }
	} else {
		f, err := kernels.NewRefresher(d.ArrivalRate, d.UpdateIndividual, noise)
		if err != nil {
			panic("core: " + err.Error())
		}
		board := make([]L, s.Bins)
		copy(board, loads)
		run = func(c uint64) { kernels.SupermarketIndividual(loads, board, rng, c, sm, t, f) }
	}
	measure := func() result.Snapshot { return result.MeasureUnit(loads, t.Total, 1, s.Alpha, L(t.Top())) }
	return run, measure, func() []float64 { return keptLoads(loads) }
}

// delayHint is the changes the delay's window is expected to hold: an
// event changes a load with probability at most 2λ/(1+λ) (an arrival, or a
// departure from a busy bin, which is at most as frequent at rest), over
// the n(1+λ)T events of a window, and never more than the run's events.
func delayHint(s *core.Spec) uint64 {
	d := s.Dynamic
	w := 2 * d.ArrivalRate * float64(s.Bins) * d.UpdateDelay
	return uint64(min(w, float64(d.Events)))
}

// staleMemory adds the stale models' state to a direct supermarket
// trial's footprint: the seen loads, and the delay's window at 12 bytes a
// change with the ring's doubling.
func staleMemory(s *core.Spec) uint64 {
	d := s.Dynamic
	if !d.Supermarket() || (d.UpdateDelay == 0 && d.UpdateIndividual == 0) {
		return 0
	}
	lb := uint64(4)
	if d.Events > math.MaxUint32 {
		lb = 8
	}
	m := s.Bins * lb
	if d.UpdateDelay != 0 {
		m += 2 * 12 * delayHint(s)
	}
	return m
}
