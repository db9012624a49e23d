package process

import (
	"math"
	"testing"

	"github.com/balloc/balloc/core/theory"
)

func fluidOnePlusBeta(t *testing.T, beta float64, balls uint64) theory.Profile {
	t.Helper()
	p, err := (&OnePlusBeta{Beta: beta}).Fluid(1, balls)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func maxDiff(a, b theory.Profile) float64 {
	d := 0.0
	for i := 0; i <= max(a.Top(), b.Top())+1; i++ {
		d = max(d, math.Abs(a.At(i)-b.At(i)))
	}
	return d
}

// The (1+β) limit is one-choice's at β = 0 and two-choice's at β = 1 (a
// wrong coefficient in its system fails), and conserves mass: every ball
// adds 1/n to Σ_{i≥1} s_i.
func TestOnePlusBetaFluidReductionsAndMass(t *testing.T) {
	for _, m := range []uint64{1, 30, 200} {
		tt := float64(m)
		if d := maxDiff(fluidOnePlusBeta(t, 0, m), theory.FluidOneChoice(tt)); d > 1e-7 {
			t.Errorf("t = %v: β = 0 differs from one-choice by %g", tt, d)
		}
		if d := maxDiff(fluidOnePlusBeta(t, 1, m), theory.FluidDChoice(2, tt)); d > 1e-9 {
			t.Errorf("t = %v: β = 1 differs from two-choice by %g", tt, d)
		}
		p := fluidOnePlusBeta(t, 0.5, m)
		mass := float64(p.Base - 1)
		for _, v := range p.S {
			mass += v
		}
		if tol := 1e-12*float64(p.Base) + 1e-8; math.Abs(mass-tt) > tol {
			t.Errorf("β = 0.5, t = %v: mass %.12f, want %v", tt, mass, tt)
		}
		// Strictly between: more mass above the mean than two-choice,
		// less than one-choice.
		two, one := theory.FluidDChoice(2, tt), theory.FluidOneChoice(tt)
		if top := int(tt) + 2; !(p.At(top) > two.At(top) && p.At(top) < one.At(top)) {
			t.Errorf("β = 0.5, t = %v: s_%d = %g, not between two-choice's %g and one-choice's %g", tt, top, p.At(top), two.At(top), one.At(top))
		}
	}
}
