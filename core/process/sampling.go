package process

import (
	"fmt"

	"github.com/balloc/balloc/kernels"
)

// Sampling and tie options of the two-sample family: d-choice, two-choice
// and one-plus-beta (issue 17 item 6). always-go-left has its own tie rule
// (the leftmost group, Vöcking 2003) and quantile never compares two loads,
// so neither takes --ties.
//
// --ties random|first|index. random, the default, breaks ties between the
// least loaded samples uniformly at random; the default loops keep the
// first least loaded sample drawn, which is the same in law because the
// samples are exchangeable (kernels/dchoice.go). first names that rule and
// runs the same loops, so its results are random's bit for bit. index gives
// the ball to the least loaded sample of lowest bin index: a fixed order of
// the bins, which is what the authors' code does (Dim131/Batched-22,
// src/batched_spaa_22.cc: d_choice and one_plus_beta return the largest
// sampled position of the load vector sorted heaviest first, so among equal
// loads a fixed position wins; their two_choice_with_random_tie_breaking
// keeps the first sample). Los and Sauerwald, "Balanced allocations in
// batches: simplified and generalized", SPAA 2022, Fig. 8.4, compare the
// two in the b-Batch setting at b = 25n, where index ties raise the gap:
// every ball of a batch sees the same frozen loads, and a fixed order sends
// them to the same few bins of the lightest level. Without batches the law
// of the sorted load vector is the same under either rule (the bins of one
// load are interchangeable once it is the least), but the labelled vector's
// is not: index is run on the direct engine only.

// Sampling is the options a process of the family holds.
type Sampling struct {
	Ties string // random, first or index
}

// params are the options' parameters, appended to the process's own.
func (o *Sampling) params() []*Param {
	return []*Param{
		Choice("ties", "d-choice, two-choice, one-plus-beta: ties between the least loaded samples: random (uniform; the default), "+
			"first (the first sample drawn: the same law, the same loop), index (the lowest bin index, the authors' fixed order; direct engine only)",
			&o.Ties, "random", "first", "index").Def("random").Listed().ShownWhen(func() bool { return o.Ties != "random" }),
	}
}

// on reports whether the options need the loops of kernels/sampling.go.
func (o *Sampling) on() bool { return o.Ties == "index" }

// check refuses the options where the process runs loops they do not
// reach: real loads of random weights, and vector balls.
func (o *Sampling) check(su *Setup, dims int) error {
	if !o.on() {
		return nil
	}
	if !su.Weights.Unit() {
		return fmt.Errorf("%s: not with random --weights (the weighted loop samples uniformly, ties to the first)", o.culprit())
	}
	if dims > 1 {
		return fmt.Errorf("%s: not with --dims %d (the vector engine samples uniformly, ties to the first)", o.culprit(), dims)
	}
	return nil
}

// culprit names the option flags in force, for errors.
func (o *Sampling) culprit() string {
	return "--ties " + o.Ties
}

// histogramWhy: ties by bin index tell bins apart.
func (o *Sampling) histogramWhy() string {
	if o.Ties == "index" {
		return "--ties index runs on the direct engine: ties go by bin index, so bins are distinguishable"
	}
	return ""
}

// draws is a trial's kernels.Draws for balls of d samples.
func (o *Sampling) draws(d int) *kernels.Draws {
	return kernels.NewDraws(d, o.Ties == "index", false, false, nil)
}

type drawsLoop[L kernels.Load] struct {
	r    *kernels.PCG32
	o    *kernels.Draws
	coin *kernels.Bernoulli // one-plus-beta; nil for d-choice
}

func (l drawsLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	if l.coin == nil {
		return c, kernels.DChoiceDraws(loads, l.r, c, l.o, maxLoad)
	}
	return c, kernels.OnePlusBetaDraws(loads, l.r, c, l.coin, l.o, maxLoad)
}

type drawsBatched[L kernels.Load] struct {
	drawsLoop[L]
	batch *kernels.Batch[L]
}

func (l *drawsBatched[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	if l.coin == nil {
		return c, kernels.BatchedDChoiceDraws(loads, l.r, c, l.o, l.batch, maxLoad)
	}
	return c, kernels.BatchedOnePlusBetaDraws(loads, l.r, c, l.coin, l.o, l.batch, maxLoad)
}

func (l *drawsBatched[L]) BatchEnds(n int) (uint64, float64) { return l.batch.BatchEnds(n) }

// drawsDirect is the direct engine's stepper with options o: d-choice of d
// samples (coin nil) or (1+β) with a copy of coin, in batches of b > 1.
func drawsDirect[L kernels.Load](o *Sampling, d int, coin *kernels.Bernoulli, b uint64, tr *Trial) Stepper[L] {
	if coin != nil {
		c := *coin
		coin, d = &c, 2
	}
	loop := drawsLoop[L]{tr.Choices, o.draws(d), coin}
	if b > 1 {
		return &drawsBatched[L]{loop, kernels.NewBatch[L](int(tr.Bins), b, false)}
	}
	return loop
}

// The family's methods that the options add to.

func (p *DChoice) HistogramWhy() string     { return p.Opt.histogramWhy() }
func (p *OnePlusBeta) HistogramWhy() string { return p.Opt.histogramWhy() }
