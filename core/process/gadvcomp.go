package process

import (
	"math"

	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/kernels"
)

// g-Adv-Comp (Los and Sauerwald, "Balanced allocations with the choice of
// noise", PODC 2022, §2; g-Bounded after Nadiradze): a ball samples two
// uniform bins; when their loads differ by more than g the lighter gets it,
// else an adversary decides (--adversary): greedy-reverse, the heavier (the
// paper's g-Bounded); random, a fair coin (the same process as
// g-Myopic-Comp); max-target, the one that raises the maximum load most,
// which for two samples is the heavier.
//
// Direct engine: kernels.GComp (two PCG32.Bounded(n) from the choice
// stream, the coin from the noise stream); histogram engine: ball by ball
// on ranks (kernels.LevelsGComp). Fluid limit: the comparison system of
// core/theory (random within g, or the heavier).

// GAdvComp is g-Adv-Comp.
type GAdvComp struct {
	G         float64
	Adversary string // greedy-reverse, random or max-target
}

var gAdvCompEntry = &Entry{
	Name: "g-adv-comp", Order: 70,
	Summary:  "two uniform bins; loads within g: the adversary decides, else the lighter",
	Source:   "Los, Sauerwald 2022 (Choice of Noise), §2; g-Bounded: Nadiradze",
	Weighted: true,
	New:      func() Process { return &GAdvComp{} },
}

func init() { Register(gAdvCompEntry) }

func (*GAdvComp) Entry() *Entry { return gAdvCompEntry }

// adversaries are g-adv-comp's rules within g.
var adversaries = map[string]kernels.GRule{
	"greedy-reverse": kernels.GHeavier,
	"random":         kernels.GRandom,
	"max-target":     kernels.GMaxTarget,
}

func (p *GAdvComp) Params() []*Param {
	return []*Param{
		GParam(&p.G),
		Choice("adversary", "g-adv-comp: greedy-reverse (the heavier), random (a fair coin) or max-target", &p.Adversary,
			"greedy-reverse", "random", "max-target").Def("greedy-reverse").Listed(),
	}
}

// GParam is --g, the reach of the noisy comparisons.
func GParam(dst *float64) *Param {
	return Real("g", "comparisons of loads differing by at most g are noisy, g ≥ 0", dst,
		func(g float64) bool { return g >= 0 && g <= 1e15 }, "a real number in [0, 1e15]").
		Listed().Need("a real g ≥ 0: loads within g of each other are compared by the noise rule")
}

func (p *GAdvComp) Check(su *Setup) error { return needBins(p, su) }

func (p *GAdvComp) comp() gComp { return gComp{p.G, adversaries[p.Adversary]} }

func (p *GAdvComp) Direct32(tr *Trial) Stepper[uint32] { return gCompLoop[uint32]{p.comp(), tr} }
func (p *GAdvComp) Direct64(tr *Trial) Stepper[uint64] { return gCompLoop[uint64]{p.comp(), tr} }
func (p *GAdvComp) DirectReal(tr *Trial) RealStepper   { return gCompReal{p.comp(), tr} }
func (p *GAdvComp) Levels(tr *Trial) LevelStepper      { return gCompLevels{p.comp(), tr} }

func (*GAdvComp) HistogramSeconds(_, m, _ uint64) float64 { return comparisonSeconds(m) }
func (*GAdvComp) DirectFactor() float64                   { return comparisonFactor }

func (p *GAdvComp) Fluid(bins, balls uint64) (theory.Profile, error) {
	return p.comp().fluid(bins, balls), nil
}

// gComp is a two-sample comparison within g by a rule: g-adv-comp's and
// g-myopic-comp's shared loops.
type gComp struct {
	g    float64
	rule kernels.GRule
}

// fluid: random within g (myopic, adversary random), else the heavier
// (greedy-reverse, max-target).
func (c gComp) fluid(bins, balls uint64) theory.Profile {
	return theory.FluidGComp(int(math.Floor(c.g)), c.rule != kernels.GRandom, float64(balls)/float64(bins))
}

type gCompLoop[L kernels.Load] struct {
	gComp
	tr *Trial
}

// Step: for integer loads, |x − y| ≤ g ⇔ |x − y| ≤ ⌊g⌋.
func (l gCompLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.GComp(loads, l.tr.Choices, l.tr.Noise, c, uint64(math.Floor(l.g)), l.rule, maxLoad)
}

type gCompReal struct {
	gComp
	tr *Trial
}

func (l gCompReal) Step(loads, w []float64, maxLoad float64) float64 {
	return kernels.GCompWeighted(loads, l.tr.Choices, l.tr.Noise, w, l.g, l.rule, maxLoad)
}

type gCompLevels struct {
	gComp
	tr *Trial
}

func (l gCompLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	c := min(want, Chunk)
	kernels.LevelsGComp(lv, l.tr.Choices, l.tr.Noise, c, uint64(math.Floor(l.g)), l.rule)
	return c
}

// The comparison processes' costs for --engine auto (core/choose.go): 13.5
// ns a ball on ranks, 9.17 ns a ball on the direct engine against
// two-choice's 5.46 at n = 10^6.
func comparisonSeconds(m uint64) float64 { return float64(m) * 13.5e-9 }

const comparisonFactor = 9.17 / 5.46
