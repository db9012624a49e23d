package theory

import (
	"math"
	"testing"

	"github.com/balloc/balloc/kernels"
)

type fluidCase struct {
	name string
	f    func(t float64) Profile
}

var fluidCases = []fluidCase{
	{"d-choice d=1", func(t float64) Profile { return FluidDChoice(1, t) }},
	{"d-choice d=2", func(t float64) Profile { return FluidDChoice(2, t) }},
	{"d-choice d=3", func(t float64) Profile { return FluidDChoice(3, t) }},
	{"always-go-left d=2", func(t float64) Profile { return FluidAlwaysGoLeft(2, t) }},
	{"always-go-left d=3", func(t float64) Profile { return FluidAlwaysGoLeft(3, t) }},
	{"two-thinning 0.5", func(t float64) Profile { return FluidTwoThinning(0.5, t) }},
	{"two-thinning 2", func(t float64) Profile { return FluidTwoThinning(2, t) }},
	{"g-myopic-comp g=2", func(t float64) Profile { return FluidGComp(2, false, t) }},
	{"g-adv-comp g=2 heavier", func(t float64) Profile { return FluidGComp(2, true, t) }},
	{"sigma-noisy-load 1.5", func(t float64) Profile { return FluidSigmaNoisyLoad(1.5, t) }},
	{"rho-noisy-comp step:1,0.7", func(t float64) Profile {
		return FluidRhoNoisyComp(kernels.Rho{Kind: kernels.RhoStep, A: 1, B: 0.7}, t)
	}},
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

// Processes that reduce to others must have the same fluid limit ((1+β):
// core/process/oneplusbeta_test.go).
func TestFluidReductions(t *testing.T) {
	for _, tt := range []float64{1, 30} {
		one := FluidOneChoice(tt)
		for name, p := range map[string]Profile{
			"always-go-left d=1":  FluidAlwaysGoLeft(1, tt),
			"two-thinning θ=1e9":  FluidTwoThinning(1e9, tt),
			"two-thinning θ=-1e9": FluidTwoThinning(-1e9, tt),
		} {
			if d := maxDiff(p, one); d > 1e-7 {
				t.Errorf("t = %v: %s differs from one-choice by %g", tt, name, d)
			}
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

// The noisy comparisons reduce to two-choice without noise, and ρ-Noisy-Comp
// with ρ = gauss:σ is σ-Noisy-Load by definition (kernels.RhoGauss).
func TestFluidCompareReductions(t *testing.T) {
	for _, tt := range []float64{1, 30} {
		two := FluidDChoice(2, tt)
		for name, p := range map[string]Profile{
			"g-myopic-comp g=0":   FluidGComp(0, false, tt),
			"g-adv-comp g=0":      FluidGComp(0, true, tt),
			"sigma-noisy-load 0":  FluidSigmaNoisyLoad(0, tt),
			"rho-noisy-comp step": FluidRhoNoisyComp(kernels.Rho{Kind: kernels.RhoStep, A: 3, B: 1}, tt),
		} {
			if d := maxDiff(p, two); d > 1e-9 {
				t.Errorf("t = %v: %s differs from two-choice by %g", tt, name, d)
			}
		}
		if d := maxDiff(FluidRhoNoisyComp(kernels.Rho{Kind: kernels.RhoGauss, A: 2}, tt), FluidSigmaNoisyLoad(2, tt)); d > 1e-12 {
			t.Errorf("t = %v: rho gauss:2 differs from sigma-noisy-load 2 by %g", tt, d)
		}
		// Within g the myopic rule is one-choice on pairs of equal-ish
		// loads, so g = 10^6 is one-choice at every t here.
		if d := maxDiff(FluidGComp(1e6, false, tt), FluidOneChoice(tt)); d > 1e-7 {
			t.Errorf("t = %v: g-myopic-comp g=1e6 differs from one-choice by %g", tt, d)
		}
	}
}
