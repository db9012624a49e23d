package process

import (
	"fmt"

	"github.com/balloc/balloc/kernels"
)

// Balls that leave (issue 18): the supermarket model (--arrival-rate) and
// deletions in the heavily loaded case (--delete-prob) run the processes
// that place by a kernels.Placement — the least loaded of D uniform samples
// with probability β, else one uniform sample: one-choice, d-choice and
// two-choice (JSQ(d) in the queueing literature), one-plus-beta. Their next
// bin depends on the sampled loads alone, so balls may leave between two
// placements without the process noticing, and both engines run them
// exactly (kernels/dynamic.go, core/engine/dynamic.go).
//
// A process whose loop keeps state derived from the loads (quantile's
// counts per load, batches' frozen loads, tau-delay's history) or reads the
// ball index (two-thinning's t/n) would need its own dynamic reading and
// has none yet: Placer is the capability, and its absence is one line.

// Placer is a process the dynamic models run: its placement, or why its
// parameters keep it out ("" when they do not).
type Placer interface {
	Placement() (kernels.Placement, string)
}

// Leaver is a direct stepper whose state follows the loads (quantile's
// counts per load): the deletions model tells it of every ball it removes,
// from a bin whose load was v.
type Leaver[L kernels.Load] interface {
	Left(v L)
}

func (*OneChoice) Placement() (kernels.Placement, string) {
	return kernels.Placement{D: 1, Beta: 1}, ""
}

func (p *DChoice) Placement() (kernels.Placement, string) {
	switch {
	case p.Dims > 1:
		return kernels.Placement{}, fmt.Sprintf("balls of --dims %d do not leave (scalar balls only)", p.Dims)
	case p.batched():
		return kernels.Placement{}, "--batch: batches read frozen loads, which departures would change under them"
	}
	return kernels.Placement{D: p.D, Beta: 1}, ""
}

func (p *OnePlusBeta) Placement() (kernels.Placement, string) {
	if p.batched() {
		return kernels.Placement{}, "--batch: batches read frozen loads, which departures would change under them"
	}
	return kernels.Placement{D: 2, Beta: p.Beta}, ""
}
