package engine

import (
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/kernels"
)

// supermarketRedundancy is the supermarket run of a Replicated process
// (Redundancy-d, core/process/redundancy.go): its own event loop on FCFS
// queues of copies (kernels.Redundancy), whose loads are the copies per
// server; the tally counts copies, and runSupermarket turns them into the
// jobs' figures (result.RedundancyOf).
func supermarketRedundancy(s *core.Spec, rng *kernels.PCG32, t *kernels.Tally, d int) (*kernels.Redundancy, func(uint64), func() result.Snapshot, func() []float64) {
	q, err := kernels.NewRedundancy(s.Bins, d, s.Dynamic.ArrivalRate)
	if err != nil {
		panic("core: " + err.Error()) // checkDynamic checked λ, Check d ≤ n
	}
	run := func(c uint64) { q.Run(rng, c, t) }
	measure := func() result.Snapshot { return result.MeasureUnit(q.Loads, t.Total, 1, s.Alpha, uint32(t.Top())) }
	return q, run, measure, func() []float64 { return keptLoads(q.Loads) }
}
