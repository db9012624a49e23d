package engine

import (
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/kernels"
)

// supermarketRing is the supermarket run of a Ringed process
// (bounded-hashing, core/process/hashing.go): its own event loop on the
// trial's ring (kernels.HashRingSupermarket), the ring drawn from the
// trial's structure stream as the static run draws it. It returns the
// walks' probes, which runSupermarket reports per arrival.
func supermarketRing(s *core.Spec, trial uint64, rng *kernels.PCG32, t *kernels.Tally, p process.Ringed) (*kernels.Probes, func(uint64), func() result.Snapshot, func() []float64) {
	num, den, vnodes := p.Ring()
	st := kernels.TrialStream(s.Seed, trial, kernels.LaneStructure)
	g := kernels.NewRing(&st, uint32(s.Bins), uint32(vnodes))
	arrive, err := kernels.NewBernoulli(s.Dynamic.ArrivalRate / (1 + s.Dynamic.ArrivalRate))
	if err != nil {
		panic("core: " + err.Error()) // checkDynamic checked λ
	}
	loads := make([]uint32, s.Bins)
	startLoads(s, trial, loads, t)
	pr := &kernels.Probes{}
	run := func(c uint64) { kernels.HashRingSupermarket(loads, g, rng, c, &arrive, num, den, t, pr) }
	measure := func() result.Snapshot { return result.MeasureUnit(loads, t.Total, 1, s.Alpha, uint32(t.Top())) }
	return pr, run, measure, func() []float64 { return keptLoads(loads) }
}
