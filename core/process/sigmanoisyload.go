package process

import (
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/kernels"
)

// σ-Noisy-Load (Los and Sauerwald, "Balanced allocations with the choice
// of noise", PODC 2022, §2): a ball samples two uniform bins and reads each
// load with fresh N(0, σ²) noise; the lower reading, compared as reals, gets
// the ball. Direct engine: kernels.SigmaNoisyLoad (the normals from the
// noise stream); histogram engine: ball by ball on ranks. Fluid limit:
// core/theory's comparison system with pick(δ) = Φ(−δ/(√2σ)).

// SigmaNoisyLoad is σ-Noisy-Load.
type SigmaNoisyLoad struct {
	Sigma float64
}

var sigmaNoisyLoadEntry = &Entry{
	Name: "sigma-noisy-load", Order: 90,
	Summary:  "two uniform bins; each load read with fresh N(0, σ²) noise, compared as reals",
	Source:   "Los, Sauerwald 2022 (Choice of Noise), §2",
	Weighted: true,
	New:      func() Process { return &SigmaNoisyLoad{} },
}

func init() { Register(sigmaNoisyLoadEntry) }

func (*SigmaNoisyLoad) Entry() *Entry { return sigmaNoisyLoadEntry }

func (p *SigmaNoisyLoad) Params() []*Param {
	return []*Param{
		Real("sigma", "standard deviation σ ≥ 0 of the noise on each load read (sigma-noisy-load)", &p.Sigma,
			func(x float64) bool { return x >= 0 && x <= 1e15 }, "a real number in [0, 1e15]").
			Listed().Need("a real σ ≥ 0, the standard deviation of the noise added to each load read"),
	}
}

func (p *SigmaNoisyLoad) Check(su *Setup) error { return needBins(p, su) }

type sigmaLoop[L kernels.Load] struct {
	sigma float64
	tr    *Trial
}

func (l sigmaLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.SigmaNoisyLoad(loads, l.tr.Choices, l.tr.Noise, c, l.sigma, maxLoad)
}

func (p *SigmaNoisyLoad) Direct32(tr *Trial) Stepper[uint32] { return sigmaLoop[uint32]{p.Sigma, tr} }
func (p *SigmaNoisyLoad) Direct64(tr *Trial) Stepper[uint64] { return sigmaLoop[uint64]{p.Sigma, tr} }

type sigmaReal struct {
	sigma float64
	tr    *Trial
}

func (l sigmaReal) Step(loads, w []float64, maxLoad float64) float64 {
	return kernels.SigmaNoisyLoadWeighted(loads, l.tr.Choices, l.tr.Noise, w, l.sigma, maxLoad)
}

func (p *SigmaNoisyLoad) DirectReal(tr *Trial) RealStepper { return sigmaReal{p.Sigma, tr} }

type sigmaLevels struct {
	sigma float64
	tr    *Trial
}

func (l sigmaLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	c := min(want, Chunk)
	kernels.LevelsSigmaNoisyLoad(lv, l.tr.Choices, l.tr.Noise, c, l.sigma)
	return c
}

func (p *SigmaNoisyLoad) Levels(tr *Trial) LevelStepper         { return sigmaLevels{p.Sigma, tr} }
func (*SigmaNoisyLoad) HistogramSeconds(_, m, _ uint64) float64 { return comparisonSeconds(m) }
func (*SigmaNoisyLoad) DirectFactor() float64                   { return comparisonFactor }

func (p *SigmaNoisyLoad) Fluid(bins, balls uint64) (theory.Profile, error) {
	return theory.FluidSigmaNoisyLoad(p.Sigma, float64(balls)/float64(bins)), nil
}
