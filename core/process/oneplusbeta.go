package process

import (
	"fmt"

	"github.com/balloc/balloc/core/hist"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// (1+β): with probability β a ball goes to the less loaded of two uniform
// bins (Two-Choice), otherwise to one uniform bin (One-Choice) — Peres,
// Talwar and Wieder, "Graphical balanced allocations and the (1+β)-choice
// process", Random Structures & Algorithms 2015. Its gap is Θ(log n / β) at
// every m, which makes it the field's model of a choice that is sometimes
// not taken.
//
// Direct engine: kernels.OnePlusBeta, per ball the coin (Bernoulli.Flip)
// then two PCG32.Bounded(n), the second drawn on one-choice steps too (a
// branch-free loop). β = 0 runs One-Choice's loop and β = 1 Two-Choice's,
// which draw no coin. Histogram engine: exact level batches of the law
// P(s ≤ x) = (1−β)·x/n + β·(x/n)² (hist.Advance), ball by ball on ranks
// (kernels.LevelsOnePlusBeta) when n is small. Fluid limit, below.
// balloc concurrent: ShapeCoin.
//
// Sampling and tie options (--ties, …): sampling.go, which runs the
// options' own loops; the defaults run the loops above.
//
// This file is the worked example of docs/ARCHITECTURE.md.

// OnePlusBeta is the (1+β) process.
type OnePlusBeta struct {
	Beta  float64 // probability of a two-choice step
	Batch uint64  // balls per batch (b-Batch's setting, SPAA'22 §8); 1: none
	coin  kernels.Bernoulli

	Delayed Delayed  // τ-Delay's setting (delayparam.go); τ = 0: none
	Opt     Sampling // --ties, --distinct, --sampling (sampling.go)
}

var onePlusBetaEntry = &Entry{
	Name: "one-plus-beta", Order: 40,
	Summary: "with probability β two-choice, else one-choice",
	Source:  "Peres, Talwar, Wieder 2015",
	New:     func() Process { return &OnePlusBeta{} },
}

func init() { Register(onePlusBetaEntry) }

func (*OnePlusBeta) Entry() *Entry { return onePlusBetaEntry }

func (p *OnePlusBeta) Params() []*Param {
	return append(append([]*Param{BetaParam(&p.Beta, "probability β of a two-choice step, 0 ≤ β ≤ 1"), BatchParam(&p.Batch)},
		p.Delayed.params("one-plus-beta")...), p.Opt.params()...)
}

// BetaParam is --beta, the probability of a two-choice step.
func BetaParam(dst *float64, usage string) *Param {
	return Real("beta", usage, dst, func(b float64) bool { return b >= 0 && b <= 1 }, "a probability in [0, 1]").
		Listed().Need("a probability in [0, 1]")
}

func (p *OnePlusBeta) Check(su *Setup) error {
	if err := p.Opt.setBins(su); err != nil {
		return err
	}
	if err := needBins(p, su); err != nil {
		return err
	}
	c, err := kernels.NewBernoulli(p.Beta)
	if err != nil {
		return err
	}
	p.coin = c
	if err := checkBatch(p.Entry().Name, p.Batch, su, 1); err != nil {
		return err
	}
	if err := p.Delayed.check(p.Entry().Name, su, delayRule{batch: p.Batch}); err != nil {
		return err
	}
	if err := p.Opt.check(su, 2, 1); err != nil {
		return err
	}
	return p.Opt.notWithDelay(&p.Delayed)
}

// delayed reports whether the two-choice steps read loads with a delay.
func (p *OnePlusBeta) delayed() bool { return p.Delayed.on() && p.Beta > 0 }

// HistogramWhy: delays, and the options that tell bins apart, run on the
// direct engine.
func (p *OnePlusBeta) HistogramWhy() string {
	if p.delayed() {
		return p.Delayed.histogramWhy(p.Entry().Name)
	}
	return p.Opt.histogramWhy(p.batched())
}

// Content: a replay file's ages or a --sampling file's weights stand for
// their values in the spec's hash.
func (p *OnePlusBeta) Content() (map[string]string, []string) { return bothContent(&p.Delayed, &p.Opt) }

// batched reports whether balls come in batches whose decisions read
// loads: every ball of a batch compares the loads at the batch's start
// (kernels.BatchedOnePlusBeta; hist.NewBatched on the histogram).
func (p *OnePlusBeta) batched() bool { return p.Batch > 1 && p.Beta > 0 }

// degenerate is the process (1+β) equals at β = 0 or 1, whose loop draws
// the same stream, or nil: one-choice (batches or not), and two-choice or,
// in batches, b-batch.
func (p *OnePlusBeta) degenerate() Histogram {
	switch p.Beta {
	case 0:
		return &OneChoice{}
	case 1:
		return &DChoice{D: 2, Batch: p.Batch}
	}
	return nil
}

type onePlusBetaLoop[L kernels.Load] struct {
	r    *kernels.PCG32
	coin kernels.Bernoulli
}

func (l *onePlusBetaLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.OnePlusBeta(loads, l.r, c, &l.coin, maxLoad)
}

type onePlusBetaBatched[L kernels.Load] struct {
	r     *kernels.PCG32
	coin  kernels.Bernoulli
	batch *kernels.Batch[L]
}

func (l *onePlusBetaBatched[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.BatchedOnePlusBeta(loads, l.r, c, &l.coin, l.batch, maxLoad)
}

func (l *onePlusBetaBatched[L]) BatchEnds(n int) (uint64, float64) { return l.batch.BatchEnds(n) }

// Start freezes the initial loads for the first batch.
func (l *onePlusBetaBatched[L]) Start(loads []L) { l.batch.Start(loads) }

func onePlusBetaDirect[L kernels.Load](p *OnePlusBeta, tr *Trial) Stepper[L] {
	switch {
	case p.Opt.on():
		return drawsDirect[L](&p.Opt, 2, &p.coin, p.Batch, tr)
	case p.Beta == 0:
		return oneChoiceLoop[L]{tr.Choices}
	case p.delayed() && p.Beta == 1:
		return delayedDirect[L](&p.Delayed, 2, nil, tr) // tau-delay
	case p.delayed():
		coin := p.coin
		return delayedDirect[L](&p.Delayed, 2, &coin, tr)
	case p.Beta == 1:
		return dChoiceDirect[L](2, p.Batch, tr)
	case p.batched():
		return &onePlusBetaBatched[L]{tr.Choices, p.coin, kernels.NewBatch[L](int(tr.Bins), p.Batch, false)}
	}
	return &onePlusBetaLoop[L]{tr.Choices, p.coin}
}

func (p *OnePlusBeta) Direct32(tr *Trial) Stepper[uint32] { return onePlusBetaDirect[uint32](p, tr) }
func (p *OnePlusBeta) Direct64(tr *Trial) Stepper[uint64] { return onePlusBetaDirect[uint64](p, tr) }

type onePlusBetaLevels struct {
	r     *kernels.PCG32
	beta  float64
	coin  kernels.Bernoulli
	force uint64
}

func (l *onePlusBetaLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	return hist.Advance(lv, l.r, min(want, Chunk), 2, l.beta, func(run uint64) { kernels.LevelsOnePlusBeta(lv, l.r, run, &l.coin) }, l.force)
}

func (p *OnePlusBeta) Levels(tr *Trial) LevelStepper {
	if p.Opt.on() {
		return p.Opt.levels(2, &p.coin, tr)
	}
	if q := p.degenerate(); q != nil {
		return q.Levels(tr)
	}
	if p.batched() {
		return &bBatchLevels{tr.Choices, hist.NewBatched(p.Batch, 2, p.Beta)}
	}
	return &onePlusBetaLevels{tr.Choices, p.Beta, p.coin, tr.LevelBatch}
}

// HistogramSeconds: a level batch costs about 5.5 µs, a ball on ranks
// 10.6 ns (core/choose.go).
func (p *OnePlusBeta) HistogramSeconds(n, m, k uint64) float64 {
	if p.Opt.on() {
		return p.Opt.histogramSeconds(m, 2)
	}
	if q := p.degenerate(); q != nil {
		return q.HistogramSeconds(n, m, k)
	}
	if p.batched() {
		return batchedSeconds(p.Batch, m, k)
	}
	return levelCost(float64(n), float64(m), 5.5, 10.6)
}

// DirectFactor: 6.27 ns a ball against two-choice's 5.46 at n = 10^6.
func (p *OnePlusBeta) DirectFactor() float64 {
	if p.Opt.on() {
		return p.Opt.directFactor(2)
	}
	if q := p.degenerate(); q != nil {
		return q.DirectFactor()
	}
	if p.batched() {
		return 7.92 / 5.46 // b-batch's
	}
	return 6.27 / 5.46
}

// Fluid solves ds_i/dt = (1−β)(s_{i−1} − s_i) + β(s_{i−1}² − s_i²): a ball
// lands at load ≥ i from i−1 when its one sample, or the lesser of its two,
// has load i−1.
func (p *OnePlusBeta) Fluid(bins, balls uint64) (theory.Profile, error) {
	if p.delayed() {
		return theory.Profile{}, p.Delayed.fluidWhy(p.Entry().Name)
	}
	if p.batched() {
		if q := p.degenerate(); q != nil {
			return q.(Fluid).Fluid(bins, balls)
		}
		return theory.Profile{}, fmt.Errorf("no fluid limit for one-plus-beta in batches (b-batch's is β = 1)")
	}
	beta := p.Beta
	return theory.Solve(1, float64(balls)/float64(bins), theory.Step(2), nil,
		func(_ float64, w *theory.Window, ds [][]float64) {
			for k := range ds[0] {
				i := w.Base() + k
				a, b := w.At(0, i-1), w.At(0, i)
				ds[0][k] = (1-beta)*(a-b) + beta*(a*a-b*b)
			}
		}), nil
}

func (p *OnePlusBeta) Concurrent() Rule {
	return Rule{Shape: ShapeCoin, Beta: p.Beta, Params: []RuleParam{{"beta", "probability β that a ball samples two bins and takes the less loaded (else one bin), 0 ≤ β ≤ 1"}}}
}

// Memory: the frozen loads and the pending list of a batched run.
func (p *OnePlusBeta) Memory(f *units.Footprint, m Mem) {
	p.Opt.memory(f, m)
	if p.batched() {
		f.Add(m.BinsCulprit, m.BinsHint, kernels.BatchMemory(m.Bins, p.Batch, int(m.LoadBytes), m.Weighted))
	}
	if p.delayed() {
		p.Delayed.memory(f, m)
	}
}

// InitialWhy: delayed, its record of past loads starts empty (delayparam.go).
func (p *OnePlusBeta) InitialWhy() string { return p.Delayed.initialWhy(p.Entry().Name) }
