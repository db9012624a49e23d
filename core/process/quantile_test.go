package process

import (
	"math"
	"testing"

	"github.com/balloc/balloc/core/theory"
)

// Quantile's k is ⌈δn⌉ exactly: the positions 0 … n−1 below δn.
func TestQuantileK(t *testing.T) {
	for _, c := range []struct {
		delta float64
		n, k  uint64
	}{{0, 10, 0}, {1, 10, 10}, {0.5, 10, 5}, {0.5, 11, 6}, {0.3, 10, 3}, {0.1, 3, 1}, {1e-9, 1e6, 1}, {0.75, 4, 3}} {
		p := &Quantile{Delta: c.delta}
		if err := p.Check(&Setup{Bins: c.n}); err != nil || p.k != c.k {
			t.Errorf("δ = %v, n = %d: k = %d (%v), want %d", c.delta, c.n, p.k, err, c.k)
		}
	}
	// δ·n rounded in floats would lose the half: 0.5·(2^53 + 1) is 2^52 in
	// float64, and k is 2^52 + 1.
	p := &Quantile{Delta: 0.5}
	if err := p.Check(&Setup{Bins: 1<<53 + 1}); err != nil || p.k != 1<<52+1 {
		t.Errorf("δ = 0.5 at n = 2^53 + 1: k = %d, want 2^52 + 1", p.k)
	}
}

// The fluid limit is One-Choice at δ = 0 and δ = 1, conserves mass, and in
// between lies strictly between One-Choice and Two-Choice above the mean.
func TestQuantileFluid(t *testing.T) {
	for _, m := range []uint64{1, 20} {
		tt := float64(m)
		one, two := theory.FluidOneChoice(tt), theory.FluidDChoice(2, tt)
		for _, d := range []float64{0, 1} {
			p, _ := (&Quantile{Delta: d}).Fluid(1, m)
			if diff := maxDiff(p, one); diff > 1e-7 {
				t.Errorf("δ = %v, t = %v: differs from one-choice by %g", d, tt, diff)
			}
		}
		p, _ := (&Quantile{Delta: 0.5}).Fluid(1, m)
		mass := float64(p.Base - 1)
		for _, v := range p.S {
			mass += v
		}
		if math.Abs(mass-tt) > 1e-8 {
			t.Errorf("δ = 0.5, t = %v: mass %.12f", tt, mass)
		}
		if top := int(tt) + 2; !(p.At(top) > two.At(top) && p.At(top) < one.At(top)) {
			t.Errorf("δ = 0.5, t = %v: s_%d = %g, not between two-choice's %g and one-choice's %g", tt, top, p.At(top), two.At(top), one.At(top))
		}
	}
}
