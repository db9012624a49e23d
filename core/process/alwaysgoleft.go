package process

import (
	"fmt"

	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/kernels"
)

// Always-Go-Left (Vöcking, "How asymmetry helps load balancing", JACM 2003):
// the bins are split into d equal groups of consecutive bins; a ball samples
// one uniform bin in each group and goes to the least loaded, ties to the
// leftmost group. Not symmetric (the groups name the bins), so it runs on
// the direct engine only: kernels.AlwaysGoLeft, d PCG32.Bounded(n/d) per
// ball. Fluid limit: Vöcking's per-group system (core/theory).

// AlwaysGoLeft is Always-Go-Left.
type AlwaysGoLeft struct {
	D int // groups
}

var alwaysGoLeftEntry = &Entry{
	Name: "always-go-left", Order: 50,
	Summary: "d equal groups, one uniform bin per group, least loaded, ties to the leftmost group",
	Source:  "Vöcking 2003",
	New:     func() Process { return &AlwaysGoLeft{} },
}

func init() { Register(alwaysGoLeftEntry) }

func (*AlwaysGoLeft) Entry() *Entry { return alwaysGoLeftEntry }

func (p *AlwaysGoLeft) Params() []*Param {
	return []*Param{DParam(&p.D, "groups, each of n/d consecutive bins; d divides bins")}
}

func (p *AlwaysGoLeft) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if n := su.Bins; uint64(p.D) > n || n%uint64(p.D) != 0 {
		return fmt.Errorf("--d %d: always-go-left splits the bins into d equal groups, so d must divide --bins %d", p.D, n)
	}
	return nil
}

type alwaysGoLeftLoop[L kernels.Load] struct {
	r *kernels.PCG32
	d int
}

func (l alwaysGoLeftLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.AlwaysGoLeft(loads, l.r, c, l.d, maxLoad)
}

func (p *AlwaysGoLeft) Direct32(tr *Trial) Stepper[uint32] {
	return alwaysGoLeftLoop[uint32]{tr.Choices, p.D}
}
func (p *AlwaysGoLeft) Direct64(tr *Trial) Stepper[uint64] {
	return alwaysGoLeftLoop[uint64]{tr.Choices, p.D}
}

func (p *AlwaysGoLeft) Fluid(bins, balls uint64) (theory.Profile, error) {
	return theory.FluidAlwaysGoLeft(p.D, float64(balls)/float64(bins)), nil
}
