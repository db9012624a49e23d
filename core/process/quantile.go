package process

import (
	"fmt"
	"math/big"

	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Quantile(δ) (Los and Sauerwald, "Balanced allocations with incomplete
// information: the power of two queries", ITCS 2022; batched in "Balanced
// allocations in batches: simplified and generalized", SPAA 2022): a ball
// samples a uniform bin; if the bin is among the k = ⌈δn⌉ heaviest, the ball
// goes to a second uniform sample, else it stays with the first. One query
// of a bin's rank and at most two samples per ball.
//
// Ties at the boundary of the k heaviest are ranked in a uniformly random
// order: the authors' code (Dim131/Batched-22, hybrid_quantile) samples a
// position of the sorted load vector and tests position < δn, and a uniform
// bin is a uniform position when equal loads are in a uniform order. So a
// bin with A heavier bins and E bins at its load is heavy with probability
// clamp((k − A)/E, 0, 1). k counts the positions 0 … n−1 below δn, ⌈δn⌉,
// computed exactly.
//
// δ = 0 never takes the second sample: it is One-Choice, and runs its
// loops. δ = 1 always takes it, which is One-Choice in law (its own loop
// draws two samples a ball). Neither is Two-Choice: Quantile never compares
// two loads.
//
// Direct engine: kernels.Quantile, with the counts of bins per load beside
// the loads (kernels.QuantileCounts), so the rank test is O(1). Histogram
// engine: ranks of the levels, ball by ball (kernels.LevelsQuantile), exact.
// Fluid limit below.
//
// mixed-quantile --delta δ --eta η (Los and Sauerwald, "Balanced
// allocations in batches: the tower of two choices", SPAA 2023; the
// authors' mixed_quantile, Dim131/Batched-23): a Quantile(δ) step with
// probability η, else One-Choice — the first bin is kept. The same loops,
// with an η coin flipped first every ball; η = 1 is Quantile(δ) in law.
//
// --distinct and --sampling (sampling.go) run kernels.QuantileDraws; the
// defaults run the loops above.

// Quantile is Quantile(δ).
type Quantile struct {
	Delta float64 // the heaviest fraction whose bins pass the ball on
	Eta   float64 // mixed-quantile: the probability of a quantile step
	Batch uint64  // balls per batch (b-Batch's setting, SPAA'22 §8); 1: none
	k     uint64  // ⌈δn⌉
	mixed bool
	coin  *kernels.Bernoulli // mixed-quantile's η coin

	Delayed Delayed  // τ-Delay's setting, --delay fixed (delay.go); τ = 0: none
	Opt     Sampling // --distinct, --sampling (sampling.go)
}

var quantileEntry = &Entry{
	Name: "quantile", Order: 65,
	Summary: "a uniform bin, unless it is among the ⌈δn⌉ heaviest: then a second uniform bin",
	Source:  "Los, Sauerwald 2022 (ITCS: Quantile(δ); SPAA: batched)",
	New:     func() Process { return &Quantile{} },
}

var mixedQuantileEntry = &Entry{
	Name: "mixed-quantile", Order: 66,
	Summary: "with probability η a quantile step, else the first uniform bin (one-choice)",
	Source:  "Los, Sauerwald 2023 (SPAA: Mixed-Quantile)",
	New:     func() Process { return &Quantile{mixed: true} },
}

func init() {
	Register(quantileEntry)
	Register(mixedQuantileEntry)
}

func (p *Quantile) Entry() *Entry {
	if p.mixed {
		return mixedQuantileEntry
	}
	return quantileEntry
}

func (p *Quantile) Params() []*Param {
	params := []*Param{
		Real("delta", "quantile: the heaviest fraction δ; a ball whose first bin is among the ⌈δn⌉ heaviest takes a second uniform bin, 0 ≤ δ ≤ 1", &p.Delta,
			func(x float64) bool { return x >= 0 && x <= 1 }, "a fraction in [0, 1]").
			Listed().Need("a fraction δ in [0, 1]: a first bin among the ⌈δn⌉ heaviest passes the ball to a second"),
		BatchParam(&p.Batch),
	}
	params = append(params, p.Delayed.params(p.Entry().Name)...)
	params = append(params, p.Opt.sampleParams()...)
	if p.mixed {
		params = append(params[:1], append([]*Param{
			Real("eta", "mixed-quantile: the probability η of a quantile step (else one-choice), 0 ≤ η ≤ 1", &p.Eta,
				func(x float64) bool { return x >= 0 && x <= 1 }, "a probability in [0, 1]").
				Listed().Need("a probability η in [0, 1] of a quantile step"),
		}, params[1:]...)...)
	}
	return params
}

// Check computes k = ⌈δn⌉ exactly (δ is a dyadic rational).
func (p *Quantile) Check(su *Setup) error {
	if err := p.Opt.setBins(su); err != nil {
		return err
	}
	if err := needBins(p, su); err != nil {
		return err
	}
	x := new(big.Rat).SetFloat64(p.Delta)
	x.Mul(x, new(big.Rat).SetInt(new(big.Int).SetUint64(su.Bins)))
	k := new(big.Int).Quo(x.Num(), x.Denom())
	if !x.IsInt() {
		k.Add(k, big.NewInt(1))
	}
	p.k = k.Uint64()
	if p.mixed {
		if p.Eta == 0 {
			p.k = 0 // no quantile step is ever taken: one-choice
		}
		c, err := kernels.NewBernoulli(p.Eta)
		if err != nil {
			return err
		}
		p.coin = &c
	}
	if err := checkBatch(p.Entry().Name, p.Batch, su, 1); err != nil {
		return err
	}
	if err := p.Delayed.check(p.Entry().Name, su, delayRule{fixedOnly: true, batch: p.Batch}); err != nil {
		return err
	}
	if err := p.Opt.checkQuantile(su, p.batched()); err != nil {
		return err
	}
	return p.Opt.notWithDelay(&p.Delayed)
}

// delayed: the rank tests read the vector τ balls ago
// (kernels.DelayedQuantile).
func (p *Quantile) delayed() bool { return p.Delayed.on() && p.k > 0 }

func (p *Quantile) Content() (map[string]string, []string) { return bothContent(&p.Delayed, &p.Opt) }

// batched: the rank tests of a batch read the loads at its start
// (kernels.BatchedQuantile).
func (p *Quantile) batched() bool { return p.Batch > 1 && p.k > 0 }

// HistogramWhy: batches of Quantile run on the direct engine only.
func (p *Quantile) HistogramWhy() string {
	if p.batched() {
		return "quantile in batches (--batch) runs on the direct engine"
	}
	if p.delayed() {
		return p.Delayed.histogramWhy(p.Entry().Name)
	}
	return p.Opt.histogramWhy(false)
}

// Memory: the counts per load (a few levels), and in batches the frozen
// loads and the pending list.
func (p *Quantile) Footprint(f *units.Footprint, m Mem) {
	p.Opt.memory(f, m)
	if p.batched() {
		f.Add(m.BinsCulprit, m.BinsHint, kernels.BatchMemory(m.Bins, p.Batch, int(m.LoadBytes), m.Weighted))
	}
	if p.delayed() {
		p.Delayed.memory(f, m)
	}
}

type quantileBatched[L kernels.Load] struct {
	r     *kernels.PCG32
	q     *kernels.QuantileCounts
	coin  *kernels.Bernoulli
	batch *kernels.Batch[L]
}

func (l *quantileBatched[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.BatchedQuantile(loads, l.r, c, l.q, l.coin, l.batch, maxLoad)
}

func (l *quantileBatched[L]) BatchEnds(n int) (uint64, float64) { return l.batch.BatchEnds(n) }

// Start counts the initial loads and freezes them for the first batch.
func (l *quantileBatched[L]) Start(loads []L) {
	kernels.StartQuantile(l.q, loads)
	l.batch.Start(loads)
}

type quantileLoop[L kernels.Load] struct {
	r    *kernels.PCG32
	q    *kernels.QuantileCounts
	coin *kernels.Bernoulli // mixed-quantile; nil for quantile
}

func (l quantileLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.Quantile(loads, l.r, c, l.q, l.coin, maxLoad)
}

// Start counts the initial loads.
func (l quantileLoop[L]) Start(loads []L) { kernels.StartQuantile(l.q, loads) }

// coinCopy is a trial's own copy of the η coin (nil for quantile).
func (p *Quantile) coinCopy() *kernels.Bernoulli {
	if p.coin == nil {
		return nil
	}
	c := *p.coin
	return &c
}

func quantileDirect[L kernels.Load](p *Quantile, tr *Trial) Stepper[L] {
	if p.Opt.on() {
		return quantileDrawsDirect[L](p, tr)
	}
	if p.k == 0 {
		return oneChoiceLoop[L]{tr.Choices}
	}
	if p.delayed() {
		return &delayedQuantileLoop[L]{tr.Choices, kernels.NewQuantileCounts(tr.Bins, p.k), p.coinCopy(), delayState[L](&p.Delayed, tr)}
	}
	if p.batched() {
		return &quantileBatched[L]{tr.Choices, kernels.NewQuantileCounts(tr.Bins, p.k), p.coinCopy(), kernels.NewBatch[L](int(tr.Bins), p.Batch, false)}
	}
	return quantileLoop[L]{tr.Choices, kernels.NewQuantileCounts(tr.Bins, p.k), p.coinCopy()}
}

func (p *Quantile) Direct32(tr *Trial) Stepper[uint32] { return quantileDirect[uint32](p, tr) }
func (p *Quantile) Direct64(tr *Trial) Stepper[uint64] { return quantileDirect[uint64](p, tr) }

type quantileLevels struct {
	r    *kernels.PCG32
	k    uint64
	coin *kernels.Bernoulli
}

func (l quantileLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	c := min(want, Chunk)
	kernels.LevelsQuantile(lv, l.r, c, l.k, l.coin)
	return c
}

func (p *Quantile) Levels(tr *Trial) LevelStepper {
	if p.k == 0 {
		return oneChoiceLevels{tr.Choices}
	}
	if p.Opt.on() { // --distinct (histogramWhy refuses the rest)
		return quantileDistinctLevels{tr.Choices, p.k, p.coinCopy()}
	}
	return quantileLevels{tr.Choices, p.k, p.coinCopy()}
}

// HistogramSeconds: ball by ball on ranks, two ranks a ball: 10.19 ns a
// ball at n = 10^6, δ = 1/2, m = 2·10^8, where two-thinning took 8.92 (its
// 8.51 of core/choose.go's table, scaled: 9.7 ns).
func (p *Quantile) HistogramSeconds(n, m, k uint64) float64 {
	if p.k == 0 {
		return (&OneChoice{}).HistogramSeconds(n, m, k)
	}
	return float64(m) * 9.7e-9
}

// DirectFactor: 10.9 ns a ball at n = 10^6, δ = 1/2, where two-choice took
// 4.01 in the same run (two random reads a ball past the caches).
func (p *Quantile) DirectFactor() float64 {
	if p.k == 0 {
		return (&OneChoice{}).DirectFactor()
	}
	return 10.9 / 4.01
}

// Fluid solves the limit with k/n → δ (mixed-quantile: η of this and 1 − η
// of One-Choice's s_{i−1} − s_i). With s_i the fraction of bins at
// load ≥ i and the first sample's position u uniform in [0, 1) from the
// heaviest, the ball lands on a bin of load i−1 when u falls in the light
// part of level i−1, [max(s_i, δ), max(s_{i−1}, δ)), or when u < δ and the
// second sample has load i−1:
//
//	ds_i/dt = max(s_{i−1}, δ) − max(s_i, δ) + δ·(s_{i−1} − s_i).
func (p *Quantile) Fluid(bins, balls uint64) (theory.Profile, error) {
	if p.batched() {
		return theory.Profile{}, fmt.Errorf("no fluid limit for quantile in batches")
	}
	if p.delayed() {
		return theory.Profile{}, p.Delayed.fluidWhy(p.Entry().Name)
	}
	d, eta := p.Delta, 1.0
	if p.mixed {
		eta = p.Eta
	}
	return theory.Solve(1, float64(balls)/float64(bins), theory.Step(2), nil,
		func(_ float64, w *theory.Window, ds [][]float64) {
			for k := range ds[0] {
				i := w.Base() + k
				a, b := w.At(0, i-1), w.At(0, i)
				ds[0][k] = (1-eta)*(a-b) + eta*(max(a, d)-max(b, d)+d*(a-b))
			}
		}), nil
}

// InitialWhy: delayed, its record of past loads starts empty (delay.go).
func (p *Quantile) InitialWhy() string { return p.Delayed.initialWhy(p.Entry().Name) }

// Placement: Quantile(δ) on the loads present — the first bin passes the
// ball on when it is among the ⌈δn⌉ heaviest of the n bins now, ties in a
// uniformly random order (the static rule, read on the current loads);
// mixed-quantile takes that step with probability η. δ = 0 (or η = 0) is
// one-choice's placement. The direct engine's deletions tell its counts
// per load of every ball removed (quantileLoop.Left).
func (p *Quantile) Placement() (kernels.Placement, string) {
	switch {
	case p.batched():
		return kernels.Placement{}, "--batch: batches read frozen loads, which departures would change under them"
	case p.delayed():
		return kernels.Placement{}, "--tau: delayed rank tests have no dynamic reading here (their record of past loads would need the departures)"
	case p.Opt.on():
		return kernels.Placement{}, "--distinct and --sampling are static options of quantile; balls leave with uniform samples"
	case p.k == 0:
		return kernels.Placement{D: 1, Beta: 1}, ""
	}
	eta := 1.0
	if p.mixed {
		eta = p.Eta
	}
	return kernels.Placement{D: 2, Beta: eta, Heavy: p.k}, ""
}

// Left: a ball left a bin of load l (the deletions model, direct engine).
func (l quantileLoop[L]) Left(v L) { l.q.Down(uint64(v)) }
