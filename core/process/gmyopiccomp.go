package process

import "github.com/balloc/balloc/core/theory"

// g-Myopic-Comp (Los and Sauerwald, "Balanced allocations with the choice
// of noise", PODC 2022, §2): a ball samples two uniform bins; when their
// loads differ by more than g the lighter gets it, else a uniformly random
// one of the two. The loops are g-adv-comp's with the fair-coin rule
// (gadvcomp.go). balloc concurrent: ShapeMyopic.

// GMyopicComp is g-Myopic-Comp.
type GMyopicComp struct {
	G float64
}

var gMyopicCompEntry = &Entry{
	Name: "g-myopic-comp", Order: 80,
	Summary:  "two uniform bins; loads within g: a random one of the two, else the lighter",
	Source:   "Los, Sauerwald 2022 (Choice of Noise), §2",
	Weighted: true,
	New:      func() Process { return &GMyopicComp{} },
}

func init() { Register(gMyopicCompEntry) }

func (*GMyopicComp) Entry() *Entry                           { return gMyopicCompEntry }
func (p *GMyopicComp) Params() []*Param                      { return []*Param{GParam(&p.G)} }
func (p *GMyopicComp) Check(su *Setup) error                 { return needBins(p, su) }
func (p *GMyopicComp) comp() gComp                           { return gComp{p.G, adversaries["random"]} }
func (p *GMyopicComp) Direct32(tr *Trial) Stepper[uint32]    { return gCompLoop[uint32]{p.comp(), tr} }
func (p *GMyopicComp) Direct64(tr *Trial) Stepper[uint64]    { return gCompLoop[uint64]{p.comp(), tr} }
func (p *GMyopicComp) DirectReal(tr *Trial) RealStepper      { return gCompReal{p.comp(), tr} }
func (p *GMyopicComp) Levels(tr *Trial) LevelStepper         { return gCompLevels{p.comp(), tr} }
func (*GMyopicComp) HistogramSeconds(_, m, _ uint64) float64 { return comparisonSeconds(m) }
func (*GMyopicComp) DirectFactor() float64                   { return comparisonFactor }

func (p *GMyopicComp) Fluid(bins, balls uint64) (theory.Profile, error) {
	return p.comp().fluid(bins, balls), nil
}

func (p *GMyopicComp) Concurrent() Rule {
	return Rule{Shape: ShapeMyopic, G: p.G, Params: []RuleParam{{"g", "two loads differing by at most g are compared by a fair coin, else the lighter is taken, g ≥ 0"}}}
}
