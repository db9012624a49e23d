package process

import (
	"fmt"

	"github.com/balloc/balloc/core/hist"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// d-Choice: each ball into the least loaded of d bins drawn uniformly with
// replacement, ties at random (Azar, Broder, Karlin, Upfal 1999; heavy load:
// Berenbrink, Czumaj, Steger, Vöcking 2006). two-choice is its alias with
// d = 2. Balls of --dims D > 1 (vectors, IDEA §6.2) run on the vector engine
// (core/engine/vector.go): the sample whose largest coordinate is least.
//
// Direct engine: kernels.TwoChoice (d = 2) or kernels.DChoice, d
// PCG32.Bounded(n) per ball; d = 1 is One-Choice's loop, which draws the
// same stream. Histogram engine: exact level batches (hist.Advance), ball
// by ball on ranks (kernels.LevelsDChoice) when n is small.
//
// Sampling and tie options (--ties, …): sampling.go, which runs the
// options' own loops; the defaults run the loops above.

// DChoice is d-Choice.
type DChoice struct {
	D         int    // samples per ball
	Dims      int    // dimensions of a ball; 1 is scalar balls
	Populated int    // populated dimensions of a vector ball
	Batch     uint64 // balls per batch (b-Batch's setting); 1: none
	alias     bool

	Delayed Delayed  // τ-Delay's setting (delayparam.go); τ = 0: none
	Opt     Sampling // --ties, --distinct, --sampling (sampling.go)
}

var dChoiceEntry = &Entry{
	Name: "d-choice", Order: 20,
	Summary:  "least loaded of d uniform bins (with replacement), ties at random",
	Source:   "Azar, Broder, Karlin, Upfal 1999; Berenbrink et al. 2006 (heavy load)",
	Weighted: true,
	New:      func() Process { return &DChoice{} },
}

var twoChoiceEntry = &Entry{
	Name: "two-choice", Order: 30,
	Summary:  "d-choice with d = 2",
	Source:   "Azar, Broder, Karlin, Upfal 1999",
	Weighted: true,
	Fixed:    map[string]any{"d": 2},
	New:      func() Process { return &DChoice{D: 2, Dims: 1, Populated: 1, Batch: 1, alias: true} },
}

func init() {
	Register(dChoiceEntry)
	Register(twoChoiceEntry)
}

func (p *DChoice) Entry() *Entry {
	if p.alias {
		return twoChoiceEntry
	}
	return dChoiceEntry
}

func (p *DChoice) Params() []*Param {
	if p.alias {
		return append(p.Delayed.params("two-choice"), p.Opt.params()...)
	}
	return append([]*Param{
		DParam(&p.D, "samples per ball, 1 ≤ d ≤ bins"),
		DimsParam(&p.Dims),
		PopulatedParam(&p.Populated, func() bool { return p.Dims > 1 }),
		BatchParam(&p.Batch),
	}, append(p.Delayed.params("d-choice"), p.Opt.params()...)...)
}

// DParam is --d, samples per ball (or groups), for the processes that take it.
func DParam(dst *int, usage string) *Param {
	return IntWant("d", usage, dst, 1, 1<<20, "an integer in [1, min(bins, 1048576)]").Def("2").Listed()
}

// DimsParam is --dims, the dimensions of a ball (d-choice, idea).
func DimsParam(dst *int) *Param {
	return Int("dims", "dimensions D of each ball, 1 ≤ D ≤ 64 (1: scalar balls)", dst, 1, kernels.MaxDims).Def("1").Listed().
		ShownWhen(func() bool { return *dst > 1 })
}

// PopulatedParam is --populated, the populated dimensions of a vector ball.
func PopulatedParam(dst *int, vector func() bool) *Param {
	return Int("populated", "with --dims: populated dimensions f of each ball, chosen uniformly, 1 ≤ f ≤ dims", dst, 1, kernels.MaxDims).Def("1").Listed().
		ShownWhen(vector)
}

func (p *DChoice) Check(su *Setup) error {
	if err := p.Opt.setBins(su); err != nil {
		return err
	}
	if err := needBins(p, su); err != nil {
		return err
	}
	if p.Populated > p.Dims {
		return fmt.Errorf("--populated %d exceeds --dims %d: want 1 ≤ f ≤ dims", p.Populated, p.Dims)
	}
	if uint64(p.D) > su.Bins {
		return fmt.Errorf("--d %d exceeds --bins %d: want 1 ≤ d ≤ bins", p.D, su.Bins)
	}
	if err := checkBatch(p.Entry().Name, p.Batch, su, p.Dims); err != nil {
		return err
	}
	if err := p.Delayed.check(p.Entry().Name, su, delayRule{weighted: p.D == 2, batch: p.Batch}); err != nil {
		return err
	}
	if p.Delayed.on() && p.Dims > 1 {
		return fmt.Errorf("--tau: delayed reads run with scalar balls, not --dims %d", p.Dims)
	}
	if err := p.Opt.check(su, p.D, p.Dims); err != nil {
		return err
	}
	return p.Opt.notWithDelay(&p.Delayed)
}

// delayed reports whether loads are read with a delay (one-choice reads
// none).
func (p *DChoice) delayed() bool { return p.Delayed.on() && p.D > 1 }

// HistogramWhy: delays, and the options that tell bins apart, run on the
// direct engine.
func (p *DChoice) HistogramWhy() string {
	if p.delayed() {
		return p.Delayed.histogramWhy(p.Entry().Name)
	}
	return p.Opt.histogramWhy(p.batched())
}

// Content: a replay file's ages or a --sampling file's weights stand for
// their values in the spec's hash.
func (p *DChoice) Content() (map[string]string, []string) { return bothContent(&p.Delayed, &p.Opt) }

// batched reports whether balls come in batches whose decisions read loads
// (one-choice in batches is one-choice).
func (p *DChoice) batched() bool { return p.Batch > 1 && p.D > 1 }

func (p *DChoice) Dimensions() int { return p.Dims }

func (p *DChoice) Vector(uint64) (VectorRun, bool) {
	return VectorRun{D: p.D, Shape: kernels.VecShape{Dims: p.Dims, F: p.Populated}}, p.Dims > 1
}

// Memory: a vector trial holds a load per bin and dimension, and the
// measuring copies.
func (p *DChoice) Memory(f *units.Footprint, m Mem) {
	p.Opt.memory(f, m)
	if D := uint64(p.Dims); D > 1 {
		f.Add(fmt.Sprintf("--dims %d", p.Dims), "lower --dims or --bins", units.Mul(m.Bins, D*8+8+8))
	}
	if p.batched() {
		f.Add(m.BinsCulprit, m.BinsHint, kernels.BatchMemory(m.Bins, p.Batch, int(m.LoadBytes), m.Weighted))
	}
	if p.delayed() {
		p.Delayed.memory(f, m)
	}
}

type dChoiceBatched[L kernels.Load] struct {
	r     *kernels.PCG32
	d     int
	batch *kernels.Batch[L]
}

func (l *dChoiceBatched[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.BatchedDChoice(loads, l.r, c, l.d, l.batch, maxLoad)
}

func (l *dChoiceBatched[L]) BatchEnds(n int) (uint64, float64) { return l.batch.BatchEnds(n) }

// Start freezes the initial loads for the first batch.
func (l *dChoiceBatched[L]) Start(loads []L) { l.batch.Start(loads) }

type twoChoiceLoop[L kernels.Load] struct{ r *kernels.PCG32 }

func (l twoChoiceLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.TwoChoice(loads, l.r, c, maxLoad)
}

type dChoiceLoop[L kernels.Load] struct {
	r *kernels.PCG32
	d int
}

func (l dChoiceLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.DChoice(loads, l.r, c, l.d, maxLoad)
}

func dChoiceDirect[L kernels.Load](d int, batch uint64, tr *Trial) Stepper[L] {
	if batch > 1 && d > 1 {
		return &dChoiceBatched[L]{tr.Choices, d, kernels.NewBatch[L](int(tr.Bins), batch, false)}
	}
	switch d {
	case 1:
		return oneChoiceLoop[L]{tr.Choices}
	case 2:
		return twoChoiceLoop[L]{tr.Choices}
	}
	return dChoiceLoop[L]{tr.Choices, d}
}

func (p *DChoice) Direct32(tr *Trial) Stepper[uint32] {
	if p.delayed() {
		return delayedDirect[uint32](&p.Delayed, p.D, nil, tr)
	}
	if p.Opt.on() {
		return drawsDirect[uint32](&p.Opt, p.D, nil, p.Batch, tr)
	}
	return dChoiceDirect[uint32](p.D, p.Batch, tr)
}

func (p *DChoice) Direct64(tr *Trial) Stepper[uint64] {
	if p.delayed() {
		return delayedDirect[uint64](&p.Delayed, p.D, nil, tr)
	}
	if p.Opt.on() {
		return drawsDirect[uint64](&p.Opt, p.D, nil, p.Batch, tr)
	}
	return dChoiceDirect[uint64](p.D, p.Batch, tr)
}

type dChoiceReal struct {
	r *kernels.PCG32
	d int
}

func (l dChoiceReal) Step(loads, w []float64, maxLoad float64) float64 {
	return kernels.DChoiceWeighted(loads, l.r, w, l.d, maxLoad)
}

func (p *DChoice) DirectReal(tr *Trial) RealStepper {
	if p.D == 1 {
		return oneChoiceReal{tr.Choices}
	}
	if p.delayed() {
		return p.Delayed.tauDelay().DirectReal(tr) // d = 2: Check refuses weights otherwise
	}
	return dChoiceReal{tr.Choices, p.D}
}

type dChoiceLevels struct {
	r     *kernels.PCG32
	d     int
	force uint64
}

func (l dChoiceLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	return hist.Advance(lv, l.r, min(want, Chunk), l.d, 1, func(run uint64) { kernels.LevelsDChoice(lv, l.r, run, l.d) }, l.force)
}

func (p *DChoice) Levels(tr *Trial) LevelStepper {
	if p.Opt.on() {
		return p.Opt.levels(p.D, nil, tr)
	}
	if p.D == 1 {
		return oneChoiceLevels{tr.Choices}
	}
	if p.batched() {
		return &bBatchLevels{tr.Choices, hist.NewBatched(p.Batch, p.D, 1)}
	}
	return dChoiceLevels{tr.Choices, p.D, tr.LevelBatch}
}

// levelCost is the histogram engine's seconds for m balls of a (d, β)
// process on its level batches: a batch of about 4·√n balls costs batchUs
// (3.8 µs at d = 2, two-choice; core/choose.go), ball by ball perBallNs.
func levelCost(n, m float64, batchUs, perBallNs float64) float64 {
	if B := hist.TypicalBatch(n); B >= hist.MinBatch {
		return m * batchUs * 1e-6 / B
	}
	return m * perBallNs * 1e-9
}

func (p *DChoice) HistogramSeconds(n, m, k uint64) float64 {
	if p.Opt.on() {
		return p.Opt.histogramSeconds(m, p.D)
	}
	if p.D == 1 {
		return (&OneChoice{}).HistogramSeconds(n, m, k)
	}
	if p.batched() {
		return batchedSeconds(p.Batch, m, k)
	}
	return levelCost(float64(n), float64(m), 3.8*float64(p.D)/2, 3.5*float64(p.D))
}

func (p *DChoice) DirectFactor() float64 {
	if p.Opt.on() {
		return p.Opt.directFactor(p.D)
	}
	if p.D == 1 {
		return (&OneChoice{}).DirectFactor()
	}
	if p.batched() {
		return 7.92 / 5.46 * float64(p.D) / 2 // b-batch's, per sample
	}
	return float64(p.D) / 2
}

func (p *DChoice) Fluid(bins, balls uint64) (theory.Profile, error) {
	if p.delayed() {
		return theory.Profile{}, p.Delayed.fluidWhy(p.Entry().Name)
	}
	if p.batched() {
		if p.D == 2 {
			return theory.FluidBBatch(p.Batch, bins, balls) // b-batch's
		}
		return theory.Profile{}, fmt.Errorf("no fluid limit for d-choice d=%d in batches (b-batch's is d = 2)", p.D)
	}
	return theory.FluidDChoice(p.D, float64(balls)/float64(bins)), nil
}

func (p *DChoice) Concurrent() Rule {
	r := Rule{Shape: ShapeLeast, D: p.D, Params: []RuleParam{{"d", "samples per ball, the least loaded taken, 1 ≤ d ≤ 16 and d ≤ bins (default 2)"}}}
	if p.D == 2 { // two-choice, and d-choice d = 2
		r.Models = leastOfTwoModels()
	}
	return r
}

// InitialWhy: delayed, its record of past loads starts empty (delayparam.go).
func (p *DChoice) InitialWhy() string { return p.Delayed.initialWhy(p.Entry().Name) }
