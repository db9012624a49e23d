package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/kernels"
)

// The limits of core/theory/compare.go against simulation at n = 2·10^5, m = 4n:
// every level with at least 100 predicted bins within the Student-t bound
// of fluidAgreement over 16 trials; and each told apart from a neighbouring
// parameter by the same simulation (a wrong g, rule, σ or ρ fails).
func TestFluidCompareMatchesSimulation(t *testing.T) {
	t.Parallel()
	const T = 4
	rho := func(v string) kernels.Rho {
		r, err := process.ParseRho(v)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	cases := []struct {
		process      string
		params       map[string]string
		right, wrong theory.Profile
	}{
		{"g-myopic-comp", map[string]string{"g": "2"}, theory.FluidGComp(2, false, T), theory.FluidGComp(1, false, T)},
		{"g-adv-comp", map[string]string{"g": "2", "adversary": "greedy-reverse"}, theory.FluidGComp(2, true, T), theory.FluidGComp(2, false, T)},
		{"g-adv-comp", map[string]string{"g": "1.5", "adversary": "random"}, theory.FluidGComp(1, false, T), theory.FluidGComp(1, true, T)},
		{"g-adv-comp", map[string]string{"g": "1", "adversary": "max-target"}, theory.FluidGComp(1, true, T), theory.FluidGComp(2, true, T)},
		{"sigma-noisy-load", map[string]string{"sigma": "1.5"}, theory.FluidSigmaNoisyLoad(1.5, T), theory.FluidSigmaNoisyLoad(1.2, T)},
		{"rho-noisy-comp", map[string]string{"rho": "step:1,0.7"}, theory.FluidRhoNoisyComp(rho("step:1,0.7"), T), theory.FluidRhoNoisyComp(rho("step:1,0.8"), T)},
		{"rho-noisy-comp", map[string]string{"rho": "logistic:1"}, theory.FluidRhoNoisyComp(rho("logistic:1"), T), theory.FluidRhoNoisyComp(rho("logistic:0.7"), T)},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(c.process, c.params), func(t *testing.T) {
			s := mustSpec(t, c.process, c.params, core.Common{Bins: 200000, Balls: T * 200000, Seed: uint64(60 + i)})
			if p, err := core.FluidOf(s); err != nil || maxDiff(p, c.right) != 0 {
				t.Fatalf("FluidOf gives another limit (%v)", err)
			}
			worst, levels := fluidAgreement(s, c.right, 16)
			t.Logf("worst deviation %.2f of the tolerance over %d levels", worst, levels)
			if levels < 3 || worst > 1 {
				t.Errorf("worst deviation %.2f of the tolerance over %d levels", worst, levels)
			}
			wrong, _ := fluidAgreement(s, c.wrong, 16)
			t.Logf("against the neighbouring limit: worst %.2f of the tolerance", wrong)
			if wrong < 3 {
				t.Errorf("agrees with a neighbouring limit too (worst %.2f of the tolerance)", wrong)
			}
		})
	}
}

func maxDiff(a, b theory.Profile) float64 {
	d := 0.0
	for i := 0; i <= max(a.Top(), b.Top())+1; i++ {
		d = max(d, math.Abs(a.At(i)-b.At(i)))
	}
	return d
}
