package core

import (
	"fmt"
	"strings"

	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/theory"
)

// --initial in the supermarket model (how long until a bad start recovers,
// and runs that start at rest). Every form of core/process/
// initial.go but rbb's bare ones starts a supermarket trial, on both engines — the placements
// are symmetric, so the histogram engine needs only the start's level
// counts, and a file's bins lose their order there — plus the supermarket's
// own start:
//
//	fixed-point   every bin's load drawn i.i.d. with P(load ≥ i) = π_i, π
//	              the process's fixed point (the one --theory prints).
//
// For one-choice this is the exact stationary law at every n: the n queues
// are independent M/M/1 queues, whose stationary law is the product of
// geometric laws P(load ≥ i) = λ^i, so the run is stationary from t = 0.
// For the other placements π is the mean-field limit's rest point (JSQ(d):
// π_i = λ^((d^i − 1)/(d − 1)), Vvedenskaya, Dobrushin, Karpelevich 1996;
// Mitzenmacher 2001; the others' from their level law, core/theory/
// supermarket.go), and the finite-n stationary law differs from the i.i.d.
// product: its fractions are biased by O(1/n) and correlated across bins,
// so the start is at stationarity up to an O(1/n) bias and fluctuations of
// their own size (O(1/√n)), which relax in the process's relaxation time —
// far from the O(1) distance of an empty start, which at λ = 0.99 takes
// JSQ(2) hundreds of time units to close. --warmup still leaves whatever
// start out of the time averages.
//
// The law is π down to the first level below startTail (the recursion
// π_i = λ·f(π_{i−1}); JSQ(d) and one-choice by their closed form), so a
// run of n bins misses the levels beyond by at most n·startTail bins in
// expectation; thinning's rest point comes from its ODE, down to
// theory.FixedPointTail. Where no rest point exists (thinning's limits
// sliding at an integer) or it is not computed (the stale-load models,
// whose rest point is not fresh information's), fixed-point is refused, as
// it is outside the supermarket model.

// startTail is where the fixed-point start's law stops.
const startTail = 1e-30

// maxStartLoad bounds a supermarket start's largest load: the tally keeps
// every level from 0 to the top (24 bytes a level).
const maxStartLoad = 1 << 20

// resolveDynamicInitial checks a non-empty --initial when balls leave, and
// sets the fixed-point start's law.
func (s *Spec) resolveDynamicInitial() error {
	in := &s.Initial
	d := s.Dynamic
	if !d.Supermarket() {
		return fmt.Errorf("--initial %s: the deletions model (--delete-prob, --phases) starts from empty bins; leave --initial out", in.String())
	}
	if _, ok := s.Proc.(process.Replicated); ok {
		return fmt.Errorf("--initial %s: %s's queues hold copies of jobs, which a vector of loads does not describe; its trials start empty", in.String(), s.Process.Name)
	}
	if _, ok := s.Proc.(process.Ringed); ok && in.Kind == process.InitialFixedPoint {
		return fmt.Errorf("--initial fixed-point: %s has no fixed point computed here (start from zero, uniform:L, spike:L or file:PATH)", s.Process.Name)
	}
	if in.Kind != process.InitialFixedPoint {
		if top := in.Top(); top > maxStartLoad {
			return fmt.Errorf("--initial %s: a bin of load %d; a supermarket start holds at most 2^20 balls a bin (the tally keeps every level from 0 up)", in.String(), top)
		}
		return nil
	}
	for _, c := range d.staleFlags() {
		if c.v != 0 {
			return fmt.Errorf("--initial fixed-point: the fixed point is of fresh loads; %s's rest point is not computed (start from zero, uniform:L, spike:L or file:PATH)", c.flag)
		}
	}
	pi, err := supermarketStartLaw(s)
	if err != nil {
		return fmt.Errorf("--initial fixed-point: %v", err)
	}
	in.AtLeast = pi
	return nil
}

// supermarketStartLaw is the fixed-point start's π_1, π_2, … (see above).
func supermarketStartLaw(s *Spec) ([]float64, error) {
	pl, _ := s.Proc.(process.Placer).Placement() // checkDynamic checked both
	lambda := s.Dynamic.ArrivalRate
	if len(pl.Thetas) > 0 {
		pi, model := thinningTheory(lambda, pl.Thetas, pl.Retry)
		if pi == nil {
			return nil, fmt.Errorf("%s has no rest point here (%s)", s.Process.Name, strings.TrimPrefix(strings.TrimPrefix(model, "none: "), "theory: "))
		}
		return pi, nil
	}
	law := theory.SupermarketLaw{D: pl.D, Beta: pl.Beta}
	if pl.Heavy > 0 {
		law.Delta = float64(pl.Heavy) / float64(s.Bins) // as simulated: the ⌈δn⌉ heaviest
	}
	pi, err := theory.SupermarketFixedPointTo(lambda, law, startTail)
	if err != nil {
		return nil, err
	}
	if last := pi[len(pi)-1]; last >= startTail {
		return nil, fmt.Errorf("the fixed point at λ = %v falls below 10^-30 only beyond 2^20 levels (π_%d = %.3g); start from a smaller λ or another --initial", lambda, len(pi), last)
	}
	switch {
	case pl.Heavy > 0:
	case pl.D == 1 || pl.Beta == 0:
		pi = theory.JSQFixedPoint(lambda, 1, len(pi))
	case pl.Beta == 1:
		pi = theory.JSQFixedPoint(lambda, pl.D, len(pi))
	}
	return pi, nil
}

// SupermarketStart says in words where a supermarket spec's trials start,
// for the run's header line.
func SupermarketStart(s *Spec) string {
	in := &s.Initial
	switch {
	case in.IsZero():
		return "from empty"
	case in.Kind == process.InitialFixedPoint:
		return "from the fixed point (--initial fixed-point: i.i.d. loads, P(load ≥ i) = π_i: one-choice's exact stationary law, else the mean field's, stationary up to an O(1/n) bias and O(1/√n) fluctuations)"
	}
	return "from --initial " + in.String()
}
