package process

import (
	"fmt"
	"strings"

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

// --distinct draws a ball's samples without replacement: a sample that
// repeats one of the ball's is drawn again, so the k-th (k = 0, 1, …) is
// uniform over the bins not yet drawn, and d ≤ n. The samples stay exchangeable, so first and random ties are the
// same law here too. On the histogram engine the d distinct samples are d
// distinct uniform ranks (kernels.LevelsDChoiceDistinct), exact on level
// counts, ball by ball; in batches --distinct runs on the direct engine.

// Sampling is the options a process of the family holds.
type Sampling struct {
	Ties     string // random, first or index
	Distinct bool   // samples without replacement
}

// params are the options' parameters, appended to the process's own.
func (o *Sampling) params() []*Param {
	return []*Param{
		Choice("ties", "d-choice, two-choice, one-plus-beta: ties between the least loaded samples: random (uniform; the default), "+
			"first (the first sample drawn: the same law, the same loop), index (the lowest bin index, the authors' fixed order; direct engine only)",
			&o.Ties, "random", "first", "index").Def("random").Listed().ShownWhen(func() bool { return o.Ties != "random" }),
		Bool("distinct", "d-choice, two-choice, one-plus-beta: a ball's samples without replacement (d ≤ bins)", &o.Distinct).
			Def("false").Listed().ShownWhen(func() bool { return o.Distinct }),
	}
}

// on reports whether the options need the loops of kernels/sampling.go.
func (o *Sampling) on() bool { return o.Ties == "index" || o.Distinct }

// check refuses the options where the process runs loops they do not
// reach (real loads of random weights, vector balls) and more distinct
// samples than bins; d is the samples a ball draws.
func (o *Sampling) check(su *Setup, d, dims int) error {
	if !o.on() {
		return nil
	}
	if o.Distinct && uint64(d) > su.Bins {
		return fmt.Errorf("--distinct: %d samples without replacement need --bins ≥ %d, not %d", d, d, su.Bins)
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
	var parts []string
	if o.Ties == "index" {
		parts = append(parts, "--ties index")
	}
	if o.Distinct {
		parts = append(parts, "--distinct")
	}
	return strings.Join(parts, " ")
}

// histogramWhy: ties by bin index tell bins apart; the batched level
// sampler (hist.NewBatched) draws with replacement.
func (o *Sampling) histogramWhy(batched bool) string {
	switch {
	case o.Ties == "index":
		return "--ties index runs on the direct engine: ties go by bin index, so bins are distinguishable"
	case o.Distinct && batched:
		return "--distinct in batches (--batch) runs on the direct engine"
	}
	return ""
}

// draws is a trial's kernels.Draws for balls of d samples.
func (o *Sampling) draws(d int) *kernels.Draws {
	return kernels.NewDraws(d, o.Ties == "index", false, o.Distinct, nil)
}

// drawsLevels runs --distinct on the histogram engine, ball by ball.
type drawsLevels struct {
	r    *kernels.PCG32
	d    int
	coin *kernels.Bernoulli // one-plus-beta; nil for d-choice
	buf  []uint64
}

func (l *drawsLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	c := min(want, Chunk)
	if l.coin == nil {
		kernels.LevelsDChoiceDistinct(lv, l.r, c, l.buf)
	} else {
		kernels.LevelsOnePlusBetaDistinct(lv, l.r, c, l.coin)
	}
	return c
}

// levels is the histogram engine's stepper with the options (which
// histogramWhy allows: --distinct, unbatched).
func (o *Sampling) levels(d int, coin *kernels.Bernoulli, tr *Trial) LevelStepper {
	if coin != nil {
		c := *coin
		coin, d = &c, 2
	}
	return &drawsLevels{tr.Choices, d, coin, make([]uint64, d)}
}

// histogramSeconds: ball by ball on ranks, about 8 ns a ball and 4 ns a
// further sample at n = 10^4 (BenchmarkSampling's histogram rows).
func (o *Sampling) histogramSeconds(m uint64, d int) float64 {
	return float64(m) * (8 + 4*float64(d-1)) * 1e-9
}

// directFactor: the written-out loops of d = 2 run at two-choice's speed,
// the general loop at about twice d-choice's per sample.
func (o *Sampling) directFactor(d int) float64 {
	if d == 2 {
		return 1.1
	}
	return float64(d)
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

func (p *DChoice) HistogramWhy() string     { return p.Opt.histogramWhy(p.batched()) }
func (p *OnePlusBeta) HistogramWhy() string { return p.Opt.histogramWhy(p.batched()) }
