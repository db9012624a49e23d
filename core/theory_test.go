package core

import (
	"math"
	"testing"
)

type fluidCase struct {
	name string
	f    func(t float64) Profile
}

var fluidCases = []fluidCase{
	{"d-choice d=1", func(t float64) Profile { return FluidDChoice(1, t) }},
	{"d-choice d=2", func(t float64) Profile { return FluidDChoice(2, t) }},
	{"d-choice d=3", func(t float64) Profile { return FluidDChoice(3, t) }},
	{"one-plus-beta 0.5", func(t float64) Profile { return FluidOnePlusBeta(0.5, t) }},
	{"always-go-left d=2", func(t float64) Profile { return FluidAlwaysGoLeft(2, t) }},
	{"always-go-left d=3", func(t float64) Profile { return FluidAlwaysGoLeft(3, t) }},
	{"two-thinning 0.5", func(t float64) Profile { return FluidTwoThinning(0.5, t) }},
	{"two-thinning 2", func(t float64) Profile { return FluidTwoThinning(2, t) }},
}

func maxDiff(a, b Profile) float64 {
	d := 0.0
	for i := 0; i <= max(a.Top(), b.Top())+1; i++ {
		d = max(d, math.Abs(a.At(i)-b.At(i)))
	}
	return d
}

// The d = 1 system is linear with the closed form P(Poisson(t) ≥ i).
func TestFluidOneChoiceODEMatchesPoisson(t *testing.T) {
	for _, tt := range []float64{0.5, 1, 10, 100} {
		if d := maxDiff(FluidDChoice(1, tt), FluidOneChoice(tt)); d > 1e-7 {
			t.Errorf("t = %v: RK4 d = 1 differs from the Poisson tail by %g", tt, d)
		}
	}
}

// Every ball adds 1/n to Σ_{i≥1} s_i, so the profile's mass is t exactly.
func TestFluidConservesMass(t *testing.T) {
	for _, c := range fluidCases {
		for _, tt := range []float64{1, 7.5, 200} {
			p := c.f(tt)
			mass := float64(p.Base - 1)
			for _, v := range p.S {
				mass += v
			}
			// The window drops levels above 1 − 1e-12: at most that much
			// mass moves per level dropped.
			if tol := 1e-12*float64(p.Base) + 1e-8; math.Abs(mass-tt) > tol {
				t.Errorf("%s t = %v: mass %.12f, want %v", c.name, tt, mass, tt)
			}
		}
	}
}

func TestFluidStepConverges(t *testing.T) {
	for _, c := range fluidCases {
		coarse := c.f(20)
		fluidRefine = 2
		fine := c.f(20)
		fluidRefine = 1
		if d := maxDiff(coarse, fine); d > 1e-8 {
			t.Errorf("%s: halving the step moves the profile by %g", c.name, d)
		}
	}
}

// Processes that reduce to others must have the same fluid limit.
func TestFluidReductions(t *testing.T) {
	for _, tt := range []float64{1, 30} {
		one := FluidOneChoice(tt)
		for name, p := range map[string]Profile{
			"always-go-left d=1":  FluidAlwaysGoLeft(1, tt),
			"one-plus-beta β=0":   FluidOnePlusBeta(0, tt),
			"two-thinning θ=1e9":  FluidTwoThinning(1e9, tt),
			"two-thinning θ=-1e9": FluidTwoThinning(-1e9, tt),
		} {
			if d := maxDiff(p, one); d > 1e-7 {
				t.Errorf("t = %v: %s differs from one-choice by %g", tt, name, d)
			}
		}
		if d := maxDiff(FluidOnePlusBeta(1, tt), FluidDChoice(2, tt)); d > 1e-9 {
			t.Errorf("t = %v: one-plus-beta β=1 differs from two-choice by %g", tt, d)
		}
	}
}

// Heavy load: the two-choice profile settles around the mean with a gap of
// log log n / log 2 + O(1) (Berenbrink et al. 2006); the window stays narrow.
func TestFluidHeavyLoadWindow(t *testing.T) {
	p := FluidDChoice(2, 10000)
	if len(p.S) > 40 {
		t.Errorf("two-choice window at t = 1e4 holds %d levels", len(p.S))
	}
	if p.At(10000) < 0.5 || p.At(10004) > 1e-3 || p.At(9990) < 1-1e-6 {
		t.Errorf("two-choice profile at t = 1e4 not concentrated at the mean: %v from %d", p.S, p.Base)
	}
}
