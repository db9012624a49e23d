package process

import (
	"fmt"
	"math"

	"github.com/balloc/balloc/core/hist"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// b-Batch (Berenbrink, Czumaj, Englert, Friedetzky and Nagel, "Multiple-
// choice balanced allocation in (almost) parallel", RANDOM 2012; Los and
// Sauerwald, "Balanced allocations in batches: simplified and generalized",
// SPAA 2022): balls come in batches of b; each ball of a batch samples two
// uniform bins and takes the one lighter by the loads at the batch's start,
// ties to the first sample. A trial's max_gap also covers every batch end,
// when the batch's loads are published.
//
// Direct engine: kernels.BBatch; histogram engine: each batch at once, a
// multinomial over the frozen levels and an occupancy throw per level
// (hist.BBatch). b = 1 is Two-Choice's loop. Fluid limit: the mean-field map
// at batch ends (core/theory).

// BBatch is b-Batch.
type BBatch struct {
	Batch uint64 // balls per batch
}

var bBatchEntry = &Entry{
	Name: "b-batch", Order: 106,
	Summary:  "two uniform bins compared on the loads at the start of the batch of b balls",
	Source:   "Berenbrink, Czumaj, Englert, Friedetzky, Nagel 2012; Los, Sauerwald 2022",
	Weighted: true,
	New:      func() Process { return &BBatch{} },
}

func init() { Register(bBatchEntry) }

func (*BBatch) Entry() *Entry { return bBatchEntry }

func (p *BBatch) Params() []*Param {
	return []*Param{
		Count("batch", "b-batch: balls per batch, b ≥ 1", &p.Batch, 1, "want at least 1 ball per batch").
			Listed().Need("a count b ≥ 1 of balls per batch"),
	}
}

func (p *BBatch) Check(su *Setup) error { return needBins(p, su) }

// BatchParam is --batch for a process that may run in the b-Batch setting
// (every ball of a batch decides on the loads at the batch's start); 1 is
// no batches.
func BatchParam(dst *uint64) *Param {
	return Count("batch", "balls per batch, b ≥ 1: every ball of a batch decides on the loads at the batch's start (1: no batches)", dst, 1, "want at least 1 ball per batch").
		Def("1").Listed().ShownWhen(func() bool { return *dst > 1 })
}

// checkBatch refuses what batches do not run with.
func checkBatch(name string, b uint64, su *Setup, dims int) error {
	switch {
	case b <= 1:
		return nil
	case !su.Weights.Unit() || su.Weights.Kind == WeightsConst:
		return fmt.Errorf("--batch %d: %s in batches places unit balls (b-batch, two-choice in batches, takes --weights)", b, name)
	case dims > 1:
		return fmt.Errorf("--batch %d: batches run with scalar balls, not --dims %d", b, dims)
	}
	return nil
}

// batchedSeconds is the histogram engine's cost of m balls in batches of
// b: a batch (a multinomial over the frozen levels and an occupancy throw
// per level) costs about 7.5 µs + 0.134 µs·√b (11.7 µs at b = 10^3, 141 µs
// at 10^6; core/choose.go).
func batchedSeconds(b, m, k uint64) float64 {
	fb := float64(b)
	return (math.Ceil(float64(m)/fb) + float64(k)) * (7.5e-6 + 0.134e-6*math.Sqrt(fb))
}

func (p *BBatch) Footprint(f *units.Footprint, m Mem) {
	if p.Batch > 1 {
		f.Add(m.BinsCulprit, m.BinsHint, kernels.BatchMemory(m.Bins, p.Batch, int(m.LoadBytes), m.Weighted))
	}
}

type bBatchLoop[L kernels.Load] struct {
	r     *kernels.PCG32
	batch *kernels.Batch[L]
}

func (l *bBatchLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.BBatch(loads, l.r, c, l.batch, maxLoad)
}

// Start freezes the initial loads for the first batch.
func (l *bBatchLoop[L]) Start(loads []L) { l.batch.Start(loads) }

func (l *bBatchLoop[L]) BatchEnds(n int) (uint64, float64) { return l.batch.BatchEnds(n) }

func bBatchDirect[L kernels.Load](p *BBatch, tr *Trial) Stepper[L] {
	if p.Batch == 1 {
		return twoChoiceLoop[L]{tr.Choices}
	}
	return &bBatchLoop[L]{tr.Choices, kernels.NewBatch[L](int(tr.Bins), p.Batch, false)}
}

func (p *BBatch) Direct32(tr *Trial) Stepper[uint32] { return bBatchDirect[uint32](p, tr) }
func (p *BBatch) Direct64(tr *Trial) Stepper[uint64] { return bBatchDirect[uint64](p, tr) }

type bBatchReal struct {
	r     *kernels.PCG32
	batch *kernels.Batch[float64]
}

func (l *bBatchReal) Step(loads, w []float64, maxLoad float64) float64 {
	return kernels.BBatchWeighted(loads, l.r, w, l.batch, maxLoad)
}

// Start freezes the initial loads for the first batch.
func (l *bBatchReal) Start(loads []float64) { l.batch.Start(loads) }

func (l *bBatchReal) BatchEnds(n int) (uint64, float64) { return l.batch.BatchEnds(n) }

func (p *BBatch) DirectReal(tr *Trial) RealStepper {
	if p.Batch == 1 {
		return dChoiceReal{tr.Choices, 2}
	}
	return &bBatchReal{tr.Choices, kernels.NewBatch[float64](int(tr.Bins), p.Batch, true)}
}

type bBatchLevels struct {
	r  *kernels.PCG32
	bb *hist.BBatch
}

func (l *bBatchLevels) Step(lv *kernels.Levels, t, want uint64) uint64 {
	return l.bb.Advance(lv, l.r, min(want, Chunk), t)
}

func (l *bBatchLevels) Settle(lv *kernels.Levels) { l.bb.Settle(lv) }

func (l *bBatchLevels) BatchEnds(int) (uint64, float64) { return l.bb.Ends() }

func (p *BBatch) Levels(tr *Trial) LevelStepper {
	if p.Batch == 1 {
		return (&DChoice{D: 2}).Levels(tr)
	}
	return &bBatchLevels{tr.Choices, hist.NewBBatch(p.Batch)}
}

// HistogramSeconds: a batch costs about 7.5 µs + 0.134 µs·√b (11.7 µs at
// b = 10^3, 141 µs at 10^6; core/choose.go).
func (p *BBatch) HistogramSeconds(n, m, k uint64) float64 {
	if p.Batch == 1 {
		return (&DChoice{D: 2}).HistogramSeconds(n, m, k)
	}
	return batchedSeconds(p.Batch, m, k)
}

// DirectFactor: 7.92 ns a ball against two-choice's 5.46 at n = 10^6.
func (p *BBatch) DirectFactor() float64 {
	if p.Batch == 1 {
		return 1
	}
	return 7.92 / 5.46
}

func (p *BBatch) Fluid(bins, balls uint64) (theory.Profile, error) {
	return theory.FluidBBatch(p.Batch, bins, balls)
}
