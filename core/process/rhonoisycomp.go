package process

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/kernels"
)

// ρ-Noisy-Comp (Los and Sauerwald, "Balanced allocations with the choice
// of noise", PODC 2022, §2): a ball samples two uniform bins whose loads
// differ by δ ≥ 0; the comparison is right (the lighter gets the ball) with
// probability ρ(δ), else wrong. --rho gives ρ: gauss:σ, ρ(δ) = Φ(δ/(√2σ))
// (σ-Noisy-Load's law of a right comparison); logistic:s, 1/(1+e^(−δ/s));
// step:g,p, p for δ ≤ g and 1 beyond. Integer loads use exact coins from a
// table built once (kernels.RhoTable); random weights evaluate ρ per ball.
// Histogram engine: ball by ball on ranks. Fluid limit: core/theory.

// RhoNoisyComp is ρ-Noisy-Comp.
type RhoNoisyComp struct {
	Rho   kernels.Rho
	table *kernels.RhoTable
}

var rhoNoisyCompEntry = &Entry{
	Name: "rho-noisy-comp", Order: 100,
	Summary:  "two uniform bins; loads differing by δ compared correctly with probability ρ(δ)",
	Source:   "Los, Sauerwald 2022 (Choice of Noise), §2",
	Weighted: true,
	New:      func() Process { return &RhoNoisyComp{} },
}

func init() { Register(rhoNoisyCompEntry) }

func (*RhoNoisyComp) Entry() *Entry { return rhoNoisyCompEntry }

func (p *RhoNoisyComp) Params() []*Param {
	return []*Param{
		Custom("rho", "rho-noisy-comp: gauss:σ (ρ(δ) = Φ(δ/(√2σ))), logistic:s (1/(1+e^(−δ/s))) or step:g,p (p for δ ≤ g, 1 beyond)",
			func(v string) error {
				r, err := ParseRho(v)
				if err != nil {
					return err
				}
				p.Rho = r
				return nil
			}, func() any { return RhoString(p.Rho) }).Need("gauss:σ, logistic:s or step:g,p"),
	}
}

func (p *RhoNoisyComp) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	t, err := kernels.NewRhoTable(p.Rho)
	if err != nil {
		return fmt.Errorf("--rho %s: %v", RhoString(p.Rho), err)
	}
	p.table = t
	return nil
}

type rhoLoop[L kernels.Load] struct {
	table *kernels.RhoTable
	tr    *Trial
}

func (l rhoLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.RhoNoisyComp(loads, l.tr.Choices, l.tr.Noise, c, l.table, maxLoad)
}

func (p *RhoNoisyComp) Direct32(tr *Trial) Stepper[uint32] { return rhoLoop[uint32]{p.table, tr} }
func (p *RhoNoisyComp) Direct64(tr *Trial) Stepper[uint64] { return rhoLoop[uint64]{p.table, tr} }

type rhoReal struct {
	rho kernels.Rho
	tr  *Trial
}

func (l rhoReal) Step(loads, w []float64, maxLoad float64) float64 {
	return kernels.RhoNoisyCompWeighted(loads, l.tr.Choices, l.tr.Noise, w, l.rho, maxLoad)
}

func (p *RhoNoisyComp) DirectReal(tr *Trial) RealStepper { return rhoReal{p.Rho, tr} }

type rhoLevels struct {
	table *kernels.RhoTable
	tr    *Trial
}

func (l rhoLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	c := min(want, Chunk)
	kernels.LevelsRhoNoisyComp(lv, l.tr.Choices, l.tr.Noise, c, l.table)
	return c
}

func (p *RhoNoisyComp) Levels(tr *Trial) LevelStepper         { return rhoLevels{p.table, tr} }
func (*RhoNoisyComp) HistogramSeconds(_, m, _ uint64) float64 { return comparisonSeconds(m) }
func (*RhoNoisyComp) DirectFactor() float64                   { return comparisonFactor }

func (p *RhoNoisyComp) Fluid(bins, balls uint64) (theory.Profile, error) {
	return theory.FluidRhoNoisyComp(p.Rho, float64(balls)/float64(bins)), nil
}

// ParseRho parses gauss:σ, logistic:s or step:g,p.
func ParseRho(v string) (kernels.Rho, error) {
	bad := func() (kernels.Rho, error) {
		return kernels.Rho{}, fmt.Errorf("--rho %q: want gauss:σ (σ ≥ 0), logistic:s (s ≥ 0) or step:g,p (g ≥ 0, 0 ≤ p ≤ 1)", v)
	}
	kind, arg, _ := strings.Cut(v, ":")
	switch kind {
	case "gauss", "logistic":
		x, err := ParseReal(arg)
		if err != nil || x < 0 || x > 1e15 {
			return bad()
		}
		if kind == "gauss" {
			return kernels.Rho{Kind: kernels.RhoGauss, A: x}, nil
		}
		return kernels.Rho{Kind: kernels.RhoLogistic, A: x}, nil
	case "step":
		gs, ps, ok := strings.Cut(arg, ",")
		g, err1 := ParseReal(gs)
		p, err2 := ParseReal(ps)
		if !ok || err1 != nil || err2 != nil || g < 0 || g > 1e15 || p < 0 || p > 1 {
			return bad()
		}
		return kernels.Rho{Kind: kernels.RhoStep, A: g, B: p}, nil
	}
	return bad()
}

// RhoString is the canonical spelling of r, as ParseRho reads it.
func RhoString(r kernels.Rho) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch r.Kind {
	case kernels.RhoGauss:
		return "gauss:" + f(r.A)
	case kernels.RhoLogistic:
		return "logistic:" + f(r.A)
	}
	return "step:" + f(r.A) + "," + f(r.B)
}
