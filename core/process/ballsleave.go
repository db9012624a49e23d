package process

import "github.com/balloc/balloc/kernels"

// Balls that leave: the supermarket model (--arrival-rate) and
// deletions in the heavily loaded case (--delete-prob) run the processes
// that place by a kernels.Placement — the least loaded of D uniform samples
// with probability β, else one uniform sample: one-choice, d-choice and
// two-choice (JSQ(d) in the queueing literature), one-plus-beta. Their next
// bin depends on the sampled loads alone, so balls may leave between two
// placements without the process noticing, and both engines run them
// exactly (kernels/dynamic.go, core/engine/dynamic.go).
//
// Beyond these (each in its process's file; kernels/placer.go has the
// loops): quantile and mixed-quantile
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

// Replicated is a process whose jobs occupy several queues at once
// (Redundancy-d: Copies() copies a job, the first served cancels the
// others). It runs the supermarket model only, on the direct engine, by its
// own event loop (kernels/redundancy.go, from core/engine/dynamic.go); it
// has no Placement, and no static run.
type Replicated interface {
	Copies() int
}

// Ringed is a process that dispatches on a hash ring (bounded-hashing). The
// supermarket model runs it by its own event loop on the direct engine
// (kernels.HashRingSupermarket, from core/engine/dynamic.go): jobs leave
// from their bins and move no other job. Ring gives the capacity's c/n =
// num/den and the ring points per bin. No Placement: a walk reads the bins
// in ring order, which level counts do not hold.
type Ringed interface {
	Ring() (num, den, vnodes uint64)
}

// Leaking is a round process whose balls arrive in batches and leave one a
// non-empty bin a round (leaky bins): the batch's rate λ and the samples d
// of its Greedy[d]. The direct engine runs its rounds (core/engine/leaky.go).
type Leaking interface {
	Leak() (lambda float64, d int)
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

// settingWhy: the batch and delay settings have no dynamic reading — a
// batch's frozen loads and a delay's record of past loads would need the
// departures.
func settingWhy(batch uint64, d *Delayed) string {
	switch {
	case batch > 1:
		return "--batch: batches read frozen loads, which departures would change under them"
	case d.on():
		return "--tau: the delayed reads count balls placed, not events; for stale loads when balls leave use --update-period, --update-delay or --update-individual"
	}
	return ""
}

// staticWhy is a process's reason to stay off the histogram engine where it
// has one: the options that keep it there (batches' frozen loads, delays'
// record of past loads) are the ones with no dynamic reading.
func staticWhy(p any) string {
	if h, ok := p.(HistogramWhy); ok {
		return h.HistogramWhy()
	}
	return ""
}

// BallsLeaveNames lists, in catalogue order, the processes balls may leave
// under: those with a placement at their defaults (the supermarket model
// and deletions), and those whose deletions run on the direct engine only.
func BallsLeaveNames() (placers, directDeleters []string) {
	placers = NamesWhere(func(p Process) bool {
		pl, ok := p.(Placer)
		_, ringed := p.(Ringed)
		return ok && placesWhenBallsLeave(pl) || ringed
	})
	directDeleters = NamesWhere(func(p Process) bool {
		pl, ok := p.(Placer)
		_, dd := p.(DirectDeleter)
		return dd && !(ok && placesWhenBallsLeave(pl))
	})
	return placers, directDeleters
}
