package process

import (
	"github.com/balloc/balloc/core/hist"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/kernels"
)

// One-Choice: each ball into a uniform bin (classical).
//
// Direct engine: kernels.OneChoice, one PCG32.Bounded(n) per ball. Histogram
// engine: each stretch between checkpoints in one throw (hist.ThrowLevels),
// exact. Fluid limit: the closed form P(Poisson(t) ≥ i).

// OneChoice is the One-Choice process. It has no parameters.
type OneChoice struct{}

var oneChoiceEntry = &Entry{
	Name: "one-choice", Order: 10,
	Summary:  "each ball into a uniform bin",
	Source:   "classical",
	Weighted: true,
	New:      func() Process { return &OneChoice{} },
}

func init() { Register(oneChoiceEntry) }

func (*OneChoice) Entry() *Entry           { return oneChoiceEntry }
func (*OneChoice) Params() []*Param        { return nil }
func (p *OneChoice) Check(su *Setup) error { return needBins(p, su) }

type oneChoiceLoop[L kernels.Load] struct{ r *kernels.PCG32 }

func (l oneChoiceLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.OneChoice(loads, l.r, c, maxLoad)
}

func (*OneChoice) Direct32(tr *Trial) Stepper[uint32] { return oneChoiceLoop[uint32]{tr.Choices} }
func (*OneChoice) Direct64(tr *Trial) Stepper[uint64] { return oneChoiceLoop[uint64]{tr.Choices} }

type oneChoiceReal struct{ r *kernels.PCG32 }

func (l oneChoiceReal) Step(loads, w []float64, maxLoad float64) float64 {
	return kernels.OneChoiceWeighted(loads, l.r, w, maxLoad)
}

func (*OneChoice) DirectReal(tr *Trial) RealStepper { return oneChoiceReal{tr.Choices} }

type oneChoiceLevels struct{ r *kernels.PCG32 }

// Step throws the whole stretch at once, whatever its length.
func (l oneChoiceLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	hist.ThrowLevels(lv, want, l.r)
	return want
}

func (*OneChoice) Levels(tr *Trial) LevelStepper { return oneChoiceLevels{tr.Choices} }

// HistogramSeconds: one throw per checkpoint stretch, O(m/n) each (0.2 s at
// m/n = 10^6, core/choose.go).
func (*OneChoice) HistogramSeconds(n, m, checkpoints uint64) float64 {
	return float64(checkpoints+1) * (20e-6 + 200e-9*float64(m)/float64(n))
}

// DirectFactor: 1.98 ns a ball against two-choice's 5.46 at n = 10^6.
func (*OneChoice) DirectFactor() float64 { return 1.98 / 5.46 }

func (*OneChoice) Fluid(bins, balls uint64) (theory.Profile, error) {
	return theory.FluidOneChoice(float64(balls) / float64(bins)), nil
}

func (*OneChoice) Concurrent() Rule { return Rule{Shape: ShapeLeast, D: 1} }

func (*OneChoice) Placement() (kernels.Placement, string) {
	return kernels.Placement{D: 1, Beta: 1}, ""
}
