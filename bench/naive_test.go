package bench

import "testing"

// The naive loops must be the processes they stand for: every ball lands,
// and the load spread orders as the theory says (two-choice far tighter than
// one-choice), so the speed ratios compare like with like.
func TestNaiveLoopsPlaceEveryBall(t *testing.T) {
	const n, m = 1000, 200000
	spread := map[string]int{}
	for _, c := range cases {
		if c.name == "two-choice-exp1" {
			loads := make([]float64, n)
			naiveWeightedDChoice(loads, m, 2)
			sum := 0.0
			for _, x := range loads {
				sum += x
			}
			if sum < 0.95*m || sum > 1.05*m { // mean-1 weights: sd of the sum is √m
				t.Errorf("%s: total weight %v for %d balls", c.name, sum, m)
			}
			continue
		}
		loads := make([]int, n)
		switch c.name {
		case "one-choice":
			naiveOneChoice(loads, m)
		case "two-choice":
			naiveDChoice(loads, m, 2)
		case "d-choice-d3":
			naiveDChoice(loads, m, 3)
		case "one-plus-beta-0.5":
			naiveOnePlusBeta(loads, m, 0.5)
		case "always-go-left-d2":
			naiveAlwaysGoLeft(loads, m, 2)
		case "two-thinning-1":
			naiveTwoThinning(loads, m, 1)
		default:
			t.Fatalf("no check for case %s", c.name)
		}
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
	if spread["two-choice"] >= spread["one-choice"]/3 {
		t.Errorf("naive two-choice spread %d is not far below one-choice's %d", spread["two-choice"], spread["one-choice"])
	}
}
