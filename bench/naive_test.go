package bench

import "testing"

// The naive loops must be the processes they stand for, so that the speed
// ratios compare like with like: every ball lands, and two-choice and the
// noisy two-choices keep loads far tighter than one-choice (at m = 200n the
// one-choice spread is about 100, two-choice's under 10: the naive loops
// draw from math/rand/v2's unseeded generator, so only contrasts this wide
// are asserted).
func TestNaiveLoopsPlaceEveryBall(t *testing.T) {
	const n, m = 1000, 200000
	spread := map[string]int{}
	for _, c := range cases {
		if c.naiveW != nil {
			loads := make([]float64, n)
			c.naiveW(loads, m)
			sum := 0.0
			for _, x := range loads {
				sum += x
			}
			if sum < 0.95*m || sum > 1.05*m { // mean-1 weights: the sum's sd is √m
				t.Errorf("%s: total weight %v for %d balls", c.name, sum, m)
			}
			continue
		}
		if c.naive == nil {
			t.Errorf("%s has no naive loop", c.name)
			continue
		}
		loads := make([]int, n)
		c.naive(loads, m)
		sum, lo, hi := 0, loads[0], loads[0]
		for _, x := range loads {
			sum += x
			lo, hi = min(lo, x), max(hi, x)
		}
		if sum != m {
			t.Errorf("%s placed %d balls, want %d", c.name, sum, m)
		}
		spread[c.name] = hi - lo
	}
	one, two := spread["one-choice"], spread["two-choice"]
	if two >= one/3 {
		t.Errorf("naive two-choice spread %d is not far below one-choice's %d", two, one)
	}
	for _, name := range []string{"g-adv-comp-g4", "g-myopic-comp-g4", "sigma-noisy-load-2", "rho-noisy-comp-gauss2",
		"tau-delay-fixed-n", "tau-delay-adversarial-n", "tau-delay-uniform-n", "b-batch-n"} {
		if s := spread[name]; s >= one/2 {
			t.Errorf("naive %s spread %d is not far below one-choice's %d", name, s, one)
		}
	}
}
