package process

import (
	"fmt"

	"github.com/balloc/balloc/kernels"
)

// Balls that leave: the supermarket model (--arrival-rate) and
// deletions in the heavily loaded case (--delete-prob) run the processes
// that place by a kernels.Placement — the least loaded of D uniform samples
// with probability β, else one uniform sample: one-choice, d-choice and
// two-choice (JSQ(d) in the queueing literature), one-plus-beta. Their next
// bin depends on the sampled loads alone, so balls may leave between two
// placements without the process noticing, and both engines run them
// exactly (kernels/dynamic.go, core/engine/dynamic.go).
//
// Beyond these (placer.go, kernels/placer.go): quantile and mixed-quantile
// read the rank of a bin among the loads present (the direct deletions
// tell quantile's counts per load of each removed ball: Leaver); two-
// thinning, k-thinning (thresholds) and adaptive read the average t/n as
// (balls present)/n. A process whose state has no dynamic reading here
// (batches' frozen loads, tau-delay's history, memory's cache on level
// counts, threshold's m/n) is not a Placer or says why: its absence is one
// line.

// Placer is a process the dynamic models run: its placement, or why its
// parameters keep it out ("" when they do not).
type Placer interface {
	Placement() (kernels.Placement, string)
}

// DirectDeleter is a process the deletions model (--delete-prob, --phases)
// runs on the direct engine by its own stepper, though it has no Placement
// for the supermarket's event loops or the level counts: memory, whose
// cache holds bins and reads their current loads. DeletionsWhy says why
// its parameters keep it out ("" when they do not).
type DirectDeleter interface {
	DeletionsWhy() string
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
	case p.delayed():
		return kernels.Placement{}, "--tau: the delayed reads count balls placed, not events; for stale loads when balls leave use --update-period, --update-delay or --update-individual"
	case p.Opt.on():
		return kernels.Placement{}, p.Opt.culprit() + ": the event loops draw uniform samples with replacement and random ties"
	}
	return kernels.Placement{D: p.D, Beta: 1}, ""
}

func (p *OnePlusBeta) Placement() (kernels.Placement, string) {
	switch {
	case p.batched():
		return kernels.Placement{}, "--batch: batches read frozen loads, which departures would change under them"
	case p.delayed():
		return kernels.Placement{}, "--tau: the delayed reads count balls placed, not events; for stale loads when balls leave use --update-period, --update-delay or --update-individual"
	case p.Opt.on():
		return kernels.Placement{}, p.Opt.culprit() + ": the event loops draw uniform samples with replacement and random ties"
	}
	return kernels.Placement{D: 2, Beta: p.Beta}, ""
}
